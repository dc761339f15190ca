"""Practice through the API: a fresh variant, an answer with its verdict, the mastery streak."""

from __future__ import annotations

import pytest

from courses.models import Problem
from grading import engine
from grading.models import Attempt, PracticeStreak, Response, Variant
from tests.grading.test_views_leaks import NUMBER, without_identifiers

pytestmark = pytest.mark.django_db


def new_variant(client, problem="dot-variance", learner="stud-1"):
    return client.post("/api/v1/variants/", {"problem": problem, "learner": learner}, format="json")


def solution(variant_id: int):
    variant = Variant.objects.get(pk=variant_id)
    return engine.get_family(variant.family).solve(variant.givens)


def test_fresh_variants_have_new_numbers_and_no_seed(lms):
    client = lms.client()
    first = new_variant(client)
    second = new_variant(client)
    assert (first.status_code, second.status_code) == (201, 201)
    assert (first.json()["number"], second.json()["number"]) == (1, 2)
    assert "seed" not in first.json()
    assert first.json()["answer_shape"] == []
    assert "$" in first.json()["prompt"]
    assert client.get(f"/api/v1/variants/{first.json()['id']}/").json() == first.json()


def test_three_first_try_correct_answers_master_the_problem(lms):
    client = lms.client()
    for expected in (1, 2, 3):
        variant = new_variant(client).json()
        text = engine.format_answer(solution(variant["id"]).answer)
        verdict = client.post(f"/api/v1/variants/{variant['id']}/answers/", {"text": text})
        assert verdict.status_code == 201
        assert verdict.json()["status"] == "correct"
        assert verdict.json()["streak"]["current"] == expected
    assert verdict.json()["streak"]["mastered"] is True
    streaks = client.get("/api/v1/streaks/?learner=stud-1&problem=dot-variance").json()
    assert streaks["results"][0]["mastered"] is True
    assert streaks["results"][0]["learner"] == "stud-1"


def test_a_named_mistake_resets_the_streak(lms):
    client = lms.client()
    variant = new_variant(client).json()
    mistakes = solution(variant["id"]).mistakes
    code, value = next(iter(mistakes.items()))
    verdict = client.post(
        f"/api/v1/variants/{variant['id']}/answers/",
        {"text": engine.format_answer(value)},
        format="json",
    )
    assert verdict.json()["status"] == "incorrect"
    assert verdict.json()["misconception"] == code
    assert verdict.json()["streak"]["current"] == 0


def test_invalid_practice_input_costs_nothing(lms):
    client = lms.client()
    variant = new_variant(client, problem="softmax").json()
    verdict = client.post(
        f"/api/v1/variants/{variant['id']}/answers/", {"text": "[1, 2"}, format="json"
    )
    assert verdict.json()["status"] == "invalid"
    assert verdict.json()["feedback"]
    assert not PracticeStreak.objects.exists()
    assert Response.objects.get().counts_as_try is False


def test_a_signed_in_learner_practises_as_themselves(learner_a, shipped_bank):
    from tests.api.conftest import session_client

    client = session_client(learner_a)
    variant = client.post("/api/v1/variants/", {"problem": "dot-variance"}, format="json")
    assert variant.status_code == 201
    assert variant.json()["learner"] is None
    assert Variant.objects.get(pk=variant.json()["id"]).user == learner_a
    named = client.post(
        "/api/v1/variants/", {"problem": "dot-variance", "learner": "stud-1"}, format="json"
    )
    assert (named.status_code, named.json()["field"]) == (400, "learner")


def test_a_key_must_name_a_learner_it_provisioned(lms):
    client = lms.client()
    missing = client.post("/api/v1/variants/", {"problem": "dot-variance"}, format="json")
    assert (missing.status_code, missing.json()["field"]) == (400, "learner")
    unknown = new_variant(client, learner="nobody")
    assert (unknown.status_code, unknown.json()["field"]) == (404, "learner")
    assert not Variant.objects.exists()


# --- practice is no oracle for exams ------------------------------------------------------------


