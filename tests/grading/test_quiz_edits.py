"""Changing an item's points after attempts: every total, maximum and override agrees, audited.

The exam (tests/grading/exam_records): a 2-point question and a 3-point problem. Ann 2 + 3 = 5,
Ben 0 (an instructor then overrides his question to 1.5 points), Cal 0, Dee 3 (in progress).
"""

from __future__ import annotations

import csv

import pytest

from grading import scores, selectors
from grading.models import Attempt, Regrade, ScoreChange
from grading.overrides import ScoreChangeNotAllowed, ScoreChangeRefused
from grading.quiz_edits import (
    PointsChangeStale,
    quiz_item_points_change,
    quiz_points_change,
    quiz_points_plan,
)
from teaching.results.gradebook import gradebook_lines
from teaching.results.reads import AttemptRule, quiz_results
from teaching.statistics.data import quiz_data
from tests.factories import UserFactory
from tests.grading.exam_records import (
    cohort_with_override,
    exam_build,
    instructor_of,
    sit,
    sit_preview,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def cohort():
    exam = exam_build()
    instructor = instructor_of(exam)
    return exam, cohort_with_override(exam, instructor), instructor


def totals():
    return {
        a.user.username: (a.status, a.score, a.max_score)
        for a in Attempt.objects.select_related("user")
    }


def snapshot():
    return (
        sorted(Attempt.objects.values_list("pk", "score", "max_score", "updated_at")),
        ScoreChange.objects.count(),
        Regrade.objects.count(),
    )


def test_the_plan_says_who_gains_and_what_is_sent_and_writes_nothing(
    cohort, hook_calls, django_capture_on_commit_callbacks
):
    exam, _attempts, instructor = cohort
    hook_calls.clear()
    before = snapshot()
    with django_capture_on_commit_callbacks(execute=True):
        plan = quiz_points_plan(quiz=exam.quiz, points={exam.question_item.pk: 4}, by=instructor)
    assert snapshot() == before
    assert hook_calls == []
    assert exam.quiz.items.get(pk=exam.question_item.pk).points == 2
    assert not plan.applied
    assert plan.refusal == ""
    rescored = {a.learner: (a.old_score, a.new_score, a.old_max, a.new_max) for a in plan.attempts}
    assert rescored == {
        "ann": (5.0, 7.0, 5.0, 7.0),
        "ben": (1.5, 1.5, 5.0, 7.0),  # the override keeps its 1.5 points
        "cal": (0.0, 0.0, 5.0, 7.0),
        "dee": (3.0, 3.0, 5.0, 7.0),
    }
    assert [a.learner for a in plan.gainers] == ["ann"]
    assert plan.losers == []
    # Every submitted learner's maximum moved: each is told once; Dee is still in progress.
    assert sorted(a.learner for a in plan.told) == ["ann", "ben", "cal"]
    assert plan.notice() == (
        "This quiz has 4 attempts; changing points regrades them: every total and maximum is "
        "recomputed, who gains and who loses is recorded, and the LMS is sent each changed "
        "score once."
    )
    assert plan.outcome() == (
        "Item 1: 2 → 4 points. 1 learner's attempt gains (ann +2); 0 lose; 3 keep their "
        "score. Every attempt is now out of 7 (was 5). 3 learners' scores are sent to the LMS."
    )


def test_a_points_change_regrades_every_total_audited_and_passed_back_once(
    cohort, hook_calls, django_capture_on_commit_callbacks
):
    exam, attempts, instructor = cohort
    hook_calls.clear()
    with django_capture_on_commit_callbacks(execute=True):
        done = quiz_item_points_change(item=exam.question_item, points=4, by=instructor)
    assert done.applied
    assert totals() == {
        "ann": ("submitted", 7.0, 7.0),
        "ben": ("submitted", 1.5, 7.0),
        "cal": ("submitted", 0.0, 7.0),
        "dee": ("in_progress", 3.0, 7.0),
    }
    assert exam.quiz.items.get(pk=exam.question_item.pk).points == 4
    regrade = Regrade.objects.get()
    assert regrade == done.regrades[0]
    assert (regrade.quiz_item_id, regrade.fix) == (exam.question_item.pk, [{"points": [2, 4]}])
    assert (regrade.attempts_changed, regrade.responses_changed) == (1, 0)
    assert (regrade.by, regrade.by_username) == (instructor, instructor.username)
    change = ScoreChange.objects.get(kind=ScoreChange.Kind.REGRADE)
    assert (change.attempt, change.regrade, change.points) == (attempts["ann"], regrade, 4)
    assert (change.old_score, change.new_score) == (2.0, 4.0)
    assert (change.old_attempt_score, change.new_attempt_score) == (5.0, 7.0)
    # Once per learner whose submitted score or maximum moved.
    told = {attempts[name].pk for name in ("ann", "ben", "cal")}
    assert sorted(hook_calls) == sorted(told) == sorted(done.passed_back)


def test_every_reader_agrees_after_a_points_change(cohort):
    """The issue's numbers: "✓ 4" beside "5 / 5", statistics "3.94 of 7", an override of 1.5
    read as 3. After the change: Ann 4 of the item and 7 / 7, statistics out of 7 over totals
    7, 1.5 and 0, Ben's override 1.5."""
    exam, attempts, instructor = cohort
    quiz_item_points_change(item=exam.question_item, points=4, by=instructor)
    results = quiz_results(quiz=exam.quiz, rule=AttemptRule.FIRST)
    rows = {row.learner.username: row for row in results.rows}
    ann = rows["ann"]
    assert [item.points for item in ann.items] == [4.0, 3.0]
    assert (ann.attempt.score, ann.attempt.max_score, results.max_score) == (7.0, 7.0, 7)
    assert sum(item.points for item in ann.items) == ann.attempt.score
    assert rows["ben"].items[0].points == 1.5
    data = quiz_data(quiz=exam.quiz, rule=AttemptRule.FIRST)
    assert data.max_score == 7.0
    assert sorted(data.totals) == [0.0, 1.5, 7.0]
    sheet = {
        row.item.pk: row.score * row.item.points
        for row in selectors.attempt_sheet(attempt=attempts["ben"])
    }
    assert sheet == {exam.question_item.pk: 1.5, exam.problem_item.pk: 0.0}
    assert scores.best_attempt(user=attempts["ann"].user, quiz=exam.quiz).score == 7.0
    # The gradebook CSV (and the grades API, through the same teaching.results.grades.grade_of).
    lines = list(csv.reader(gradebook_lines(quiz=exam.quiz, rule=AttemptRule.FIRST)))
    columns = lines[0].index("score_points"), lines[0].index("max_score_points")
    assert {line[0]: (line[columns[0]], line[columns[1]]) for line in lines[1:]} == {
        "ann": ("7.0", "7.0"),
        "ben": ("1.5", "7.0"),
        "cal": ("0.0", "7.0"),
        "dee": ("", "7.0"),
    }


def test_an_override_keeps_its_points_and_is_capped_when_the_points_drop(cohort):
    exam, _attempts, instructor = cohort
    plan = quiz_points_plan(quiz=exam.quiz, points={exam.question_item.pk: 1})
    assert [(c.learner, c.item_number, c.override, c.points) for c in plan.capped] == [
        ("ben", 1, 1.5, 1)
    ]
    assert "ben's override of 1.50 on item 1 is above its new 1 points: it counts for 1." in (
        plan.outcome()
    )
    quiz_points_change(quiz=exam.quiz, points={exam.question_item.pk: 1}, by=instructor)
    assert totals()["ben"] == ("submitted", 1.0, 4.0)
    assert totals()["ann"] == ("submitted", 4.0, 4.0)  # loses a point
    # Back to 2 points: the override's 1.5 is in force again, never lost.
    quiz_points_change(quiz=exam.quiz, points={exam.question_item.pk: 2}, by=instructor)
    assert totals()["ben"] == ("submitted", 1.5, 5.0)
    assert Regrade.objects.count() == 2


def test_a_preview_is_rescored_but_never_counted_nor_passed_back(
    cohort, hook_calls, django_capture_on_commit_callbacks
):
    exam, _attempts, instructor = cohort
    preview = sit_preview(exam, instructor)
    hook_calls.clear()
    with django_capture_on_commit_callbacks(execute=True):
        done = quiz_item_points_change(item=exam.question_item, points=4, by=instructor)
    preview.refresh_from_db()
    assert (preview.score, preview.max_score) == (7.0, 7.0)
    assert preview.pk not in hook_calls
    assert done.regrades[0].attempts_changed == 1  # Ann, not the preview


def test_only_an_instructor_changes_the_points_of_an_attempted_quiz(cohort):
    exam, _attempts, _instructor = cohort
    outsider = UserFactory(is_staff=True)
    before = snapshot()
    plan = quiz_points_plan(quiz=exam.quiz, points={exam.question_item.pk: 4}, by=outsider)
    assert "only an instructor of the quiz's course may" in plan.refusal
    with pytest.raises(ScoreChangeNotAllowed):
        quiz_item_points_change(item=exam.question_item, points=4, by=outsider)
    assert snapshot() == before
    assert exam.quiz.items.get(pk=exam.question_item.pk).points == 2


@pytest.mark.parametrize("points", [0, -1, 2.5, True, "4"])
def test_bad_points_are_refused_and_change_nothing(cohort, points):
    exam, _attempts, instructor = cohort
    before = snapshot()
    with pytest.raises(ScoreChangeRefused, match="whole number of at least 1"):
        quiz_item_points_change(item=exam.question_item, points=points, by=instructor)
    assert snapshot() == before


def test_an_item_of_another_quiz_is_refused(cohort):
    exam, _attempts, instructor = cohort
    other = exam_build()
    with pytest.raises(ScoreChangeRefused, match="not items of"):
        quiz_points_change(quiz=exam.quiz, points={other.question_item.pk: 4}, by=instructor)


def test_a_stale_plan_is_refused(cohort):
    exam, _attempts, instructor = cohort
    shown = quiz_points_plan(quiz=exam.quiz, points={exam.question_item.pk: 4})
    sit_preview(exam, instructor)  # an attempt more since the plan was shown
    before = snapshot()
    with pytest.raises(PointsChangeStale):
        quiz_points_change(
            quiz=exam.quiz,
            points={exam.question_item.pk: 4},
            by=instructor,
            expected_digest=shown.digest,
        )
    assert snapshot() == before


def test_a_quiz_without_attempts_changes_its_points_with_no_audit():
    exam = exam_build()
    author = UserFactory(is_staff=True)
    done = quiz_item_points_change(item=exam.question_item, points=4, by=author)
    assert done.applied
    assert done.attempts == ()
    assert exam.quiz.items.get(pk=exam.question_item.pk).points == 4
    assert not Regrade.objects.exists()
    assert done.notice() == "This quiz has no attempts yet: its points can change freely."


def test_a_learner_with_two_moved_attempts_is_passed_back_once(
    cohort, hook_calls, django_capture_on_commit_callbacks
):
    exam, attempts, instructor = cohort
    again = sit(exam, attempts["ann"].user, choice="A", factor=1.0)  # Ann's second: 5 again
    hook_calls.clear()
    with django_capture_on_commit_callbacks(execute=True):
        done = quiz_item_points_change(item=exam.question_item, points=4, by=instructor)
    again.refresh_from_db()
    assert again.score == 7.0
    assert [a.learner for a in done.gainers] == ["ann", "ann"]
    told = [pk for pk in hook_calls if pk in (attempts["ann"].pk, again.pk)]
    assert len(told) == 1
    assert len(hook_calls) == 3  # Ann, Ben and Cal, once each


def test_only_an_override_on_a_changed_item_is_named_as_capped(cohort):
    exam, _attempts, instructor = cohort
    quiz_points_change(quiz=exam.quiz, points={exam.question_item.pk: 1}, by=instructor)
    # Ben's 1.5 stays capped at 1, but the problem's change has nothing to do with it.
    plan = quiz_points_plan(quiz=exam.quiz, points={exam.problem_item.pk: 4})
    assert plan.capped == ()
    assert "override" not in plan.outcome()
