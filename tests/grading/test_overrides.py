"""An instructor's override of one item's score: validated, audited, rescored, passed back."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from grading import overrides, selectors
from grading.models import Attempt, ScoreChange
from grading.overrides import ScoreChangeNotAllowed, ScoreChangeRefused, item_score_override
from teaching.models import CourseRole
from tests.factories import InstructorFactory, QuizItemFactory, UserFactory
from tests.grading.exam_records import exam_build, instructor_of, sit

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam():
    return exam_build()


@pytest.fixture
def instructor(exam):
    return instructor_of(exam)


def test_an_override_sets_the_item_score_keeps_the_answers_and_is_audited(
    exam, instructor, hook_calls, django_capture_on_commit_callbacks
):
    ben = UserFactory()
    attempt = sit(exam, ben, choice="B", factor=1.05)  # both items wrong: 0 of 5
    assert (attempt.score, attempt.max_score) == (0.0, 5.0)
    answers = list(attempt.responses.values_list("pk", "text", "status", "score"))
    hook_calls.clear()

    with django_capture_on_commit_callbacks(execute=True):
        change = item_score_override(
            attempt=attempt,
            item=exam.question_item,
            score=1.5,
            reason="Choice B is defensible: the prompt did not say which variance.",
            by=instructor,
        )

    attempt.refresh_from_db()
    assert attempt.score == 1.5  # 1.5 of the question's 2 points, 0 of the problem's 3
    assert attempt.max_score == 5.0
    row = ScoreChange.objects.get()
    assert row == change
    assert (row.kind, row.attempt, row.learner, row.quiz_item) == (
        ScoreChange.Kind.OVERRIDE,
        attempt,
        ben,
        exam.question_item,
    )
    assert (row.points, row.old_score, row.new_score) == (2, 0.0, 1.5)
    assert (row.old_attempt_score, row.new_attempt_score) == (0.0, 1.5)
    assert row.reason == "Choice B is defensible: the prompt did not say which variance."
    assert (row.by, row.by_username) == (instructor, instructor.username)
    assert row.created_at is not None
    # The learner's recorded answers and their verdicts are untouched.
    assert list(attempt.responses.values_list("pk", "text", "status", "score")) == answers
    # The results page reads the same score per item: 0.75 of the question's points.
    sheet = {row.item.pk: row.score for row in selectors.attempt_sheet(attempt=attempt)}
    assert sheet == {exam.question_item.pk: 0.75, exam.problem_item.pk: 0.0}
    # The LMS is told, once the change is committed.
    assert hook_calls == [attempt.pk]


def test_the_latest_override_of_an_item_is_in_force_and_every_one_stays(exam, instructor):
    ann = UserFactory()
    attempt = sit(exam, ann, choice="A", factor=1.0)  # both right: 2 + 3 = 5
    assert attempt.score == 5.0
    item_score_override(
        attempt=attempt, item=exam.problem_item, score=1, reason="Copied working.", by=instructor
    )
    attempt.refresh_from_db()
    assert attempt.score == 3.0  # 2 + 1
    item_score_override(
        attempt=attempt, item=exam.problem_item, score=2.5, reason="Appeal upheld.", by=instructor
    )
    attempt.refresh_from_db()
    assert attempt.score == 4.5  # 2 + 2.5
    rows = list(ScoreChange.objects.order_by("created_at", "id"))
    assert [(r.old_score, r.new_score, r.old_attempt_score, r.new_attempt_score) for r in rows] == [
        (3.0, 1.0, 5.0, 3.0),
        (1.0, 2.5, 3.0, 4.5),
    ]


def test_an_override_to_zero_and_to_full_points_are_both_allowed(exam, instructor):
    attempt = sit(exam, UserFactory(), choice="A", factor=1.05)  # 2 + 0
    item_score_override(
        attempt=attempt, item=exam.question_item, score=0, reason="x", by=instructor
    )
    item_score_override(attempt=attempt, item=exam.problem_item, score=3, reason="y", by=instructor)
    attempt.refresh_from_db()
    assert attempt.score == 3.0  # 0 + 3


REFUSALS = [
    ({"score": -0.5}, ScoreChangeRefused, "from 0 to 2"),
    ({"score": 2.01}, ScoreChangeRefused, "from 0 to 2"),
    ({"score": float("nan")}, ScoreChangeRefused, "from 0 to 2"),
    ({"score": float("inf")}, ScoreChangeRefused, "from 0 to 2"),
    ({"score": "1"}, ScoreChangeRefused, "from 0 to 2"),
    ({"score": True}, ScoreChangeRefused, "from 0 to 2"),
    ({"reason": ""}, ScoreChangeRefused, "Give a reason"),
    ({"reason": "   \n"}, ScoreChangeRefused, "Give a reason"),
    ({"reason": "x" * 2001}, ScoreChangeRefused, "under 2000 characters"),
    ({"by": "learner"}, ScoreChangeNotAllowed, "Only instructors"),
    ({"by": "inactive instructor"}, ScoreChangeNotAllowed, "Only instructors"),
    ({"by": "teaching assistant"}, ScoreChangeNotAllowed, "Only instructors"),
    ({"by": "staff without a role"}, ScoreChangeNotAllowed, "Only instructors"),
    ({"by": "another course's instructor"}, ScoreChangeNotAllowed, "Only instructors"),
    ({"item": "of another quiz"}, ScoreChangeRefused, "not part of this attempt's quiz"),
]


@pytest.mark.parametrize(("bad", "error", "message"), REFUSALS)
def test_a_refused_override_says_why_and_changes_nothing(
    exam, instructor, hook_calls, django_capture_on_commit_callbacks, bad, error, message
):
    attempt = sit(exam, UserFactory(), choice="A", factor=1.05)  # 2 of 5
    hook_calls.clear()
    arguments = {
        "attempt": attempt,
        "item": exam.question_item,
        "score": 1.0,
        "reason": "A fair reason.",
        "by": instructor,
    }
    arguments.update(bad)
    if bad.get("by") == "learner":
        arguments["by"] = attempt.user
    elif bad.get("by") == "inactive instructor":
        arguments["by"] = instructor_of(exam, is_active=False)
    elif bad.get("by") == "teaching assistant":
        arguments["by"] = UserFactory()
        CourseRole.objects.create(
            course=exam.quiz.lesson.course,
            user=arguments["by"],
            role=CourseRole.Role.TEACHING_ASSISTANT,
        )
    elif bad.get("by") == "staff without a role":
        arguments["by"] = UserFactory(is_staff=True)
    elif bad.get("by") == "another course's instructor":
        arguments["by"] = instructor_of(exam_build())
    elif bad.get("item"):
        arguments["item"] = QuizItemFactory(points=2)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(error, match=message):
        item_score_override(**arguments)
    attempt.refresh_from_db()
    assert attempt.score == 2.0
    assert not ScoreChange.objects.exists()
    assert hook_calls == []


def test_an_attempt_in_progress_cannot_be_overridden(exam, instructor, hook_calls):
    attempt = sit(exam, UserFactory(), choice="A", factor=1.05, submit=False)
    with pytest.raises(ScoreChangeRefused, match="Only a submitted attempt"):
        item_score_override(
            attempt=attempt, item=exam.problem_item, score=3, reason="Early.", by=instructor
        )
    attempt.refresh_from_db()
    assert attempt.status == Attempt.Status.IN_PROGRESS
    assert attempt.score == 2.0
    assert not ScoreChange.objects.exists()


def test_the_rule_is_the_one_settings_name_and_superusers_only_without_it(exam, settings):
    """grading asks teaching.access.may_change_scores (tests/teaching/scores/test_roles.py tries
    every role) through SOFTGRADE_SCORE_CHANGE_RULE; without a rule, superusers alone."""
    attempt = sit(exam, UserFactory(), choice="C", factor=1.0)
    instructor = instructor_of(exam)
    assert settings.SOFTGRADE_SCORE_CHANGE_RULE == "teaching.access.may_change_scores"
    assert overrides.may_change_scores(user=instructor, quiz=exam.quiz)
    assert overrides.may_change_scores(user=InstructorFactory(), quiz=exam.quiz)
    assert not overrides.may_change_scores(user=attempt.user, quiz=exam.quiz)
    del settings.SOFTGRADE_SCORE_CHANGE_RULE
    assert not overrides.may_change_scores(user=instructor, quiz=exam.quiz)
    assert overrides.may_change_scores(user=InstructorFactory(), quiz=exam.quiz)
    assert not overrides.may_change_scores(user=InstructorFactory(is_active=False), quiz=exam.quiz)


def test_audit_rows_cannot_be_rewritten_or_deleted(exam, instructor):
    attempt = sit(exam, UserFactory(), choice="A", factor=1.0)
    change = item_score_override(
        attempt=attempt, item=exam.problem_item, score=1, reason="Late work.", by=instructor
    )
    change.new_score = 3
    with pytest.raises(IntegrityError), transaction.atomic():
        change.save()  # an insert with the row's own key
    with pytest.raises(ValueError, match="Cannot force both insert and updating"):
        change.save(update_fields=["new_score"])
    with pytest.raises(TypeError, match="never deleted"):
        change.delete()
    assert ScoreChange.objects.get().new_score == 1.0
