"""The sweep and a learner's own late submit at the same moment, on PostgreSQL: the attempt is
submitted once and the LMS told once, whichever gets the row lock first (the races run in
threads with their own connections, tests/api/test_concurrency)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from django.utils import timezone

from courses.models import Quiz
from grading.models import Attempt
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_closes_at, attempt_submit
from grading.services.errors import AttemptClosed
from grading.services.overdue import overdue_attempts_close
from grading.services.responses import response_submit
from tests.api.test_concurrency import pytestmark as race_marks
from tests.api.test_concurrency import simultaneously
from tests.factories import UserFactory
from tests.grading.exam_records import Exam, exam_build

pytestmark = race_marks

ROUNDS = 6


def _exam(grace: int) -> Exam:
    exam = exam_build()
    Quiz.objects.filter(pk=exam.quiz.pk).update(time_limit_minutes=60, grace_minutes=grace)
    exam.quiz.refresh_from_db()
    return exam


def _left_open(exam: Exam) -> Attempt:
    """Started 70 minutes ago with the right choice saved (2 points): its hour is over."""
    started = timezone.now() - timedelta(minutes=70)
    attempt = attempt_start(user=UserFactory(), quiz=exam.quiz, now=started)
    response_submit(
        attempt=attempt,
        item=exam.question_item,
        choice_ids=[exam.choices["A"].pk],
        now=started + timedelta(minutes=5),
    )
    return attempt


def _race(attempt: Attempt, *, submit_at, sweep_at):
    def sweep():
        return overdue_attempts_close(quiz=attempt.quiz, now=sweep_at)

    def submit():
        # Each request reads its own attempt, as each page request does.
        try:
            attempt_submit(attempt=Attempt.objects.get(pk=attempt.pk), now=submit_at)
        except AttemptClosed:
            return "refused"
        return "submitted"

    return simultaneously(sweep, submit)


def test_the_sweep_and_a_submit_after_the_close_submit_once_and_pass_back_once(hook_calls):
    exam = _exam(grace=0)
    for _ in range(ROUNDS):
        attempt = _left_open(exam)
        now = timezone.now()
        swept, submitted = _race(attempt, submit_at=now, sweep_at=now)
        # Too late either way: the learner is told so, whoever closed it.
        assert submitted == "refused"
        assert swept in (0, 1)
        closed = Attempt.objects.get(pk=attempt.pk)
        assert (closed.status, closed.late, closed.score) == (Attempt.Status.SUBMITTED, True, 2.0)
        assert closed.submitted_at == closed.deadline
    assert sorted(Counter(hook_calls).values()) == [1] * ROUNDS


def test_a_submit_in_the_last_second_of_grace_and_the_sweep_at_the_close_submit_once(hook_calls):
    exam = _exam(grace=15)
    for _ in range(ROUNDS):
        attempt = _left_open(exam)
        closes_at = attempt_closes_at(attempt)
        swept, submitted = _race(
            attempt, submit_at=closes_at - timedelta(seconds=1), sweep_at=closes_at
        )
        closed = Attempt.objects.get(pk=attempt.pk)
        assert (closed.status, closed.score) == (Attempt.Status.SUBMITTED, 2.0)
        # Whoever locked the row first closed it; the other found it closed.
        if submitted == "submitted":
            assert (swept, closed.late) == (0, False)
        else:
            assert (swept, closed.late, closed.submitted_at) == (1, True, closed.deadline)
    assert sorted(Counter(hook_calls).values()) == [1] * ROUNDS
