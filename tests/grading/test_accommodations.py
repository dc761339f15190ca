"""Accommodations: every rule a learner is held to follows their own (grading/accommodations.py),
with and without one, and the answer key never reaches a learner who may still answer."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from courses.models import Quiz
from grading import accommodations, policy, quiz_rules
from grading.models import Attempt, QuizAccommodation
from grading.services.accommodations import (
    NOTHING_CHANGED,
    AccommodationNotAllowed,
    AccommodationRefused,
    AccommodationTerms,
    accommodation_remove,
    accommodation_set,
)
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_expire_if_overdue, attempt_submit
from grading.services.errors import AttemptClosed, AttemptLimitReached, QuizNotOpen
from grading.services.practice import practice_refusal
from grading.services.responses import response_submit
from tests.factories import UserFactory
from tests.grading.exam_records import exam_build, instructor_of

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 12, 5, 9, 0, tzinfo=UTC)


@pytest.fixture
def exam():
    built = exam_build()
    Quiz.objects.filter(pk=built.quiz.pk).update(time_limit_minutes=60, attempts_allowed=1)
    built.quiz.refresh_from_db()
    return built


@pytest.fixture
def instructor(exam):
    return instructor_of(exam)


def give(quiz, learner, by, **terms) -> QuizAccommodation:
    return accommodation_set(
        quiz=quiz, learner=learner, terms=AccommodationTerms(**terms), by=by, now=NOW
    )


# --- the rules ----------------------------------------------------------------------------------


def test_without_an_accommodation_the_rules_are_the_quiz_own(exam):
    rules = accommodations.learner_rules(quiz=exam.quiz, user=UserFactory())
    assert (rules.time_limit_minutes, rules.attempts_allowed, rules.closes_at) == (60, 1, None)
    assert not rules.accommodated
    assert quiz_rules.accommodation_rules(rules) == []


def test_an_accommodation_adds_to_the_limits_and_says_so(exam, instructor):
    learner = UserFactory()
    give(exam.quiz, learner, instructor, extra_minutes=30, extra_attempts=2)
    rules = accommodations.learner_rules(quiz=exam.quiz, user=learner)
    assert (rules.time_limit_minutes, rules.attempts_allowed) == (90, 3)
    assert quiz_rules.time_rule(rules) == "90 minutes, from when you start an attempt"
    assert quiz_rules.accommodation_rules(rules) == [
        "You have 30 extra minutes: 90 minutes in all.",
        "You have 2 extra attempts: 3 in all.",
    ]
    # Another learner is held to the quiz's rules.
    other = accommodations.learner_rules(quiz=exam.quiz, user=UserFactory())
    assert (other.time_limit_minutes, other.attempts_allowed) == (60, 1)


# --- starting: the attempt limit and the closing time ------------------------------------------


def test_a_start_beyond_the_limit_is_refused_without_and_allowed_with_extra_attempts(
    exam, instructor
):
    plain, helped = UserFactory(), UserFactory()
    give(exam.quiz, helped, instructor, extra_attempts=1)
    for learner in (plain, helped):
        attempt_submit(attempt=attempt_start(user=learner, quiz=exam.quiz))
    with pytest.raises(AttemptLimitReached, match="all 1 attempt at this quiz"):
        attempt_start(user=plain, quiz=exam.quiz)
    second = attempt_start(user=helped, quiz=exam.quiz)
    assert second.number == 2
    attempt_submit(attempt=second)
    with pytest.raises(AttemptLimitReached, match="all 2 attempts"):
        attempt_start(user=helped, quiz=exam.quiz)
    assert Attempt.objects.filter(user=plain).count() == 1


def test_an_own_due_date_lets_one_learner_start_after_the_quiz_closed_for_others(exam, instructor):
    closes = NOW + timedelta(hours=1)
    Quiz.objects.filter(pk=exam.quiz.pk).update(closes_at=closes)
    exam.quiz.refresh_from_db()
    plain, helped = UserFactory(), UserFactory()
    give(exam.quiz, helped, instructor, closes_at=closes + timedelta(days=2))
    after_close = closes + timedelta(days=1)
    with pytest.raises(QuizNotOpen, match="closed at"):
        attempt_start(user=plain, quiz=exam.quiz, now=after_close)
    attempt = attempt_start(user=helped, quiz=exam.quiz, now=after_close)
    assert attempt.deadline == after_close + timedelta(minutes=60)
    # Past their own due date they are refused like everyone else.
    with pytest.raises(QuizNotOpen, match="closed at"):
        attempt_start(user=UserFactory(), quiz=exam.quiz, now=closes + timedelta(days=3))
    assert not Attempt.objects.filter(user=plain).exists()


def test_an_earlier_own_due_date_closes_the_quiz_earlier_for_that_learner(exam, instructor):
    Quiz.objects.filter(pk=exam.quiz.pk).update(closes_at=NOW + timedelta(days=5))
    exam.quiz.refresh_from_db()
    learner = UserFactory()
    give(exam.quiz, learner, instructor, closes_at=NOW + timedelta(days=1))
    with pytest.raises(QuizNotOpen):
        attempt_start(user=learner, quiz=exam.quiz, now=NOW + timedelta(days=2))
    assert attempt_start(user=UserFactory(), quiz=exam.quiz, now=NOW + timedelta(days=2))


# --- the deadline, expiry and the late flag -----------------------------------------------------


def test_extra_minutes_move_the_deadline_and_answers_inside_them_count(exam, instructor):
    plain, helped = UserFactory(), UserFactory()
    give(exam.quiz, helped, instructor, extra_minutes=30)
    plain_attempt = attempt_start(user=plain, quiz=exam.quiz, now=NOW)
    helped_attempt = attempt_start(user=helped, quiz=exam.quiz, now=NOW)
    assert plain_attempt.deadline == NOW + timedelta(minutes=60)
    assert helped_attempt.deadline == NOW + timedelta(minutes=90)
    at_75 = NOW + timedelta(minutes=75)
    choice = [exam.choices["A"].pk]
    with pytest.raises(AttemptClosed, match="Time is up"):
        response_submit(
            attempt=plain_attempt, item=exam.question_item, choice_ids=choice, now=at_75
        )
    response_submit(attempt=helped_attempt, item=exam.question_item, choice_ids=choice, now=at_75)
    attempt_submit(attempt=helped_attempt, now=at_75)
    plain_attempt.refresh_from_db()
    helped_attempt.refresh_from_db()
    assert (plain_attempt.status, plain_attempt.late) == (Attempt.Status.SUBMITTED, True)
    assert (helped_attempt.late, helped_attempt.score) == (False, 2.0)
    # Past their own deadline the helped learner's attempt closes late too.
    other = UserFactory()
    give(exam.quiz, other, instructor, extra_minutes=30)
    late_one = attempt_start(user=other, quiz=exam.quiz, now=NOW)
    assert attempt_expire_if_overdue(attempt=late_one, now=NOW + timedelta(minutes=91))
    assert late_one.late


def test_extra_minutes_never_run_past_the_quiz_close_without_an_own_due_date(exam, instructor):
    closes = NOW + timedelta(minutes=70)
    Quiz.objects.filter(pk=exam.quiz.pk).update(closes_at=closes)
    exam.quiz.refresh_from_db()
    learner = UserFactory()
    give(exam.quiz, learner, instructor, extra_minutes=30)
    assert attempt_start(user=learner, quiz=exam.quiz, now=NOW).deadline == closes


def test_an_attempt_in_progress_follows_an_accommodation_set_or_removed_at_once(exam, instructor):
    learner = UserFactory()
    started = NOW - timedelta(minutes=10)
    attempt = attempt_start(user=learner, quiz=exam.quiz, now=started)
    # The row's start is the clock's (auto_now_add): put it where this test's clock stands.
    Attempt.objects.filter(pk=attempt.pk).update(started_at=started)
    assert attempt.deadline == NOW + timedelta(minutes=50)
    accommodation = give(exam.quiz, learner, instructor, extra_minutes=45)
    attempt.refresh_from_db()
    assert attempt.deadline == NOW + timedelta(minutes=95)
    # Taken away 70 minutes in: the quiz's 60 minutes are over, but no deadline before now.
    later = NOW + timedelta(minutes=60)
    accommodation_remove(accommodation=accommodation, by=instructor, now=later)
    attempt.refresh_from_db()
    assert attempt.deadline == later
    assert not QuizAccommodation.objects.exists()


def test_an_attempt_whose_time_ran_out_is_closed_not_revived(exam, instructor):
    learner = UserFactory()
    attempt = attempt_start(user=learner, quiz=exam.quiz, now=NOW - timedelta(minutes=61))
    give(exam.quiz, learner, instructor, extra_minutes=30)
    attempt.refresh_from_db()
    assert (attempt.status, attempt.late) == (Attempt.Status.SUBMITTED, True)
    assert attempt.deadline == NOW - timedelta(minutes=1)


def test_practice_stays_paused_until_the_extended_deadline(exam, instructor):
    learner = UserFactory()
    give(exam.quiz, learner, instructor, extra_minutes=30)
    attempt_start(user=learner, quiz=exam.quiz, now=NOW)
    at_75 = NOW + timedelta(minutes=75)
    refusal = practice_refusal(user=learner, problem=exam.problem, now=at_75)
    assert refusal is not None
    assert refusal.until == NOW + timedelta(minutes=90)
    assert (
        practice_refusal(user=learner, problem=exam.problem, now=NOW + timedelta(minutes=91))
        is None
    )


# --- when correct answers are released ---------------------------------------------------------


@pytest.fixture
def after_close(exam):
    closes = NOW + timedelta(hours=1)
    Quiz.objects.filter(pk=exam.quiz.pk).update(
        closes_at=closes, release_answers=Quiz.AnswerRelease.AFTER_CLOSE
    )
    exam.quiz.refresh_from_db()
    return exam


def _answers_shown(attempt, now) -> bool:
    attempt.refresh_from_db()
    release_at = accommodations.answers_release_at(attempt.quiz)
    shown = policy.attempt_visibility(attempt=attempt, now=now, answers_release_at=release_at)
    return shown.correct_answers


def test_answers_wait_for_the_latest_due_date_for_everyone(after_close, instructor):
    quiz = after_close.quiz
    own_due = quiz.closes_at + timedelta(days=2)
    classmate, helped = UserFactory(), UserFactory()
    classmates = attempt_submit(attempt=attempt_start(user=classmate, quiz=quiz, now=NOW), now=NOW)
    early = attempt_submit(attempt=attempt_start(user=helped, quiz=quiz, now=NOW), now=NOW)
    give(quiz, helped, instructor, closes_at=own_due, extra_attempts=1)
    assert accommodations.answers_release_at(quiz) == own_due
    after_quiz_close = quiz.closes_at + timedelta(hours=1)
    # The classmate's results hold no key while the helped learner may still answer ...
    assert not _answers_shown(classmates, after_quiz_close)
    # ... nor do the helped learner's own earlier results.
    assert not _answers_shown(early, after_quiz_close)
    second = attempt_start(user=helped, quiz=quiz, now=after_quiz_close)
    assert second.deadline == after_quiz_close + timedelta(minutes=60)
    # From the latest due date on, everyone has the key.
    assert _answers_shown(classmates, own_due)
    assert _answers_shown(early, own_due)


def test_without_accommodations_answers_come_at_the_quiz_close(after_close):
    quiz = after_close.quiz
    attempt = attempt_submit(attempt=attempt_start(user=UserFactory(), quiz=quiz, now=NOW), now=NOW)
    assert accommodations.answers_release_at(quiz) == quiz.closes_at
    assert not _answers_shown(attempt, quiz.closes_at - timedelta(seconds=1))
    assert _answers_shown(attempt, quiz.closes_at)


def test_an_earlier_own_due_date_does_not_release_answers_earlier(after_close, instructor):
    quiz = after_close.quiz
    give(quiz, UserFactory(), instructor, closes_at=quiz.closes_at - timedelta(minutes=30))
    assert accommodations.answers_release_at(quiz) == quiz.closes_at


def test_a_due_date_after_the_key_was_released_is_refused(after_close, instructor):
    quiz = after_close.quiz
    learner = UserFactory()
    released = quiz.closes_at + timedelta(hours=1)
    with pytest.raises(AccommodationRefused) as refused:
        accommodation_set(
            quiz=quiz,
            learner=learner,
            terms=AccommodationTerms(closes_at=released + timedelta(days=1)),
            by=instructor,
            now=released,
        )
    assert "answer key out" in refused.value.problems["closes_at"]
    assert not QuizAccommodation.objects.exists()


def test_other_release_settings_need_no_lookup(exam, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert accommodations.answers_release_at(exam.quiz) is None


# --- what may be given, and by whom -------------------------------------------------------------


@pytest.mark.parametrize(
    ("terms", "field", "words"),
    [
        ({"extra_minutes": -5}, "extra_minutes", "cannot be negative"),
        ({"extra_attempts": -1}, "extra_attempts", "cannot be negative"),
        ({"extra_minutes": 7 * 24 * 60 + 1}, "extra_minutes", "At most"),
        ({"extra_attempts": 101}, "extra_attempts", "At most"),
        ({"reason": "x" * 2001}, "reason", "under 2000"),
        ({}, None, NOTHING_CHANGED),
    ],
)
def test_bad_terms_are_refused_by_field_and_nothing_is_kept(exam, instructor, terms, field, words):
    with pytest.raises(AccommodationRefused) as refused:
        give(exam.quiz, UserFactory(), instructor, **terms)
    assert words in refused.value.problems[field]
    assert not QuizAccommodation.objects.exists()


def test_extra_minutes_or_attempts_need_a_limit_to_add_to(instructor, exam):
    Quiz.objects.filter(pk=exam.quiz.pk).update(time_limit_minutes=None, attempts_allowed=None)
    exam.quiz.refresh_from_db()
    with pytest.raises(AccommodationRefused) as refused:
        give(exam.quiz, UserFactory(), instructor, extra_minutes=10, extra_attempts=1)
    assert refused.value.problems == {
        "extra_minutes": "This quiz has no time limit to add minutes to.",
        "extra_attempts": "This quiz has no attempt limit to add attempts to.",
    }


def test_a_due_date_before_the_quiz_opens_is_refused(exam, instructor):
    Quiz.objects.filter(pk=exam.quiz.pk).update(opens_at=NOW)
    exam.quiz.refresh_from_db()
    with pytest.raises(AccommodationRefused) as refused:
        give(exam.quiz, UserFactory(), instructor, closes_at=NOW - timedelta(hours=1))
    assert "after the quiz opens (5 Dec 2026, 09:00 UTC)" in refused.value.problems["closes_at"]
    # The refusal names the time in the zone of whoever reads it.
    auckland = timezone.override(ZoneInfo("Pacific/Auckland"))
    with auckland, pytest.raises(AccommodationRefused) as refused:
        give(exam.quiz, UserFactory(), instructor, closes_at=NOW - timedelta(hours=1))
    assert "after the quiz opens (5 Dec 2026, 22:00 NZDT)" in refused.value.problems["closes_at"]


def test_only_the_course_instructors_may_set_or_remove(exam, instructor):
    learner = UserFactory()
    for outsider in (UserFactory(is_staff=True), learner):
        with pytest.raises(AccommodationNotAllowed):
            give(exam.quiz, learner, outsider, extra_minutes=5)
    kept = give(exam.quiz, learner, instructor, extra_minutes=5)
    with pytest.raises(AccommodationNotAllowed):
        accommodation_remove(accommodation=kept, by=learner)
    assert QuizAccommodation.objects.get().extra_minutes == 5


def test_setting_again_replaces_and_keeps_who_set_it_and_logs(exam, instructor, caplog):
    learner = UserFactory()
    give(exam.quiz, learner, instructor, extra_minutes=5, reason="a broken wrist")
    with caplog.at_level(logging.INFO, logger="softgrade.accommodations"):
        give(exam.quiz, learner, instructor, extra_minutes=20, reason="  an extension  ")
    row = QuizAccommodation.objects.get()
    assert (row.extra_minutes, row.reason) == (20, "an extension")
    assert (row.set_by, row.set_by_username) == (instructor, instructor.username)
    assert row.updated_at >= row.created_at
    record = caplog.records[-1]
    assert "accommodation changed" in record.getMessage()
    assert f"learner={learner.username}" in record.getMessage()
    assert f"by={instructor.username}" in record.getMessage()
