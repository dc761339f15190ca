"""Granting course roles: in the admin (an administrator's choice), or at an LMS launch."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from courses.models import Course
from teaching.models import CourseRole


def course_role_from_lms(*, user: AbstractBaseUser, course: Course, role: str) -> CourseRole:
    """An LMS launch says `user` is an instructor or teaching assistant of the course behind the
    link's content: give them that role in it, or change the role a launch gave before.

    A role an administrator set is kept as it is: the admin is softgrade's own decision, a
    launch only the LMS's word. LTI calls this through SOFTGRADE_LAUNCH_COURSE_ROLE_HOOKS, inside
    the launch's transaction, for the account the launch signed in (never one found by name).
    """
    if role not in CourseRole.Role.values:
        raise ValueError(f"Unknown course role {role!r}.")
    with transaction.atomic():
        held = CourseRole.objects.select_for_update().filter(course=course, user=user).first()
        if held is not None and held.source == CourseRole.Source.ADMIN:
            return held
        granted, _ = CourseRole.objects.update_or_create(
            course=course,
            user=user,
            defaults={"role": role, "source": CourseRole.Source.LMS},
        )
        return granted
