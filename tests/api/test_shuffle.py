"""The API tells an LMS whether a quiz shuffles, lists an attempt's items and choices in the
attempt's own order, and grades the choices picked by id."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from courses.models import Choice, Quiz
from grading import selectors
from grading.models import Attempt
from tests.api.conftest import start_attempt

pytestmark = pytest.mark.django_db


def test_quizzes_say_whether_they_shuffle(lms, exam, practice_quiz):
    client = lms.client()
    shown = client.get("/api/v1/quizzes/attention-exam/").json()
    assert (shown["shuffle_items"], shown["shuffle_choices"]) == (True, True)
    listed = {q["slug"]: q for q in client.get("/api/v1/quizzes/").json()["results"]}
    assert (
        listed["attention-practice"]["shuffle_items"],
        listed["attention-practice"]["shuffle_choices"],
    ) == (False, False)
    Quiz.objects.filter(pk=exam.pk).update(shuffle_items=False)
    Quiz.objects.filter(pk=practice_quiz.pk).update(shuffle_choices=True)
    assert client.get("/api/v1/quizzes/attention-exam/").json()["shuffle_items"] is False
    assert client.get("/api/v1/quizzes/attention-practice/").json()["shuffle_choices"] is True


def test_the_schema_documents_the_shuffle_settings_and_the_attempt_order():
    schemas = APIClient().get("/api/v1/schema/?format=json").json()["components"]["schemas"]
    for name in ("Quiz", "QuizDetail"):
        for field in ("shuffle_items", "shuffle_choices"):
            prop = schemas[name]["properties"][field]
            assert prop["type"] == "boolean"
            assert prop["readOnly"] is True
            assert "exams" in prop["description"]
            assert "practice" in prop["description"]
    assert "attempt's own order" in schemas["AttemptItem"]["properties"]["number"]["description"]
    assert (
        "order this attempt shows" in schemas["AttemptItem"]["properties"]["choices"]["description"]
    )


def test_an_lms_reads_the_attempt_in_its_own_order_and_answers_by_choice_id(lms, exam):
    client = lms.client()
    attempt_id = start_attempt(client, "attention-exam")["id"]
    attempt = Attempt.objects.get(pk=attempt_id)
    assert attempt.shuffle_items
    assert attempt.shuffle_choices
    shown = [
        (row.item.pk, [choice.pk for choice in row.choices])
        for row in selectors.attempt_sheet(attempt=attempt)
    ]
    items = client.get(f"/api/v1/attempts/{attempt_id}/items/").json()
    assert [(item["id"], [c["id"] for c in item["choices"]]) for item in items] == shown
    assert client.get(f"/api/v1/attempts/{attempt_id}/items/").json() == items

    questions = [item for item in items if item["kind"] == "question"]
    for item in questions:
        right = Choice.objects.filter(question__quiz_items=item["id"], is_correct=True)
        answered = client.post(
            f"/api/v1/attempts/{attempt_id}/items/{item['id']}/answers/",
            {"choices": [choice.pk for choice in right]},
            format="json",
        )
        assert answered.status_code == 201
        assert answered.json()["status"] == "recorded"
    result = client.post(f"/api/v1/attempts/{attempt_id}/submit/").json()
    assert [item["id"] for item in result["items"]] == [item_id for item_id, _ in shown]
    by_id = {item["id"]: item for item in result["items"]}
    for item in questions:
        assert by_id[item["id"]]["status"] == "correct"
        # Both in the attempt's order: a select-all answer lists its ids as shown.
        assert by_id[item["id"]]["choices"] == by_id[item["id"]]["correct_choices"]
        shown_choices = dict(shown)[item["id"]]
        assert by_id[item["id"]]["choices"] == [
            c for c in shown_choices if c in set(by_id[item["id"]]["choices"])
        ]
