"""Callers of the API for the permission matrix, and the shipped lesson to call it about.

Every test starts with an empty cache, so rate-limit counters never leak from one test into the
next.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from api.throttling import forget_blocks
from courses.models import Course, Problem, Quiz
from integrations import services
from integrations.models import Integration
from tests.factories import (
    InstructorFactory,
    LessonFactory,
    ProblemFactory,
    QuizFactory,
    QuizItemFactory,
    UserFactory,
)

SHIPPED_COURSE = "attention-math"


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    cache.clear()
    forget_blocks()
    yield
    cache.clear()
    forget_blocks()


@dataclass
class Integrated:
    """An integration with a live key for the shipped course and one learner it provisioned."""

    integration: Integration
    token: str
    learner_id: str

    def client(self) -> APIClient:
        return key_client(self.token)


def key_client(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


def session_client(user, *, csrf: bool = True) -> APIClient:
    """A browser-like client signed in as `user`; with csrf it sends the token, as pages do."""
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(user)
    if csrf:
        client.get("/accounts/login/")  # sets the csrftoken cookie
        token = client.cookies["csrftoken"].value
        client.credentials(HTTP_X_CSRFTOKEN=token)
    return client


@pytest.fixture
def course(shipped_bank) -> Course:
    return Course.objects.get(slug=SHIPPED_COURSE)


@pytest.fixture
def other_course(db) -> Course:
    """A second course, with a quiz and a problem, that the shipped course's keys never reach."""
    lesson = LessonFactory(slug="other-lesson")
    QuizItemFactory(quiz=QuizFactory(lesson=lesson, slug="other-quiz"))
    ProblemFactory(lesson=lesson, slug="other-problem")
    return lesson.course


@pytest.fixture
def lms(course) -> Integrated:
    integration = Integration.objects.create(name="Campus LMS")
    _, token = services.api_key_create(integration=integration, name="sync", courses=[course])
    services.learner_provision(
        integration=integration, external_id="stud-1", name="Ada", email="ada@example.org"
    )
    return Integrated(integration, token, "stud-1")


@pytest.fixture
def other_lms(other_course) -> Integrated:
    """Another integration, whose key reaches only the other course."""
    integration = Integration.objects.create(name="Other LMS")
    _, token = services.api_key_create(integration=integration, name="sync", courses=[other_course])
    services.learner_provision(integration=integration, external_id="other-1", name="Other")
    return Integrated(integration, token, "other-1")


@pytest.fixture
def revoked_token(lms, course) -> str:
    key, token = services.api_key_create(integration=lms.integration, name="old", courses=[course])
    services.api_key_revoke(key=key)
    return token


@pytest.fixture
def learner_a(db):
    return UserFactory(username="learner-a")


@pytest.fixture
def learner_b(db):
    return UserFactory(username="learner-b")


@pytest.fixture
def instructor(db):
    return InstructorFactory()


@pytest.fixture
def practice_quiz(course) -> Quiz:
    return Quiz.objects.get(slug="attention-practice")


@pytest.fixture
def exam(course) -> Quiz:
    return Quiz.objects.get(slug="attention-exam")


@pytest.fixture
def problem(course) -> Problem:
    return Problem.objects.get(slug="dot-variance")


def start_attempt(client, quiz: str = "attention-practice", learner: str = "stud-1") -> dict:
    """Start (or resume) the learner's attempt through the API; returns the attempt."""
    return client.post("/api/v1/attempts/", {"quiz": quiz, "learner": learner}).json()


def items_of_kind(client, attempt: dict, kind: str) -> list[dict]:
    """The attempt's items of a kind, 'problem' or 'question', in quiz order."""
    items = client.get(f"/api/v1/attempts/{attempt['id']}/items/").json()
    return [item for item in items if item["kind"] == kind]


def first_item(client, attempt: dict, kind: str) -> dict:
    """The attempt's first item of a kind: 'problem' or 'question'."""
    return items_of_kind(client, attempt, kind)[0]


def problem_answers(client, quiz: str = "attention-practice"):
    """Start the learner's attempt and return a function that answers its first problem item:
    post(text, idempotency_key=None) -> the response."""
    attempt = start_attempt(client, quiz)
    item = first_item(client, attempt, "problem")
    url = f"/api/v1/attempts/{attempt['id']}/items/{item['id']}/answers/"

    def post(text: str, idempotency_key: str | None = None):
        headers = {"HTTP_IDEMPOTENCY_KEY": idempotency_key} if idempotency_key is not None else {}
        return client.post(url, {"text": text}, format="json", **headers)

    return post
