"""Publishing in the admin: the "Publish selected" and "Unpublish selected" actions of the
question, problem and quiz lists, and the change forms' checks, all asking courses.publishing."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy

from .models import Problem, Question
from .publishing import PublishRefused, content_publish, unpublish_problems


def _apply(
    modeladmin: admin.ModelAdmin, request: HttpRequest, rows: QuerySet, *, published: bool
) -> None:
    try:
        changed = content_publish(rows=rows, published=published)
    except PublishRefused as refused:
        for problem in refused.problems:
            modeladmin.message_user(request, problem[0].upper() + problem[1:] + ".", messages.ERROR)
        modeladmin.message_user(request, "Nothing was changed.", messages.ERROR)
        return
    opts = rows.model._meta
    noun = opts.verbose_name if changed == 1 else opts.verbose_name_plural
    verb = "published" if published else "unpublished"
    modeladmin.message_user(request, f"{changed} {noun} {verb}.", messages.SUCCESS)


@admin.action(
    description=gettext_lazy("Publish selected %(verbose_name_plural)s"), permissions=["change"]
)
def publish_selected(modeladmin: admin.ModelAdmin, request: HttpRequest, rows: QuerySet) -> None:
    _apply(modeladmin, request, rows, published=True)


@admin.action(
    description=gettext_lazy("Unpublish selected %(verbose_name_plural)s"), permissions=["change"]
)
def unpublish_selected(modeladmin: admin.ModelAdmin, request: HttpRequest, rows: QuerySet) -> None:
    _apply(modeladmin, request, rows, published=False)


PUBLISHING_ACTIONS = [publish_selected, unpublish_selected]


def unpublishing_problems(form: forms.ModelForm) -> list[str]:
    """A question's or problem's change form: why unchecking "published" is refused (a
    published quiz holds it), as sentences."""
    instance = form.instance
    if (
        instance.pk is None
        or "published" not in form.changed_data
        or form.cleaned_data.get("published")
    ):
        return []
    if isinstance(instance, Question):
        found = unpublish_problems(questions=[instance])
    else:
        assert isinstance(instance, Problem)
        found = unpublish_problems(problems=[instance])
    return [problem[0].upper() + problem[1:] + "." for problem in found]
