"""Editing a quiz that has attempts in the admin: what a change will do is said before saving, a
points change regrades every total through grading, and items keep their place.

The exam (tests/grading/exam_records): a 2-point question and a 3-point problem. Ann 2 + 3 = 5,
Ben 0 with his question overridden to 1.5 points, Cal 0, Dee 3 (in progress).
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from courses.models import QuizItem
from grading import selectors
from grading.models import Attempt, Regrade
from teaching.results.reads import AttemptRule, quiz_results
from teaching.statistics.data import quiz_data
from tests.factories import InstructorFactory, QuestionFactory, UserFactory
from tests.grading import exam_records
from tests.grading.exam_records import cohort_with_override, exam_build, instructor_of, sit

pytestmark = pytest.mark.django_db


@pytest.fixture
def cohort():
    exam = exam_build()
    return exam, cohort_with_override(exam, instructor_of(exam))


@pytest.fixture
def lms_told(settings):
    """The attempts grading tells the LMS of (tests/grading/conftest.py's hook_calls)."""
    settings.SOFTGRADE_ATTEMPT_SUBMITTED_HOOKS = [
        "tests.grading.exam_records.record_submitted_hook"
    ]
    exam_records.submitted_hook_calls.clear()
    return exam_records.submitted_hook_calls


@pytest.fixture
def instructor_client(client):
    client.force_login(InstructorFactory())
    return client


def change_url(exam):
    return reverse("admin:courses_quiz_change", args=[exam.quiz.pk])


def quiz_post(exam, rows=None, **fields) -> dict:
    """The quiz's change form as the admin posts it, items as stored unless `rows` say."""
    quiz = exam.quiz
    data = {
        "lesson": str(quiz.lesson_id),
        "title": quiz.title,
        "slug": quiz.slug,
        "description": quiz.description,
        "mode": quiz.mode,
        "tries_per_item": str(quiz.tries_per_item),
        "extra_try_penalty": "0",
        "show_feedback": quiz.show_feedback,
        "release_answers": quiz.release_answers,
        "shuffle_items": "unknown",
        "shuffle_choices": "unknown",
        "overdue_handling": quiz.overdue_handling,
        "grace_minutes": str(quiz.grace_minutes),
    }
    if rows is None:
        rows = [
            {
                "id": item.pk,
                "order": item.order,
                "question": item.question_id or "",
                "problem": item.problem_id or "",
                "points": item.points,
            }
            for item in quiz.items.order_by("order", "id")
        ]
    initial = sum(1 for row in rows if row.get("id"))
    data |= {
        "items-TOTAL_FORMS": str(len(rows)),
        "items-INITIAL_FORMS": str(initial),
        "items-MIN_NUM_FORMS": "0",
        "items-MAX_NUM_FORMS": "1000",
    }
    for index, row in enumerate(rows):
        data[f"items-{index}-quiz"] = str(quiz.pk)
        for name, value in row.items():
            data[f"items-{index}-{name}"] = str(value)
    data.update(fields)
    return data


def with_points(exam, points: int) -> list[dict]:
    rows = quiz_post(exam)
    count = int(rows["items-TOTAL_FORMS"])
    found = [
        {
            name.split("-", 2)[2]: value
            for name, value in rows.items()
            if name.startswith(f"items-{i}-") and not name.endswith("-quiz")
        }
        for i in range(count)
    ]
    found[0]["points"] = str(points)
    return found


def shown_digest(response) -> str:
    """The digest of the change the page has just shown, as its hidden field sends it back."""
    page = response.content.decode()
    found = re.search(r'name="regrade_digest" value="([0-9a-f]+)"', page)
    assert found, "no change shown"
    return found.group(1)


def shown_then_confirmed(client, exam, rows):
    """Save once (the change is shown), then tick the box and save what was shown."""
    shown = client.post(change_url(exam), quiz_post(exam, rows))
    assert shown.status_code == 200
    data = quiz_post(exam, rows, regrade_attempts="on", regrade_digest=shown_digest(shown))
    return client.post(change_url(exam), data, follow=True)


def stored():
    return (
        sorted(Attempt.objects.values_list("pk", "score", "max_score")),
        sorted(QuizItem.objects.values_list("pk", "order", "question_id", "points")),
        Regrade.objects.count(),
    )


def test_the_change_page_says_how_many_attempts_the_quiz_has(cohort, instructor_client):
    exam, _attempts = cohort
    page = unescape(instructor_client.get(change_url(exam)).content.decode())
    assert "This quiz has 4 attempts; changing points regrades them:" in page
    assert "items cannot be added, removed, reordered" in page
    assert 'name="regrade_attempts"' in page


def test_a_points_change_is_shown_first_and_saves_nothing(cohort, instructor_client):
    exam, _attempts = cohort
    before = stored()
    response = instructor_client.post(change_url(exam), quiz_post(exam, with_points(exam, 4)))
    assert response.status_code == 200
    page = unescape(response.content.decode())
    assert (
        "This quiz has 4 attempts; changing points regrades them: every total and maximum is "
        "recomputed, who gains and who loses is recorded, and the LMS is sent each changed "
        "score once. Item 1: 2 → 4 points. 1 learner's attempt gains (ann +2); 0 lose; 3 keep "
        "their score. Every attempt is now out of 7 (was 5). 3 learners' scores are sent to "
        "the LMS. Nothing is saved yet: tick “Regrade the attempts” and save again to apply it."
    ) in page
    assert stored() == before


def test_a_change_ticked_before_it_was_shown_or_changed_since_is_shown_again(
    cohort, instructor_client
):
    exam, _attempts = cohort
    rows = with_points(exam, 4)
    before = stored()
    ticked = instructor_client.post(change_url(exam), quiz_post(exam, rows, regrade_attempts="on"))
    assert "Nothing is saved yet" in unescape(ticked.content.decode())
    assert stored() == before
    # Meanwhile another learner submits: the change shown is no longer what a save would do.
    sit(exam, UserFactory(username="eve"), choice="A", factor=1.0)
    before = stored()
    data = quiz_post(exam, rows, regrade_attempts="on", regrade_digest=shown_digest(ticked))
    again = instructor_client.post(change_url(exam), data)
    page = unescape(again.content.decode())
    assert "This quiz has 5 attempts" in page
    assert "(This has changed since it was shown: check it again.)" in page
    assert "2 learners' attempts gain (ann +2, eve +2)" in page
    assert stored() == before
    assert shown_digest(again) != shown_digest(ticked)


def test_a_confirmed_points_change_keeps_every_number_in_agreement(
    cohort, instructor_client, lms_told, django_capture_on_commit_callbacks
):
    """The issue: after 2 → 4 the grid showed "✓ 4" beside "5 / 5", statistics "3.94 of 7"
    and Ben's override of 1.5 as 3."""
    exam, attempts = cohort
    lms_told.clear()
    with django_capture_on_commit_callbacks(execute=True):
        response = shown_then_confirmed(instructor_client, exam, with_points(exam, 4))
    assert response.redirect_chain
    assert "Regraded: Item 1: 2 → 4 points." in unescape(response.content.decode())
    results = quiz_results(quiz=exam.quiz, rule=AttemptRule.FIRST)
    rows = {row.learner.username: row for row in results.rows}
    assert rows["ann"].items[0].points == 4.0
    assert (rows["ann"].attempt.score, rows["ann"].attempt.max_score) == (7.0, 7.0)
    assert results.max_score == 7
    assert rows["ben"].items[0].points == 1.5
    assert rows["ben"].attempt.score == 1.5
    data = quiz_data(quiz=exam.quiz, rule=AttemptRule.FIRST)
    assert data.max_score == 7.0
    assert sorted(data.totals) == [0.0, 1.5, 7.0]
    ben = {
        row.item.pk: row.score * row.item.points
        for row in selectors.attempt_sheet(attempt=attempts["ben"])
    }
    assert ben[exam.question_item.pk] == 1.5
    regrade = Regrade.objects.get()
    assert regrade.fix == [{"points": [2, 4]}]
    assert sorted(lms_told) == sorted(attempts[n].pk for n in ("ann", "ben", "cal"))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("remove", "Item 2 cannot be removed."),
        ("reorder", "Item 1 cannot be reordered or changed."),
        ("replace", "Item 1 cannot be reordered or changed."),
        ("add", "Item 3 cannot be added."),
    ],
)
def test_items_of_an_attempted_quiz_keep_their_place_with_a_plain_error(
    cohort, instructor_client, change, message
):
    exam, _attempts = cohort
    rows = with_points(exam, 2)
    if change == "remove":
        rows[1]["DELETE"] = "on"
    elif change == "reorder":
        rows[0]["order"], rows[1]["order"] = "5", "1"
    elif change == "replace":
        rows[0]["question"] = str(QuestionFactory(lesson=exam.quiz.lesson).pk)
    else:
        question = str(exam.question_item.question_id)
        rows.append({"order": "3", "question": question, "points": "1"})
    before = stored()
    response = instructor_client.post(
        change_url(exam), quiz_post(exam, rows, regrade_attempts="on")
    )
    assert response.status_code == 200
    page = unescape(response.content.decode())
    assert f"{message} This quiz has 4 attempts: its attempts name its items" in page
    assert "protected related objects" not in page
    assert stored() == before


def test_only_an_instructor_of_the_course_may_change_an_attempted_quizs_points(cohort, client):
    exam, _attempts = cohort
    author = UserFactory(is_staff=True)
    author.user_permissions.set(
        Permission.objects.filter(codename__in=["view_quiz", "change_quiz", "change_quizitem"])
    )
    client.force_login(author)
    before = stored()
    response = client.post(
        change_url(exam), quiz_post(exam, with_points(exam, 4), regrade_attempts="on")
    )
    assert response.status_code == 200
    assert "only an instructor of the quiz" in unescape(response.content.decode())
    assert stored() == before


def test_a_quiz_without_attempts_changes_its_points_at_once(instructor_client):
    exam = exam_build()
    page = unescape(instructor_client.get(change_url(exam)).content.decode())
    assert "This quiz has no attempts yet: its points can change freely." in page
    response = instructor_client.post(change_url(exam), quiz_post(exam, with_points(exam, 4)))
    assert response.status_code == 302
    assert QuizItem.objects.get(pk=exam.question_item.pk).points == 4
    assert not Regrade.objects.exists()