def test_practice_on_a_running_exams_problem_is_refused_with_the_reason(lms, exam):
    client = lms.client()
    before = new_variant(client, problem="dot-std").json()
    attempt = client.post(
        "/api/v1/attempts/", {"quiz": exam.slug, "learner": "stud-1"}, format="json"
    ).json()
    refused = new_variant(client, problem="dot-std")
    assert refused.status_code == 409
    assert refused.json()["code"] == "practice_refused"
    message = refused.json()["message"]
    assert f"while your exam “{exam.title}” is in progress" in message
    deadline = Attempt.objects.get(pk=attempt["id"]).deadline
    # A key's request has no person's zone: the message names the time in UTC.
    assert f"until {deadline:%-d %b %Y, %H:%M} UTC" in message
    answered = client.post(
        f"/api/v1/variants/{before['id']}/answers/",
        {"text": "1"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="during-exam",
    )
    assert answered.status_code == 409
    assert answered.json()["code"] == "practice_refused"
    assert Variant.objects.filter(problem__slug="dot-std", attempt__isnull=True).count() == 1
    assert not Response.objects.filter(variant_id=before["id"]).exists()
    assert not PracticeStreak.objects.exists()
    # Problems the exam does not use stay open, and submitting reopens the others.
    assert new_variant(client).status_code == 201
    client.post(f"/api/v1/attempts/{attempt['id']}/submit/")
    assert new_variant(client, problem="dot-std").status_code == 201


def test_an_exam_only_problem_is_refused_and_not_listed(lms, problem):
    Problem.objects.filter(pk=problem.pk).update(exam_only=True)
    client = lms.client()
    refused = new_variant(client, problem=problem.slug)
    assert refused.status_code == 409
    assert refused.json()["code"] == "practice_refused"
    assert "exam-only problem" in refused.json()["message"]
    assert not Variant.objects.filter(problem=problem).exists()
    listed = client.get("/api/v1/problems/?page_size=200").json()["results"]
    assert problem.slug not in {row["slug"] for row in listed}
    assert listed  # the others are still there
    assert client.get(f"/api/v1/problems/{problem.slug}/").status_code == 404


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("sqrt(512)", "root-width-for-width"),
        ("512*0.5*1", "sigma-not-squared"),
        ("512", "unit-variance-assumed"),
    ],
)
def test_the_likely_mistakes_of_the_first_problem_are_named(lms, text, code):
    # d_k = 512, σq = 0.5, σk = 1: the answer is 128.
    client = lms.client()
    variant = new_variant(client).json()
    Variant.objects.filter(pk=variant["id"]).update(
        givens={"d_k": 512, "sigma_q": 0.5, "sigma_k": 1.0}
    )
    verdict = client.post(
        f"/api/v1/variants/{variant['id']}/answers/", {"text": text}, format="json"
    )
    assert verdict.status_code == 201
    assert (verdict.json()["status"], verdict.json()["misconception"]) == ("incorrect", code)
    # The answer (128) in no value of the reply; times and ids are left out of the scan
    # (a timestamp's microseconds can read "...080128Z").
    assert "128" not in NUMBER.findall(without_identifiers(verdict.content.decode()))


def test_a_structural_finding_is_named_without_the_right_value(lms):
    client = lms.client()
    variant = new_variant(client, problem="softmax").json()
    Variant.objects.filter(pk=variant["id"]).update(givens={"z": [1.0, 2.0, 3.0]})
    verdict = client.post(
        f"/api/v1/variants/{variant['id']}/answers/", {"text": "[0.2, 0.3, 0.6]"}, format="json"
    )
    assert verdict.status_code == 201
    body = verdict.json()
    assert body["status"] == "incorrect"
    assert body["counts_as_try"] is True
    assert "do not add up to 1" in body["feedback"]
    # softmax([1, 2, 3]) = (0.0900, 0.2447, 0.6652): in no value of the reply, to any figures.
    numbers = set(NUMBER.findall(without_identifiers(verdict.content.decode())))
    assert not numbers & {"0.09", "0.090", "0.0900", "0.24", "0.245", "0.2447", "0.67", "0.665"}


def test_too_few_figures_is_named_and_costs_no_try(lms):
    client = lms.client()
    variant = new_variant(client).json()
    Variant.objects.filter(pk=variant["id"]).update(
        givens={"d_k": 512, "sigma_q": 0.5, "sigma_k": 1.0}
    )
    verdict = client.post(
        f"/api/v1/variants/{variant['id']}/answers/", {"text": "130"}, format="json"
    ).json()
    assert (verdict["status"], verdict["counts_as_try"]) == ("incorrect", False)
    assert "at least 3 significant figures" in verdict["feedback"]
    assert "128" not in verdict["feedback"]
    assert not PracticeStreak.objects.exists()
