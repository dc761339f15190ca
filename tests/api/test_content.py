"""Content discovery: what integrations and learners can read of the authored lesson, and never
a correct choice, an answer, a mistake value or a seed."""

from __future__ import annotations

import json

import pytest

from courses.models import Choice, Quiz

pytestmark = pytest.mark.django_db


def test_courses_list_their_lessons_in_order(lms):
    body = lms.client().get("/api/v1/courses/").json()
    assert body["count"] == 1
    course = body["results"][0]
    assert course["slug"] == "attention-math"
    assert [lesson["slug"] for lesson in course["lessons"]] == ["scaled-dot-product-attention"]


def test_a_key_sees_only_its_courses(lms, other_lms, other_course):
    assert [c["slug"] for c in lms.client().get("/api/v1/courses/").json()["results"]] == [
        "attention-math"
    ]
    other = other_lms.client()
    assert [c["slug"] for c in other.get("/api/v1/courses/").json()["results"]] == [
        other_course.slug
    ]
    assert [q["slug"] for q in other.get("/api/v1/quizzes/").json()["results"]] == ["other-quiz"]
    assert [p["slug"] for p in other.get("/api/v1/problems/").json()["results"]] == [
        "other-problem"
    ]
    for path in ("quizzes/attention-exam/", "problems/dot-variance/", "courses/attention-math/"):
        assert other.get(f"/api/v1/{path}").status_code == 404, path


def test_lessons_come_with_key_terms_and_the_misconceptions_verdicts_name(lms):
    client = lms.client()
    listed = client.get("/api/v1/lessons/?course=attention-math").json()["results"][0]
    assert {"variance", "saturation"} <= {term["slug"] for term in listed["key_terms"]}
    assert listed["url"].endswith("/lessons/scaled-dot-product-attention/")
    lesson = client.get("/api/v1/lessons/scaled-dot-product-attention/").json()
    assert "$\\sqrt{d_k}$" in lesson["body"] or "\\sqrt{d_k}" in lesson["body"]
    codes = {m["code"] for m in lesson["misconceptions"]}
    assert "std-for-variance" in codes
    assert client.get("/api/v1/lessons/?course=nothing-here").json()["count"] == 0


def test_quizzes_show_mode_limits_policy_and_item_metadata_only(lms):
    client = lms.client()
    exams = client.get("/api/v1/quizzes/?mode=exam").json()["results"]
    assert [q["slug"] for q in exams] == ["attention-exam"]
    exam = client.get("/api/v1/quizzes/attention-exam/").json()
    assert exam["mode"] == "exam"
    assert exam["time_limit_minutes"] == 20
    assert exam["extra_try_penalty"] == 0.0
    assert exam["attempts_allowed"] == 2
    assert exam["show_feedback"] == "after_submission"
    assert exam["max_score"] == sum(item["points"] for item in exam["items"])
    quiz = Quiz.objects.get(slug="attention-exam")
    assert len(exam["items"]) == quiz.items.count()
    for item in exam["items"]:
        assert set(item) == {"id", "order", "points", "kind", "question_kind", "problem", "pool"}
    # Nothing about the choices (texts, correctness, feedback) before an attempt.
    text = json.dumps(exam)
    for choice in Choice.objects.filter(question__quiz_items__quiz=quiz):
        assert choice.feedback not in text or not choice.feedback


def test_problems_carry_their_context_but_no_numbers_seed_or_answer(lms):
    problems = lms.client().get("/api/v1/problems/?lesson=scaled-dot-product-attention").json()
    assert problems["count"] == 11
    for problem in problems["results"]:
        assert set(problem) == {"slug", "title", "course", "lesson", "family", "prompt"}


def test_pages_and_page_size(lms):
    client = lms.client()
    first = client.get("/api/v1/problems/?page_size=4").json()
    assert len(first["results"]) == 4
    assert first["next"]
    second = client.get(first["next"]).json()
    assert not {p["slug"] for p in first["results"]} & {p["slug"] for p in second["results"]}
    assert len(client.get("/api/v1/problems/?page_size=1000").json()["results"]) == 11
    response = client.get("/api/v1/problems/?page=99")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_unknown_query_parameters_are_refused_by_name(lms):
    response = lms.client().get("/api/v1/quizzes/?mood=exam")
    assert response.status_code == 400
    assert response.json()["field"] == "mood"
    assert response.json()["code"] == "unknown_parameter"
    bad = lms.client().get("/api/v1/quizzes/?mode=party")
    assert bad.status_code == 400
    assert bad.json()["field"] == "mode"
