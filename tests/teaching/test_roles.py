"""Course roles: one per user and course, granted in the admin or by an LMS launch, and an
administrator's choice outranks a launch's."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from teaching.models import CourseRole
from teaching.services import course_role_from_lms
from tests.factories import CourseFactory, InstructorFactory, UserFactory

pytestmark = pytest.mark.django_db

INSTRUCTOR = CourseRole.Role.INSTRUCTOR
ASSISTANT = CourseRole.Role.TEACHING_ASSISTANT


def test_a_launch_grants_the_role_and_a_later_launch_changes_it():
    user, course = UserFactory(), CourseFactory()
    granted = course_role_from_lms(user=user, course=course, role="teaching_assistant")
    assert (granted.role, granted.source) == (ASSISTANT, CourseRole.Source.LMS)
    course_role_from_lms(user=user, course=course, role="instructor")
    assert CourseRole.objects.get(user=user, course=course).role == INSTRUCTOR
    assert CourseRole.objects.count() == 1


def test_a_launch_leaves_a_role_an_administrator_set():
    user, course = UserFactory(), CourseFactory()
    CourseRole.objects.create(user=user, course=course, role=INSTRUCTOR)
    kept = course_role_from_lms(user=user, course=course, role="teaching_assistant")
    assert (kept.role, kept.source) == (INSTRUCTOR, CourseRole.Source.ADMIN)
    assert CourseRole.objects.get().role == INSTRUCTOR


def test_a_launch_grants_roles_only_in_its_own_course():
    user, course, other = UserFactory(), CourseFactory(), CourseFactory()
    course_role_from_lms(user=user, course=course, role="instructor")
    assert list(CourseRole.objects.values_list("course", flat=True)) == [course.pk]
    assert not CourseRole.objects.filter(course=other).exists()


def test_an_unknown_role_is_refused():
    with pytest.raises(ValueError, match="Unknown course role 'learner'"):
        course_role_from_lms(user=UserFactory(), course=CourseFactory(), role="learner")
    assert not CourseRole.objects.exists()


def test_a_user_holds_one_role_per_course_and_only_the_two_roles():
    user, course = UserFactory(), CourseFactory()
    CourseRole.objects.create(user=user, course=course, role=INSTRUCTOR)
    with pytest.raises(IntegrityError), transaction.atomic():
        CourseRole.objects.create(user=user, course=course, role=ASSISTANT)
    with pytest.raises(IntegrityError), transaction.atomic():
        CourseRole.objects.create(user=user, course=CourseFactory(), role="dean")


def test_roles_are_managed_in_the_admin_and_an_edit_makes_the_role_the_admin_s(client):
    client.force_login(InstructorFactory())
    user, course = UserFactory(), CourseFactory()
    granted = course_role_from_lms(user=user, course=course, role="teaching_assistant")
    assert client.get(reverse("admin:teaching_courserole_changelist")).status_code == 200
    response = client.post(
        reverse("admin:teaching_courserole_change", args=[granted.pk]),
        {"course": course.pk, "user": user.pk, "role": "instructor"},
    )
    assert response.status_code == 302
    granted.refresh_from_db()
    assert (granted.role, granted.source) == (INSTRUCTOR, CourseRole.Source.ADMIN)
    # Now a launch saying teaching assistant leaves it alone.
    course_role_from_lms(user=user, course=course, role="teaching_assistant")
    granted.refresh_from_db()
    assert granted.role == INSTRUCTOR

    added = client.post(
        reverse("admin:teaching_courserole_add"),
        {"course": CourseFactory().pk, "user": user.pk, "role": "teaching_assistant"},
    )
    assert added.status_code == 302
    assert CourseRole.objects.filter(user=user).count() == 2


def test_a_launch_with_no_course_role_takes_away_only_a_launch_s_role():
    user, course, other = UserFactory(), CourseFactory(), CourseFactory()
    course_role_from_lms(user=user, course=course, role="instructor")
    course_role_from_lms(user=user, course=other, role="teaching_assistant")
    assert course_role_from_lms(user=user, course=course, role=None) is None
    assert list(CourseRole.objects.values_list("course", flat=True)) == [other.pk]
    # Nothing to take away: nothing happens.
    assert course_role_from_lms(user=user, course=course, role=None) is None
    assert CourseRole.objects.count() == 1


def test_a_launch_with_no_course_role_leaves_an_administrator_s_role():
    user, course = UserFactory(), CourseFactory()
    CourseRole.objects.create(user=user, course=course, role=ASSISTANT)
    kept = course_role_from_lms(user=user, course=course, role=None)
    assert (kept.role, kept.source) == (ASSISTANT, CourseRole.Source.ADMIN)
    assert CourseRole.objects.get() == kept
