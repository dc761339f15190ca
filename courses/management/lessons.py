"""The lesson a management command names, or the error that says which ones exist."""

from __future__ import annotations

from django.core.management.base import CommandError
from django.utils.translation import gettext as _

from courses.models import Lesson


def lesson_named(slug: str) -> Lesson:
    """The lesson with this slug; a CommandError naming the known slugs when there is none."""
    try:
        return Lesson.objects.get(slug=slug)
    except Lesson.DoesNotExist as exc:
        known = ", ".join(Lesson.objects.order_by("slug").values_list("slug", flat=True))
        known = known or _("none")
        raise CommandError(
            _("No lesson '%(slug)s' (known: %(known)s).") % {"slug": slug, "known": known}
        ) from exc
