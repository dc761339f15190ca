"""Granting course roles: in the admin (an administrator's choice), or at an LMS launch."""

from __future__ import annotations

import logging

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from courses.models import Course
from teaching.models import CourseRole

# One line per role a launch gives, changes or takes away, for the administrator's audit (the
# admin's own changes are in its history).
logger = logging.getLogger("softgrade.teaching")


def course_role_from_lms(
    *, user: AbstractBaseUser, course: Course, role: str | None
) -> CourseRole | None:
    """An LMS launch says `user` is an instructor or teaching assistant of the course behind the
    link's content (`role`), or neither (None: a learner, or any other role): give them that
    role in it, change the role a launch gave before, or take that role away. Returns the role
    they hold after the launch, if any.

    A role an administrator set is kept as it is: the admin is softgrade's own decision, a
    launch only the LMS's word. LTI calls this through SOFTGRADE_LAUNCH_COURSE_ROLE_HOOKS, inside
    the launch's transaction, for the account the launch signed in (never one found by name).
    """
    if role is not None and role not in CourseRole.Role.values:
        raise ValueError(f"Unknown course role {role!r}.")
    with transaction.atomic():
        held = CourseRole.objects.select_for_update().filter(course=course, user=user).first()
        if held is not None and held.source == CourseRole.Source.ADMIN:
            return held
        if role is None:
            if held is not None:
                held.delete()
                _log_change(user=user, course=course, before=held.role, after=None)
            return None
        if held is None:
            # get_or_create, not create: two launches at once both find no role, one makes it.
            held, created = CourseRole.objects.get_or_create(
                course=course, user=user, defaults={"role": role, "source": CourseRole.Source.LMS}
            )
            if created:
                _log_change(user=user, course=course, before=None, after=role)
                return held
        if held.role != role and held.source == CourseRole.Source.LMS:
            before = held.role
            held.role = role
            held.save(update_fields=["role", "updated_at"])
            _log_change(user=user, course=course, before=before, after=role)
        return held


def _log_change(
    *, user: AbstractBaseUser, course: Course, before: str | None, after: str | None
) -> None:
    logger.info(
        "Course role of user %s (%s) in course %s changed by an LMS launch: %s -> %s",
        user.pk,
        user.get_username(),
        course.slug,
        before or "none",
        after or "none",
    )
