"""The rules one learner is held to at one quiz: the quiz's own, changed by an accommodation.

An instructor may give a learner extra minutes, extra attempts or a due date of their own
(grading.accommodation_models.QuizAccommodation, set through grading/services/accommodations.py).
`learner_rules` is the only place that applies one, and every rule a learner is held to asks it:
starting an attempt (the quiz closed? the attempt limit?), the attempt's deadline (so expiry,
the late flag, a refused late submission and paused practice follow), the quiz page's facts and
the API's rules. When correct answers are released "after the quiz closes", they wait for the
latest due date anyone has (`answers_release_at`), so a learner still answering never finds the
answer key in a classmate's results.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Max
from django.utils.translation import gettext

from accounts.moments import moment_text
from courses.models import Quiz
from grading.accommodation_models import QuizAccommodation


@dataclass(frozen=True)
class LearnerRules:
    """A quiz's limits for one learner, an accommodation applied (the quiz's own without one)."""

    time_limit_minutes: int | None  # None: no limit
    attempts_allowed: int | None  # None: unlimited
    opens_at: datetime | None
    closes_at: datetime | None  # the learner's due date: theirs if they have one
    extra_minutes: int = 0
    extra_attempts: int = 0
    own_due_date: bool = False  # closes_at is the learner's own, not the quiz's
    quiz_closes_at: datetime | None = None

    @property
    def accommodated(self) -> bool:
        return bool(self.extra_minutes or self.extra_attempts or self.own_due_date)


def rules_with(*, quiz: Quiz, accommodation: QuizAccommodation | None) -> LearnerRules:
    """The quiz's rules with the accommodation applied (pure: no query)."""
    if accommodation is None:
        return LearnerRules(
            time_limit_minutes=quiz.time_limit_minutes,
            attempts_allowed=quiz.attempts_allowed,
            opens_at=quiz.opens_at,
            closes_at=quiz.closes_at,
            quiz_closes_at=quiz.closes_at,
        )
    # Extra minutes or attempts only add to a limit; without a limit there is nothing to add to.
    minutes = quiz.time_limit_minutes
    extra_minutes = accommodation.extra_minutes if minutes else 0
    attempts = quiz.attempts_allowed
    extra_attempts = accommodation.extra_attempts if attempts else 0
    own_due = accommodation.closes_at is not None
    return LearnerRules(
        time_limit_minutes=minutes + extra_minutes if minutes else None,
        attempts_allowed=attempts + extra_attempts if attempts else None,
        opens_at=quiz.opens_at,
        closes_at=accommodation.closes_at if own_due else quiz.closes_at,
        extra_minutes=extra_minutes,
        extra_attempts=extra_attempts,
        own_due_date=own_due,
        quiz_closes_at=quiz.closes_at,
    )


def learner_accommodation(*, quiz: Quiz, user: AbstractBaseUser) -> QuizAccommodation | None:
    """The learner's accommodation at the quiz, if any (one query; none for anonymous users)."""
    if not user.is_authenticated:
        return None
    return QuizAccommodation.objects.filter(quiz=quiz, learner=user).first()


def learner_rules(*, quiz: Quiz, user: AbstractBaseUser) -> LearnerRules:
    """The rules this learner is held to at this quiz now (one query)."""
    return rules_with(quiz=quiz, accommodation=learner_accommodation(quiz=quiz, user=user))


def availability_error(*, rules: LearnerRules, now: datetime) -> str | None:
    """Why the learner cannot start an attempt now, or None."""
    if rules.opens_at and now < rules.opens_at:
        return gettext("This quiz opens at %(moment)s.") % {"moment": moment_text(rules.opens_at)}
    if rules.closes_at and now >= rules.closes_at:
        return gettext("This quiz closed at %(moment)s.") % {"moment": moment_text(rules.closes_at)}
    return None


def time_until_open(*, rules: LearnerRules, now: datetime) -> timedelta | None:
    """How long until the quiz opens for the learner; None once it has (or without an
    opening time)."""
    if rules.opens_at is None or now >= rules.opens_at:
        return None
    return rules.opens_at - now


def attempts_left(*, rules: LearnerRules, used: int) -> bool:
    """May the learner start another attempt, having used `used`?"""
    return rules.attempts_allowed is None or used < rules.attempts_allowed


def attempt_deadline(*, rules: LearnerRules, started_at: datetime) -> datetime | None:
    """When an attempt started at `started_at` closes: at the end of the learner's time limit
    or at their due date, whichever comes first; None when there is neither."""
    deadline = None
    if rules.time_limit_minutes:
        deadline = started_at + timedelta(minutes=rules.time_limit_minutes)
    if rules.closes_at and (deadline is None or rules.closes_at < deadline):
        deadline = rules.closes_at
    return deadline


def _released_at(quiz: Quiz, latest_own: datetime | None) -> datetime | None:
    """The release moment of an "after close" quiz, given the latest own due date at it."""
    if quiz.release_answers != Quiz.AnswerRelease.AFTER_CLOSE or quiz.closes_at is None:
        return None
    return max(quiz.closes_at, latest_own) if latest_own else quiz.closes_at


def answers_release_at(quiz: Quiz) -> datetime | None:
    """When a quiz that releases correct answers after it closes releases them to its
    learners: at its closing time, or at the latest due date an accommodation gives, whichever
    is later. None (and no query) for a quiz that releases them otherwise.

    One moment for everyone, not each learner's own due date: answers released to classmates
    at the quiz's close would reach a learner who may still answer until a later due date.
    """
    if _released_at(quiz, None) is None:
        return None
    latest = QuizAccommodation.objects.filter(quiz=quiz).aggregate(latest=Max("closes_at"))
    return _released_at(quiz, latest["latest"])


def answers_release_times(quizzes: Iterable[Quiz]) -> dict[int, datetime | None]:
    """answers_release_at of each quiz by id, in one query at most (for lists)."""
    quizzes = list(quizzes)
    after_close = [quiz.pk for quiz in quizzes if _released_at(quiz, None) is not None]
    latest = {}
    if after_close:
        latest = dict(
            QuizAccommodation.objects.filter(quiz_id__in=after_close)
            .values("quiz_id")
            .annotate(latest=Max("closes_at"))
            .values_list("quiz_id", "latest")
        )
    return {quiz.pk: _released_at(quiz, latest.get(quiz.pk)) for quiz in quizzes}


class ReleaseTimes:
    """answers_release_at per quiz, each looked up once (for pages that list many attempts)."""

    def __init__(self) -> None:
        self._by_quiz: dict[int, datetime | None] = {}

    def __call__(self, quiz: Quiz) -> datetime | None:
        if quiz.pk not in self._by_quiz:
            self._by_quiz[quiz.pk] = answers_release_at(quiz)
        return self._by_quiz[quiz.pk]
