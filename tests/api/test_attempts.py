"""Running attempts for a learner: start, items, answers as the policy allows, submit, result."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from grading import engine
from grading.models import Attempt, Response, Variant
from tests.factories import QuizFactory, QuizItemFactory

pytestmark = pytest.mark.django_db


def start(client, quiz="attention-practice", learner="stud-1"):
    return client.post("/api/v1/attempts/", {"quiz": quiz, "learner": learner}, format="json")


def answer_url(attempt_id: int, item_id: int) -> str:
    return f"/api/v1/attempts/{attempt_id}/items/{item_id}/answers/"


def correct_text(variant: Variant) -> str:
    family = engine.get_family(variant.family)
    return engine.format_answer(family.solve(variant.givens).answer)


def problem_items(client, attempt_id):
    items = client.get(f"/api/v1/attempts/{attempt_id}/items/").json()
    return [item for item in items if item["kind"] == "problem"]


def test_start_then_resume_the_attempt_in_progress(lms, practice_quiz):
    client = lms.client()
    first = start(client)
    assert first.status_code == 201
    assert first.json()["learner"] == "stud-1"
    assert first.json()["number"] == 1
    again = start(client)
    assert again.status_code == 200
    assert again.json()["id"] == first.json()["id"]


def test_items_carry_prompts_givens_and_choices_but_no_answer(lms, practice_quiz):
    client = lms.client()
    attempt_id = start(client).json()["id"]
    items = client.get(f"/api/v1/attempts/{attempt_id}/items/").json()
    assert [item["number"] for item in items] == list(range(1, practice_quiz.items.count() + 1))
    for item in items:
        if item["kind"] == "problem":
            variant = Variant.objects.get(attempt_id=attempt_id, quiz_item_id=item["id"])
            assert item["givens"] == variant.givens
            assert "<math" in item["prompt_html"]
            assert item["answer_shape"] == list(
                engine.get_family(variant.family).answer_shape(variant.givens)
            )
            assert item["tries_left"] == practice_quiz.tries_per_item
        else:
            assert item["choices"]
            assert all(set(choice) == {"id", "text", "text_html"} for choice in item["choices"])
        assert item["saved"] is None


def test_immediate_feedback_answers_get_their_verdict_and_use_tries(lms, practice_quiz):
    client = lms.client()
    attempt_id = start(client).json()["id"]
    item = problem_items(client, attempt_id)[0]
    variant = Variant.objects.get(attempt_id=attempt_id, quiz_item_id=item["id"])
    wrong = client.post(answer_url(attempt_id, item["id"]), {"text": "12345"}, format="json")
    assert wrong.status_code == 201
    assert wrong.json()["status"] == "incorrect"
    assert wrong.json()["score"] == 0.0
    assert "Not correct" in wrong.json()["feedback"]
    right = client.post(
        answer_url(attempt_id, item["id"]), {"text": correct_text(variant)}, format="json"
    )
    assert right.json()["status"] == "correct"
    assert right.json()["score"] == 1.0
    after = next(i for i in problem_items(client, attempt_id) if i["id"] == item["id"])
    assert after["tries_used"] == 2
    assert after["tries_left"] == 0
    assert after["saved"]["status"] == "correct"
    done = client.post(answer_url(attempt_id, item["id"]), {"text": "1"}, format="json")
    assert done.status_code == 409
    assert done.json()["code"] == "no_tries_left"
    assert Response.objects.filter(attempt_id=attempt_id).count() == 2


def test_a_wrong_choice_names_its_misconception(lms, practice_quiz):
    client = lms.client()
    attempt_id = start(client).json()["id"]
    items = client.get(f"/api/v1/attempts/{attempt_id}/items/").json()
    question = next(item for item in items if item["kind"] == "question")
    item = practice_quiz.items.get(pk=question["id"])
    wrong = item.question.choices.filter(is_correct=False).first()
    response = client.post(
        answer_url(attempt_id, question["id"]), {"choices": [wrong.pk]}, format="json"
    )
    assert response.json()["status"] == "incorrect"
    assert response.json()["misconception"] == wrong.misconception.code
    assert list(Response.objects.get(pk=response.json()["id"]).choices.all()) == [wrong]


def test_invalid_input_returns_the_readers_message_and_costs_no_try(lms, exam):
    client = lms.client()
    attempt_id = start(client, quiz="attention-exam").json()["id"]
    item = problem_items(client, attempt_id)[0]
    for text in ("9^9^9", "[[", ""):
        response = client.post(answer_url(attempt_id, item["id"]), {"text": text}, format="json")
        assert response.status_code == 201
        assert response.json()["status"] == "invalid"
        assert response.json()["feedback"]
        assert response.json()["counts_as_try"] is False
    after = next(i for i in problem_items(client, attempt_id) if i["id"] == item["id"])
    assert after["tries_used"] == 0


def test_exam_answers_are_only_recorded_until_submission(lms, exam):
    client = lms.client()
    attempt_id = start(client, quiz="attention-exam").json()["id"]
    item = problem_items(client, attempt_id)[0]
    variant = Variant.objects.get(attempt_id=attempt_id, quiz_item_id=item["id"])
    saved = client.post(
        answer_url(attempt_id, item["id"]), {"text": correct_text(variant)}, format="json"
    )
    assert saved.json()["status"] == "recorded"
    assert saved.json()["score"] is None
    assert saved.json()["feedback"] is None
    assert saved.json()["misconception"] is None
    assert saved.json()["detail"] is None
    assert client.get(f"/api/v1/attempts/{attempt_id}/").json()["score"] is None
    before = client.get(f"/api/v1/attempts/{attempt_id}/result/").json()
    assert before["feedback_released"] is False
    assert {i["status"] for i in before["items"]} <= {"recorded", "unanswered"}
    assert all(i["correct_answer"] is None and i["points_earned"] is None for i in before["items"])
    result = client.post(f"/api/v1/attempts/{attempt_id}/submit/")
    assert result.status_code == 200
    body = result.json()
    assert body["attempt"]["status"] == "submitted"
    assert body["answers_released"] is True
    graded = next(i for i in body["items"] if i["id"] == item["id"])
    assert graded["status"] == "correct"
    assert graded["points_earned"] == graded["points"]
    assert graded["correct_answer"] == correct_text(variant)
    assert body["attempt"]["score"] == graded["points"]
    questions = [i for i in body["items"] if i["kind"] == "question"]
    assert all(i["correct_choices"] and i["status"] == "unanswered" for i in questions)
    # Submitting again returns the same result; answering is refused.
    assert client.post(f"/api/v1/attempts/{attempt_id}/submit/").json() == body
    late = client.post(answer_url(attempt_id, item["id"]), {"text": "1"}, format="json")
    assert late.status_code == 409
    assert late.json()["code"] == "attempt_closed"


def test_late_submission_is_refused_and_saved_answers_graded(lms, exam):
    client = lms.client()
    attempt_id = start(client, quiz="attention-exam").json()["id"]
    item = problem_items(client, attempt_id)[0]
    variant = Variant.objects.get(attempt_id=attempt_id, quiz_item_id=item["id"])
    client.post(answer_url(attempt_id, item["id"]), {"text": correct_text(variant)}, format="json")
    Attempt.objects.filter(pk=attempt_id).update(deadline=timezone.now() - timedelta(seconds=1))
    refused = client.post(f"/api/v1/attempts/{attempt_id}/submit/")
    assert refused.status_code == 409
    assert refused.json()["code"] == "attempt_closed"
    assert "Time is up" in refused.json()["message"]
    result = client.get(f"/api/v1/attempts/{attempt_id}/result/").json()
    assert result["attempt"]["late"] is True
    assert result["attempt"]["status"] == "submitted"
    assert result["attempt"]["score"] == item["points"]


def test_attempt_limit_and_availability_are_enforced(lms, db):
    now = timezone.now()
    quiz = QuizFactory(
        attempts_allowed=1, lesson=lms.integration.api_keys.get().courses.get().lessons.first()
    )
    QuizItemFactory(quiz=quiz)
    client = lms.client()
    attempt_id = start(client, quiz=quiz.slug).json()["id"]
    client.post(f"/api/v1/attempts/{attempt_id}/submit/")
    refused = start(client, quiz=quiz.slug)
    assert refused.status_code == 409
    assert refused.json()["code"] == "attempt_limit_reached"
    later = QuizFactory(opens_at=now + timedelta(days=1), lesson=quiz.lesson)
    QuizItemFactory(quiz=later)
    closed = start(client, quiz=later.slug)
    assert closed.status_code == 409
    assert closed.json()["code"] == "quiz_not_open"
    assert Attempt.objects.filter(quiz=later).count() == 0


def test_answer_body_must_match_the_item_kind(lms, practice_quiz):
    client = lms.client()
    attempt_id = start(client).json()["id"]
    items = client.get(f"/api/v1/attempts/{attempt_id}/items/").json()
    problem = next(i for i in items if i["kind"] == "problem")
    question = next(i for i in items if i["kind"] == "question")
    wrong_kind = client.post(answer_url(attempt_id, problem["id"]), {"choices": [1]}, format="json")
    assert (wrong_kind.status_code, wrong_kind.json()["field"]) == (400, "text")
    wrong_kind = client.post(answer_url(attempt_id, question["id"]), {"text": "1"}, format="json")
    assert (wrong_kind.status_code, wrong_kind.json()["field"]) == (400, "choices")
    both = client.post(
        answer_url(attempt_id, problem["id"]), {"text": "1", "choices": [1]}, format="json"
    )
    assert both.status_code == 400
    assert both.json()["code"] == "answer_required"
    missing = client.post(answer_url(attempt_id, 999999), {"text": "1"}, format="json")
    assert missing.status_code == 404
    assert not Response.objects.exists()


def test_a_problem_item_of_another_attempt_is_not_answered_through_this_one(lms, practice_quiz):
    """The variant found for an answer must be this attempt's: another attempt's problem item,
    even the same learner's with a variant of its own, is not part of this attempt."""
    client = lms.client()
    practice_id = start(client).json()["id"]
    exam_id = start(client, quiz="attention-exam").json()["id"]
    exam_problem = problem_items(client, exam_id)[0]
    wrong = client.post(answer_url(practice_id, exam_problem["id"]), {"text": "1"}, format="json")
    assert wrong.status_code == 404
    assert "not part of this attempt" in wrong.json()["message"]
    out_of_reach = client.post(answer_url(999999, exam_problem["id"]), {"text": "1"}, format="json")
    assert out_of_reach.status_code == 404
    assert "No attempt" in out_of_reach.json()["message"]
    assert not Response.objects.exists()


def test_attempt_list_filters_and_sync(lms, practice_quiz, exam):
    client = lms.client()
    first = start(client).json()
    start(client, quiz="attention-exam")
    listed = client.get("/api/v1/attempts/?learner=stud-1").json()["results"]
    assert len(listed) == 2
    by_quiz = client.get("/api/v1/attempts/?quiz=attention-practice").json()["results"]
    assert [a["id"] for a in by_quiz] == [first["id"]]
    since = client.get(f"/api/v1/attempts/?updated_since={first['updated_at']}").json()
    assert len(since["results"]) == 2
    none_yet = client.get("/api/v1/attempts/?updated_since=2999-01-01T00:00:00Z").json()
    assert none_yet["results"] == []
    bad = client.get("/api/v1/attempts/?updated_since=yesterday")
    assert (bad.status_code, bad.json()["field"]) == (400, "updated_since")
