"""The results grid's numbers, checked against values worked out by hand.

The exam (tests/grading/exam_records.py) has a 2-point question (choice A right) and a 3-point
problem (the true answer right, 5 % off wrong); it gives feedback after submission, so an item's
last saved answer counts.

- Ann (signed up on the site): attempt 1 B and 5 % off = 0; attempt 2 A and 5 % off = 2, then
  an instructor overrides the problem to 1.5 = 3.5; attempt 3 B and 5 % off = 0.
  First 0 (#1), best 3.5 (#2), last 0 (#3).
- Ben (provisioned by an integration, LMS course "ML 101"): attempt 1 A and right = 5;
  attempt 2 in progress (A, 5 % off: 2 so far). First, best and last 5 (#1).
- Cai (signed up): attempt 1 in progress (A and right: 5 so far). No submitted attempt.
- Dan (an LMS sent him to the quiz, "ML 101"): no attempt.
- The course's instructor launched the quiz from the LMS too: not a learner, not listed.

(The `learners` fixture in conftest.py makes them.)
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from courses.models import Quiz
from grading.models import Attempt
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.responses import response_submit
from teaching.results.pages import results_page
from teaching.results.reads import NOT_FROM_AN_LMS, AttemptRule, attempts_counted, quiz_results
from tests.factories import UserFactory
from tests.grading.exam_records import exam_build, sit

pytestmark = pytest.mark.django_db


def summary(results) -> list[tuple[str, int | None, float | None, int]]:
    return [
        (
            row.learner.name,
            row.attempt.number if row.attempt else None,
            row.attempt.score if row.attempt else None,
            row.attempts_made,
        )
        for row in results.rows
    ]


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        (
            AttemptRule.FIRST,
            [("Ann Archer", 1, 0.0, 3), ("Ben Okafor", 1, 5.0, 2), ("Cai", None, None, 1)],
        ),
        (
            AttemptRule.BEST,
            [("Ann Archer", 2, 3.5, 3), ("Ben Okafor", 1, 5.0, 2), ("Cai", None, None, 1)],
        ),
        (
            AttemptRule.LAST,
            [("Ann Archer", 3, 0.0, 3), ("Ben Okafor", 1, 5.0, 2), ("Cai", None, None, 1)],
        ),
        (
            AttemptRule.ALL,
            [
                ("Ann Archer", 1, 0.0, 3),
                ("Ann Archer", 2, 3.5, 3),
                ("Ann Archer", 3, 0.0, 3),
                ("Ben Okafor", 1, 5.0, 2),
                ("Ben Okafor", 2, 2.0, 2),  # in progress: the score so far
                ("Cai", 1, 5.0, 1),
            ],
        ),
    ],
)
def test_each_rule_counts_the_attempts_worked_out_by_hand(exam, course_a, learners, rule, expected):
    results = quiz_results(quiz=exam.quiz, rule=rule)
    dan = ("Dan", None, None, 0)  # sent by the LMS, no attempt yet
    assert summary(results) == [*expected, dan]
    assert results.max_score == 5


def test_each_item_shows_points_status_tries_and_misconception(exam, course_a, learners):
    results = quiz_results(quiz=exam.quiz, rule=AttemptRule.ALL)
    rows = {(row.learner.name, row.attempt.number): row for row in results.rows if row.attempt}
    question, problem = exam.question_item, exam.problem_item
    assert [item.pk for item in results.items] == [question.pk, problem.pk]  # the quiz's order

    first = {cell.item.pk: cell for cell in rows[("Ann Archer", 1)].items}
    assert (first[question.pk].points, first[question.pk].status) == (0.0, "incorrect")
    assert first[question.pk].misconception == exam.choices["B"].misconception.code
    assert (first[problem.pk].points, first[problem.pk].status) == (0.0, "incorrect")

    overridden = {cell.item.pk: cell for cell in rows[("Ann Archer", 2)].items}
    assert (overridden[question.pk].points, overridden[question.pk].status) == (2.0, "correct")
    assert (overridden[problem.pk].points, overridden[problem.pk].status) == (1.5, "override")
    assert overridden[problem.pk].tries == 1

    # Each row's items add up to the attempt's score, which is what the LMS gets.
    for row in rows.values():
        assert sum(cell.points or 0 for cell in row.items) == pytest.approx(row.attempt.score)


def test_an_item_without_an_answer_is_blank(exam, people):
    attempt = sit(exam, UserFactory(), choice="A", factor=1.0, submit=False)
    attempt.responses.filter(quiz_item=exam.problem_item).delete()
    row = quiz_results(quiz=exam.quiz, rule=AttemptRule.ALL).rows[0]
    cells = {cell.item.pk: cell for cell in row.items}
    assert (cells[exam.problem_item.pk].points, cells[exam.problem_item.pk].status) == (
        None,
        "blank",
    )
    assert cells[exam.problem_item.pk].tries == 0


def test_learners_are_grouped_by_the_lms_course_they_came_from(exam, course_a, learners):
    found = results_page(quiz=exam.quiz, rule=AttemptRule.BEST, grouped=True, search="", number=1)
    groups = [(group.label, [row.learner.name for row in group.rows]) for group in found.groups]
    assert groups == [
        ("ML 101", ["Ben Okafor", "Dan"]),
        (NOT_FROM_AN_LMS, ["Ann Archer", "Cai"]),
    ]


def test_a_practice_quiz_counts_the_best_try_of_an_item():
    """With feedback at once an item's score is its best try (grading.scores.counting_try)."""
    exam = exam_build()
    Quiz.objects.filter(pk=exam.quiz.pk).update(
        mode=Quiz.Mode.PRACTICE, show_feedback=Quiz.Feedback.IMMEDIATELY, tries_per_item=3
    )
    exam.quiz.refresh_from_db()
    learner = UserFactory()
    attempt = attempt_start(user=learner, quiz=exam.quiz)
    for label in ("B", "A"):
        response_submit(
            attempt=attempt, item=exam.question_item, choice_ids=[exam.choices[label].pk]
        )
    attempt_submit(attempt=attempt)
    row = quiz_results(quiz=exam.quiz, rule=AttemptRule.BEST).rows[0]
    cells = {cell.item.pk: cell for cell in row.items}
    assert (cells[exam.question_item.pk].points, cells[exam.question_item.pk].tries) == (2.0, 2)
    assert cells[exam.question_item.pk].status == "correct"
    assert row.attempt.score == 2.0


