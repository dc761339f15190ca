"""Who may act on softgrade's LTI side, decided here once: open an LMS link's instructor view
(its learners, their results, the scores sent back), start a roster sync for its LMS course,
and register softgrade in an LMS (the setup page and its one-time registration links).

Staff status alone gives none of these: staff author in the admin. Each needs an explicit grant:

- a model permission, given in the admin to a user or a group: `lti.view_linktarget` opens every
  link's instructor view, `lti.add_rostersync` starts a roster sync of any link's course, and
  `lti.add_registrationinvite` opens the setup page and makes registration links;
- or, for a link (registration reaches every course, so no course role applies to it), a
  teaching role in the link's course: an instructor of the softgrade course of its quiz or
  practice set (teaching.models.CourseRole, asked through SOFTGRADE_COURSES_INSTRUCTED, since
  lti never imports teaching; a teaching assistant only looks at the results pages), or an
  instructor, administrator or content developer of the link's LMS course as the LMS last said
  (launches and roster syncs).

Superusers hold every permission. A link the user may not open is a 404, exactly like one that
does not exist; a roster sync refused on a link the user may open is a 403.
"""

from __future__ import annotations

import enum

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils.module_loading import import_string
from lti_tool.models import LtiMembership

from courses.models import Course
from lti.models import LinkTarget

REGISTRATION_PERMISSION = "lti.add_registrationinvite"
# The LMS course roles that teach there; a teaching assistant's launch holds none of them.
LMS_TEACHING = Q(is_instructor=True) | Q(is_administrator=True) | Q(is_content_developer=True)


class LinkAction(enum.Enum):
    """What a user does with an LMS link, each with the model permission that grants it on every
    link."""

    VIEW = "lti.view_linktarget"
    ROSTER_SYNC = "lti.add_rostersync"


def _active(user: AbstractBaseUser | AnonymousUser) -> bool:
    return bool(user.is_authenticated and user.is_active)


def _courses_instructed(user: AbstractBaseUser) -> QuerySet[Course]:
    """The softgrade courses the user instructs, by the rule settings name (none without one)."""
    path = getattr(settings, "SOFTGRADE_COURSES_INSTRUCTED", None)
    if path is None:
        return Course.objects.none()
    return import_string(path)(user=user)


def links_for(
    *, user: AbstractBaseUser | AnonymousUser, action: LinkAction
) -> QuerySet[LinkTarget]:
    """The links on which the user may take the action: every link with its permission, else
    those of the courses they instruct, in softgrade or in the LMS; none for anonymous and
    inactive users."""
    if not _active(user):
        return LinkTarget.objects.none()
    if user.has_perm(action.value):
        return LinkTarget.objects.all()
    courses = _courses_instructed(user)
    teaches_in_lms = LtiMembership.objects.filter(
        LMS_TEACHING, context_id=OuterRef("resource_link__context_id"), user__auth_user=user
    )
    return LinkTarget.objects.filter(
        Q(quiz__lesson__course__in=courses)
        | Q(lesson__course__in=courses)
        | Q(Exists(teaches_in_lms))
    )


def may_act_on_link(
    *, user: AbstractBaseUser | AnonymousUser, target: LinkTarget, action: LinkAction
) -> bool:
    """May the user take the action on this link (one query at most)."""
    return links_for(user=user, action=action).filter(pk=target.pk).exists()


def may_register_platforms(*, user: AbstractBaseUser | AnonymousUser) -> bool:
    """May the user open the setup page and make one-time registration links."""
    return _active(user) and user.has_perm(REGISTRATION_PERMISSION)
