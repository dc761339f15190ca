"""The responses export: one line per learner (the attempt the chosen rule counts, as the
gradebook), one column per item with what the learner answered there, streamed, times in UTC,
and safe to open in a spreadsheet.

The exam (tests/grading/exam_records.py): item 1 a single-choice question (choices A, B, C),
item 2 a problem; the learners fixture (tests/teaching/conftest.py): Ann's three attempts (B,
A, B), Ben's first submitted (A) and second in progress, Cai in progress only, Dan none.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC

import pytest
from django.urls import reverse

from courses.models import Question
from grading.models import Response
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.responses import response_submit
from teaching.models import CourseRole
from teaching.results import responses_export
from teaching.results.responses_export import COLUMNS
from tests.factories import ChoiceFactory, QuestionFactory, QuizItemFactory, UserFactory

pytestmark = pytest.mark.django_db


def download(client, quiz, rule: str | None = None) -> list[list[str]]:
    url = reverse("teaching:quiz-responses", args=[quiz.slug])
    response = client.get(url + (f"?attempts={rule}" if rule else ""))
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == (
        f'attachment; filename="softgrade-{quiz.slug}-responses-{rule or "best"}.csv"'
    )
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))


def typed(attempt, item) -> str:
    """What the learner typed at the problem in that attempt (their last saved answer)."""
    return Response.objects.filter(attempt=attempt, quiz_item=item).latest("created_at", "id").text


def test_the_header_names_each_item_and_says_times_are_utc(client, exam, people):
    client.force_login(people.instructor)
    (header,) = download(client, exam.quiz)
    assert header == [
        *COLUMNS,
        f"item 1 (2 pts): {exam.question_item.question.slug}",
        f"item 2 (3 pts): {exam.problem.title}",
    ]
    assert "submitted_at_utc" in header


@pytest.mark.parametrize(
    ("rule", "ann_attempt"),
    [("first", 1), (None, 2), ("best", 2), ("last", 3)],
)
def test_each_learner_s_answers_in_the_attempt_the_rule_counts(
    client, exam, people, learners, rule, ann_attempt
):
    client.force_login(people.assistant)
    _, *rows = download(client, exam.quiz, rule)
    ann = learners["attempts"]["ann"][ann_attempt - 1]
    ben = learners["attempts"]["ben"][0]
    ann_choice = {1: "B", 2: "A", 3: "B"}[ann_attempt]
    # By name; one row per learner, those without a submitted attempt with empty answers.
    assert rows == [
        [
            learners["ann"].username,
            "Ann Archer",
            learners["ann"].email,
            "",
            str(ann_attempt),
            str(ann.score),
            "5.0",
            ann.submitted_at.astimezone(UTC).isoformat(),
            ann_choice,
            typed(ann, exam.problem_item),
        ],
        [
            learners["ben"].username,
            "Ben Okafor",
            "ben@example.edu",
            "ML 101",
            "1",
            "5.0",
            "5.0",
            ben.submitted_at.astimezone(UTC).isoformat(),
            "A",
            typed(ben, exam.problem_item),
        ],
        [learners["cai"].username, "Cai", learners["cai"].email, "", "", "", "5.0", "", "", ""],
        [
            learners["dan"].username,
            "Dan",
            learners["dan"].email,
            "ML 101",
            "",
            "",
            "5.0",
            "",
            "",
            "",
        ],
    ]
    assert rows[0][7].endswith("+00:00")


def test_the_answer_that_counts_is_the_last_saved_and_an_unanswered_item_is_empty(
    client, exam, people
):
    # A multiple-choice item no one answers, with math in its choices.
    question = QuestionFactory(lesson=exam.quiz.lesson, kind=Question.Kind.MULTIPLE)
    picks = [
        ChoiceFactory(question=question, text=text, is_correct=True, order=order)
        for order, text in enumerate(["$\\sqrt{d_k}$", "$d_k$", "=HYPERLINK(1)"])
    ]
    other = QuizItemFactory(quiz=exam.quiz, question=question, points=1, order=3)
    learner = UserFactory(first_name="Eve")
    attempt = attempt_start(user=learner, quiz=exam.quiz)
    response_submit(attempt=attempt, item=exam.question_item, choice_ids=[exam.choices["B"].pk])
    response_submit(attempt=attempt, item=exam.question_item, choice_ids=[exam.choices["C"].pk])
    response_submit(attempt=attempt, item=exam.problem_item, text="-0.5")
    attempt_submit(attempt=attempt)
    client.force_login(people.instructor)
    header, row = download(client, exam.quiz)
    assert header[-1] == f"item 3 (1 pt): {question.slug}"
    assert row[-3:] == ["C", "-0.5", ""]  # the latest choice; a negative number as typed

    attempt = attempt_start(user=UserFactory(first_name="Fay"), quiz=exam.quiz)
    response_submit(attempt=attempt, item=other, choice_ids=[picks[2].pk, picks[0].pk])
    response_submit(attempt=attempt, item=exam.problem_item, text="-2+3")
    response_submit(attempt=attempt, item=exam.problem_item, text="1/")  # invalid: not counted
    attempt_submit(attempt=attempt)
    rows = {row[1]: row for row in download(client, exam.quiz)[1:]}
    # Choices in the authored order, math as plain text; a cell a spreadsheet would run as a
    # formula (a choice's text, a typed expression) is prefixed with an apostrophe.
    assert rows["Fay"][-3:] == ["", "'-2+3", "√dₖ; =HYPERLINK(1)"]


def test_a_formula_in_a_name_or_a_choice_is_prefixed(client, exam, people, lms_contexts):
    learner = UserFactory(first_name="=cmd|' /C calc'!A0")
    exam.choices["A"].text = "@SUM(A1)"
    exam.choices["A"].save()
    attempt = attempt_start(user=learner, quiz=exam.quiz)
    response_submit(attempt=attempt, item=exam.question_item, choice_ids=[exam.choices["A"].pk])
    attempt_submit(attempt=attempt)
    client.force_login(people.instructor)
    _, row = download(client, exam.quiz)
    assert row[1] == "'=cmd|' /C calc'!A0"
    assert row[8] == "'@SUM(A1)"
    assert row[9] == ""


def test_read_a_chunk_of_learners_at_a_time_in_bounded_queries(
    client, exam, people, learners, monkeypatch, django_assert_max_num_queries
):
    client.force_login(people.instructor)
    whole = download(client, exam.quiz)
    monkeypatch.setattr(responses_export, "CHUNK", 1)
    assert download(client, exam.quiz) == whole
    monkeypatch.setattr(responses_export, "CHUNK", 500)
    with django_assert_max_num_queries(20):
        download(client, exam.quiz)


def test_the_results_page_links_it_beside_the_gradebook(client, exam, people):
    client.force_login(people.instructor)
    page = client.get(reverse("teaching:quiz-results", args=[exam.quiz.slug])).content.decode()
    link = reverse("teaching:quiz-responses", args=[exam.quiz.slug]) + "?attempts=best"
    assert f'href="{link}"' in page
    assert page.index("Gradebook CSV") < page.index("Responses CSV")


def test_every_attempt_at_once_is_no_rule_for_it(client, exam, people):
    client.force_login(people.instructor)
    url = reverse("teaching:quiz-responses", args=[exam.quiz.slug])
    assert client.get(url + "?attempts=all").status_code == 400


@pytest.mark.parametrize("who", ["other_instructor", "other_assistant", "learner", "staff"])
def test_anyone_outside_the_course_gets_a_404(client, exam, people, course_b, who):
    if who == "other_instructor":
        user = UserFactory()
        CourseRole.objects.create(course=course_b, user=user, role=CourseRole.Role.INSTRUCTOR)
    else:
        user = getattr(people, who)
    client.force_login(user)
    url = reverse("teaching:quiz-responses", args=[exam.quiz.slug])
    assert client.get(url).status_code == 404