def test_the_rules_pick_among_submitted_attempts_and_best_is_grading_s():
    def made(number, score, status=Attempt.Status.SUBMITTED):
        return Attempt(pk=number, number=number, score=score, status=status, submitted_at=None)

    attempts = [made(2, 4.0), made(1, 4.0), made(3, 1.0), made(4, 9.0, "in_progress")]
    for attempt in attempts[:3]:
        attempt.submitted_at = f"2030-01-0{attempt.number}"
    assert [a.number for a in attempts_counted(AttemptRule.FIRST, attempts)] == [1]
    assert [a.number for a in attempts_counted(AttemptRule.LAST, attempts)] == [3]
    # Equal best scores: the later submitted (grading.scores.best_of, as passback sends).
    assert [a.number for a in attempts_counted(AttemptRule.BEST, attempts)] == [2]
    assert [a.number for a in attempts_counted(AttemptRule.ALL, attempts)] == [1, 2, 3, 4]
    assert attempts_counted(AttemptRule.BEST, attempts[3:]) == []


# --- the page ---------------------------------------------------------------------------------


def grid(client, quiz, query: str = "") -> str:
    response = client.get(reverse("teaching:quiz-results", args=[quiz.slug]) + query)
    assert response.status_code == 200
    return response.content.decode()


def test_the_grid_page_shows_the_numbers_and_links_each_attempt(client, exam, people, learners):
    client.force_login(people.assistant)
    page = grid(client, exam.quiz, "?attempts=best")
    best = learners["attempts"]["ann"][1]
    assert reverse("teaching:attempt", args=[best.pk]) in page
    # Points as "3.5 / 5" (teaching/numbers.py), each total linking to its attempt.
    assert re.search(r'<td data-score><a href="[^"]+">3.5 / 5<span', page)
    assert re.search(r'<td data-score><a href="[^"]+">5 / 5<span', page)
    assert "No submitted attempt yet (one in progress)" in page  # Cai
    assert "No attempt yet" in page  # Dan
    assert people.instructor.username not in page
    assert "ML 101" in page
    assert (
        f'data-item="{exam.problem_item.pk}"><span class="grid-points">'
        '<span aria-hidden="true">✎</span> 1.5 / 3<'
    ) in page

    every = grid(client, exam.quiz, "?attempts=all&group=lms")
    assert every.count("<td data-score>") == 6
    assert every.index('<h2 id="group-1-heading">ML 101') < every.index(NOT_FROM_AN_LMS)
    for attempt in learners["attempts"]["ann"] + learners["attempts"]["ben"]:
        assert reverse("teaching:attempt", args=[attempt.pk]) in every


def test_the_course_page_counts_each_quiz_s_items_learners_and_attempts(
    client, exam, course_a, people, learners
):
    client.force_login(people.instructor)
    page = client.get(reverse("teaching:course", args=[course_a.slug])).content.decode()
    assert reverse("teaching:quiz-results", args=[exam.quiz.slug]) in page
    # 2 items worth 5 points; Ann, Ben and Cai made 6 attempts, 4 submitted, 2 in progress.
    assert '<td data-count="items">2 (5 points)</td>' in page
    assert '<td data-count="learners">3</td>' in page
    assert '<td data-count="attempts">6</td>' in page
    assert '<td data-count="submitted">4</td>' in page
    assert '<td data-count="in-progress">2</td>' in page
