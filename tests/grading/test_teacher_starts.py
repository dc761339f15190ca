"""Instructors are never counted by accident: whatever someone who teaches the quiz's course (an
instructor, a teaching assistant) or a superuser starts is a preview, wherever they start it:
the quiz page ("Open as a learner sees it" on /teach/ leads there), the API, the preview button.
Decided once (grading.services.attempts.attempt_start_or_resume); learners' attempts count, and
so do those of staff and of another course's teachers, who are learners here."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from grading.models import Attempt
from grading.services.attempts import attempt_start, attempt_start_or_resume
from teaching.models import CourseRole
from tests.factories import CourseFactory, InstructorFactory, UserFactory
from tests.grading.exam_records import exam_build, sit

pytestmark = pytest.mark.django_db

BANNER = "Preview — not counted."


@pytest.fixture
def exam():
    return exam_build()


def with_role(course, role):
    user = UserFactory()
    CourseRole.objects.create(course=course, user=user, role=role)
    return user


def teacher(exam, who: str):
    course = exam.quiz.lesson.course
    return {
        "instructor": lambda: with_role(course, CourseRole.Role.INSTRUCTOR),
        "assistant": lambda: with_role(course, CourseRole.Role.TEACHING_ASSISTANT),
        "superuser": InstructorFactory,
    }[who]()


def learner(exam, who: str):
    return {
        "learner": UserFactory,
        "staff": lambda: UserFactory(is_staff=True),
        "another course's instructor": lambda: with_role(
            CourseFactory(), CourseRole.Role.INSTRUCTOR
        ),
    }[who]()


TEACHERS = ["instructor", "assistant", "superuser"]
LEARNERS = ["learner", "staff", "another course's instructor"]


@pytest.mark.parametrize("who", TEACHERS)
def test_a_teacher_s_start_on_the_quiz_page_is_a_preview(client, exam, who):
    user = teacher(exam, who)
    client.force_login(user)
    page = client.get(reverse("quiz-detail", args=[exam.quiz.slug])).content.decode()
    assert "You teach this course" in page
    assert "Preview as a learner" in page
    response = client.post(reverse("attempt-start", args=[exam.quiz.slug]))
    (attempt,) = Attempt.objects.filter(user=user)
    assert (attempt.preview, attempt.number) == (True, 1)
    assert response["Location"] == reverse("attempt-take", args=[attempt.pk])
    assert BANNER in client.get(response["Location"]).content.decode()
    # The page offers it again, and the same button resumes it.
    page = client.get(reverse("quiz-detail", args=[exam.quiz.slug])).content.decode()
    assert "Resume preview 1" in page
    client.post(reverse("attempt-start", args=[exam.quiz.slug]))
    assert list(Attempt.objects.filter(user=user)) == [attempt]


@pytest.mark.parametrize("who", LEARNERS)
def test_a_learner_s_start_counts(client, exam, who):
    user = learner(exam, who)
    client.force_login(user)
    page = client.get(reverse("quiz-detail", args=[exam.quiz.slug])).content.decode()
    assert "You teach this course" not in page
    assert "Start attempt 1" in page
    client.post(reverse("attempt-start", args=[exam.quiz.slug]))
    (attempt,) = Attempt.objects.filter(user=user)
    assert (attempt.preview, attempt.number) == (False, 1)
    assert BANNER not in client.get(reverse("attempt-take", args=[attempt.pk])).content.decode()


def test_a_teacher_s_start_ignores_the_quiz_s_rules_as_a_preview_does(exam):
    """A closed quiz and a used-up limit refuse a learner; the teacher previews all the same,
    since what they start counts against nothing."""
    exam.quiz.attempts_allowed = 1
    exam.quiz.save()
    user = teacher(exam, "instructor")
    first = sit(exam, user, choice="A", factor=1.0)
    second = attempt_start(user=user, quiz=exam.quiz)
    assert (first.preview, second.preview, second.number) == (True, True, 2)
    assert not Attempt.objects.counted().exists()


def test_the_service_tells_a_new_preview_from_a_resumed_one(exam):
    user = teacher(exam, "assistant")
    started = attempt_start_or_resume(user=user, quiz=exam.quiz)
    again = attempt_start_or_resume(user=user, quiz=exam.quiz)
    assert (started.created, again.created) == (True, False)
    assert started.attempt == again.attempt
    assert started.attempt.preview


@pytest.mark.parametrize("who", TEACHERS)
def test_a_teacher_s_start_through_the_api_is_a_preview_refused_there(exam, who):
    user = teacher(exam, who)
    api = APIClient()
    api.force_authenticate(user)
    response = api.post("/api/v1/attempts/", {"quiz": exam.quiz.slug}, format="json")
    assert response.status_code == 409
    assert response.json()["code"] == "preview_on_page"
    (attempt,) = Attempt.objects.filter(user=user)
    assert attempt.preview
    # Asked again, the same preview waits; the API lists none.
    assert api.post("/api/v1/attempts/", {"quiz": exam.quiz.slug}, format="json").status_code == (
        409
    )
    assert list(Attempt.objects.filter(user=user)) == [attempt]
    assert api.get("/api/v1/attempts/").json()["results"] == []


def test_a_learner_s_start_through_the_api_counts(exam):
    user = UserFactory()
    api = APIClient()
    api.force_authenticate(user)
    response = api.post("/api/v1/attempts/", {"quiz": exam.quiz.slug}, format="json")
    assert response.status_code == 201
    assert not Attempt.objects.get(pk=response.json()["id"]).preview
