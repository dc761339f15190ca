"""Every endpoint against every kind of caller: anonymous, learner A, learner B, an instructor,
a key for this course, a key for another course, and a revoked key.

Records belong either to learner A (signed in to the site) or to the integration's learner; each
case says which, and who may reach it. Everything out of reach is 404, never 403, so a caller
cannot learn that someone else's attempt exists. Callers run in the order listed, the allowed ones
last, so a write by an allowed caller never changes what the others see.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from rest_framework.test import APIClient

from config.api import urlpatterns
from courses.models import Problem, Quiz
from grading.models import Variant
from grading.services.attempts import attempt_start
from grading.services.practice import practice_variant_new
from integrations.models import Learner
from tests.api.conftest import key_client, session_client

pytestmark = pytest.mark.django_db

CALLERS = ["anonymous", "learner_b", "instructor", "other_key", "revoked_key", "learner_a", "key"]


@dataclass
class World:
    clients: dict
    site_attempt: int
    lms_attempt: int
    problem_item: int
    site_variant: int
    lms_variant: int


@pytest.fixture
def world(lms, other_lms, revoked_token, learner_a, learner_b, instructor) -> World:
    quiz = Quiz.objects.get(slug="attention-practice")
    problem = Problem.objects.get(slug="dot-variance")
    lms_user = Learner.objects.get(external_id=lms.learner_id).user
    site_attempt = attempt_start(user=learner_a, quiz=quiz)
    lms_attempt = attempt_start(user=lms_user, quiz=quiz)
    item = Variant.objects.filter(attempt=site_attempt).first().quiz_item_id
    return World(
        clients={
            "anonymous": APIClient(),
            "learner_a": session_client(learner_a),
            "learner_b": session_client(learner_b),
            "instructor": session_client(instructor),
            "key": lms.client(),
            "other_key": other_lms.client(),
            "revoked_key": key_client(revoked_token),
        },
        site_attempt=site_attempt.pk,
        lms_attempt=lms_attempt.pk,
        problem_item=item,
        site_variant=practice_variant_new(user=learner_a, problem=problem).pk,
        lms_variant=practice_variant_new(user=lms_user, problem=problem).pk,
    )


@dataclass
class Case:
    name: str
    method: str
    url: Callable[[World], str]
    allowed: dict[str, int]
    body: Callable[[str], dict] | None = None
    # Callers not in `allowed` get this status (404 for records and content out of reach).
    refused: int = 404
    refused_for: dict[str, int] = field(default_factory=dict)


SESSIONS = {"learner_a", "learner_b", "instructor"}
EVERYONE = {c: 200 for c in ("learner_a", "learner_b", "instructor", "key", "other_key")}
SHIPPED_CONTENT = {"learner_a": 200, "learner_b": 200, "instructor": 200, "key": 200}
ONLY_KEYS = {"key": 200, "other_key": 200}
KEY_ONLY_REFUSAL = {caller: 403 for caller in SESSIONS}


def _start_body(caller: str) -> dict:
    if caller == "key":
        return {"quiz": "attention-practice", "learner": "stud-1"}
    if caller == "other_key":
        return {"quiz": "attention-practice", "learner": "other-1"}
    return {"quiz": "attention-practice"}


def _variant_body(caller: str) -> dict:
    body = _start_body(caller)
    del body["quiz"]
    return {**body, "problem": "dot-variance"}


def _rules_query(caller: str) -> dict:
    body = _start_body(caller)
    del body["quiz"]
    return body


def _answer(caller: str) -> dict:
    return {"text": "12345"}  # wrong for every variant, and readable


def _attempt_cases(owner: str) -> list[Case]:
    attempt = (lambda w: w.site_attempt) if owner == "learner_a" else (lambda w: w.lms_attempt)
    ok = {owner: 200}
    return [
        Case(f"attempt detail ({owner})", "get", lambda w: f"/api/v1/attempts/{attempt(w)}/", ok),
        Case(
            f"attempt items ({owner})",
            "get",
            lambda w: f"/api/v1/attempts/{attempt(w)}/items/",
            ok,
        ),
        Case(
            f"attempt result ({owner})",
            "get",
            lambda w: f"/api/v1/attempts/{attempt(w)}/result/",
            ok,
        ),
        Case(
            f"answer an item ({owner})",
            "post",
            lambda w: f"/api/v1/attempts/{attempt(w)}/items/{w.problem_item}/answers/",
            {owner: 201},
            body=_answer,
        ),
        Case(
            f"submit ({owner})",
            "post",
            lambda w: f"/api/v1/attempts/{attempt(w)}/submit/",
            ok,
            body=lambda caller: {},
        ),
    ]


def _variant_cases(owner: str) -> list[Case]:
    variant = (lambda w: w.site_variant) if owner == "learner_a" else (lambda w: w.lms_variant)
    return [
        Case(
            f"variant ({owner})", "get", lambda w: f"/api/v1/variants/{variant(w)}/", {owner: 200}
        ),
        Case(
            f"answer a variant ({owner})",
            "post",
            lambda w: f"/api/v1/variants/{variant(w)}/answers/",
            {owner: 201},
            body=_answer,
        ),
        # Untried numbers have no solution yet: their owner hears why (409), anyone else 404.
        Case(
            f"a variant's worked solution ({owner})",
            "get",
            lambda w: f"/api/v1/variants/{variant(w)}/solution/",
            {owner: 409},
        ),
        Case(
            f"reveal a variant's worked solution ({owner})",
            "post",
            lambda w: f"/api/v1/variants/{variant(w)}/solution/",
            {owner: 409},
            body=lambda caller: {},
        ),
    ]


CASES = [
    Case("root", "get", lambda w: "/api/v1/", {c: 200 for c in CALLERS}),
    # Lists answer everyone with credentials; what they contain is checked in other tests.
    Case("course list", "get", lambda w: "/api/v1/courses/", EVERYONE, refused=401),
    Case("lesson list", "get", lambda w: "/api/v1/lessons/", EVERYONE, refused=401),
    Case("quiz list", "get", lambda w: "/api/v1/quizzes/", EVERYONE, refused=401),
    Case("problem list", "get", lambda w: "/api/v1/problems/", EVERYONE, refused=401),
    Case("course", "get", lambda w: "/api/v1/courses/attention-math/", SHIPPED_CONTENT),
    Case(
        "lesson",
        "get",
        lambda w: "/api/v1/lessons/scaled-dot-product-attention/",
        SHIPPED_CONTENT,
    ),
    Case("quiz", "get", lambda w: "/api/v1/quizzes/attention-exam/", SHIPPED_CONTENT),
    Case("problem", "get", lambda w: "/api/v1/problems/dot-variance/", SHIPPED_CONTENT),
    Case(
        "learner list",
        "get",
        lambda w: "/api/v1/learners/",
        ONLY_KEYS,
        refused=401,
        refused_for=KEY_ONLY_REFUSAL,
    ),
    Case(
        "provision a learner",
        "post",
        lambda w: "/api/v1/learners/",
        {"key": 201, "other_key": 201},
        body=lambda caller: {"external_id": "new-learner"},
        refused=401,
        refused_for=KEY_ONLY_REFUSAL,
    ),
    Case(
        "learner",
        "get",
        lambda w: "/api/v1/learners/stud-1/",
        {"key": 200},
        refused_for=KEY_ONLY_REFUSAL,
    ),
    Case(
        "change a learner",
        "patch",
        lambda w: "/api/v1/learners/stud-1/",
        {"key": 200},
        body=lambda caller: {"name": "Ada L."},
        refused_for=KEY_ONLY_REFUSAL,
    ),
    Case("attempt list", "get", lambda w: "/api/v1/attempts/", EVERYONE, refused=401),
    Case(
        "start an attempt",
        "post",
        lambda w: "/api/v1/attempts/",
        # A superuser's start is a preview, which is taken on the quiz's page, never here.
        {"learner_a": 200, "learner_b": 201, "instructor": 409, "key": 200},
        body=_start_body,
    ),
    *_attempt_cases("learner_a"),
    *_attempt_cases("key"),
    Case(
        "new variant",
        "post",
        lambda w: "/api/v1/variants/",
        {"learner_a": 201, "learner_b": 201, "instructor": 201, "key": 201},
        body=_variant_body,
    ),
    *_variant_cases("learner_a"),
    *_variant_cases("key"),
    Case("streak list", "get", lambda w: "/api/v1/streaks/", EVERYONE, refused=401),
    # A session's own rules; a key's for the learner it names (query parameters for a GET).
    Case(
        "a learner's quiz rules",
        "get",
        lambda w: "/api/v1/quizzes/attention-practice/rules/",
        {"learner_a": 200, "learner_b": 200, "instructor": 200, "key": 200},
        body=_rules_query,
    ),
    Case(
        "grades",
        "get",
        lambda w: "/api/v1/grades/",
        ONLY_KEYS,
        refused=401,
        refused_for=KEY_ONLY_REFUSAL,
    ),
    Case(
        "grades as CSV",
        "get",
        lambda w: "/api/v1/grades.csv",
        ONLY_KEYS,
        refused=401,
        refused_for=KEY_ONLY_REFUSAL,
    ),
    # A quiz of the key's course; another course's key gets a 404 as for a missing quiz.
    Case(
        "quiz statistics",
        "get",
        lambda w: "/api/v1/quizzes/attention-exam/statistics/",
        {"key": 200},
        refused_for=KEY_ONLY_REFUSAL,
    ),
    Case(
        "quiz statistics as CSV",
        "get",
        lambda w: "/api/v1/quizzes/attention-exam/statistics.csv",
        {"key": 200},
        refused_for=KEY_ONLY_REFUSAL,
    ),
]


def expected_status(case: Case, caller: str) -> int:
    if caller in case.allowed:
        return case.allowed[caller]
    if caller in ("anonymous", "revoked_key") and case.name != "root":
        return 401
    return case.refused_for.get(caller, case.refused)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_permission_matrix(world, case):
    seen = {}
    for caller in CALLERS:
        client = world.clients[caller]
        kwargs = {"format": "json"}
        if case.body is not None:
            kwargs["data"] = case.body(caller)
        response = getattr(client, case.method)(case.url(world), **kwargs)
        seen[caller] = response.status_code
        if response.status_code >= 400:
            body = response.json()
            assert set(body) <= {"code", "message", "field"}, (caller, body)
            assert body["code"], (caller, body)
            assert body["message"], (caller, body)
    assert seen == {caller: expected_status(case, caller) for caller in CALLERS}


def test_every_endpoint_is_in_the_matrix():
    def names(patterns):
        for pattern in patterns:
            if hasattr(pattern, "url_patterns"):
                yield from names(pattern.url_patterns)
            elif pattern.name:
                yield pattern.name

    covered = {
        "root": "root",
        "course-list": "course list",
        "course-detail": "course",
        "lesson-list": "lesson list",
        "lesson-detail": "lesson",
        "quiz-list": "quiz list",
        "quiz-detail": "quiz",
        "problem-list": "problem list",
        "problem-detail": "problem",
        "learner-list": "learner list",
        "learner-detail": "learner",
        "attempt-list": "attempt list",
        "attempt-detail": "attempt detail (key)",
        "attempt-items": "attempt items (key)",
        "item-answer": "answer an item (key)",
        "attempt-submit": "submit (key)",
        "attempt-result": "attempt result (key)",
        "variant-create": "new variant",
        "variant-detail": "variant (key)",
        "variant-answer": "answer a variant (key)",
        "variant-solution": "a variant's worked solution (key)",
        "streak-list": "streak list",
        "quiz-rules": "a learner's quiz rules",
        "grade-list": "grades",
        "grade-csv": "grades as CSV",
        "quiz-statistics": "quiz statistics",
        "quiz-statistics-csv": "quiz statistics as CSV",
    }
    endpoints = set(names(urlpatterns)) - {"schema", "docs"}
    assert endpoints == set(covered)
    assert set(covered.values()) <= {case.name for case in CASES}


def test_a_session_without_the_csrf_token_cannot_write(world, learner_a):
    client = session_client(learner_a, csrf=False)
    response = client.post(
        f"/api/v1/attempts/{world.site_attempt}/items/{world.problem_item}/answers/",
        {"text": "1"},
        format="json",
    )
    assert response.status_code == 403
    assert response.json()["code"] == "csrf_failed"
    assert "X-CSRFToken" in response.json()["message"]
    # Reading needs no token.
    assert client.get(f"/api/v1/attempts/{world.site_attempt}/").status_code == 200
