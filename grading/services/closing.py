"""Closing an attempt: its score recomputed from its answers, overrides and items, the moment
the server closes it, whether it still takes answers, closing it when its time ran out, and the
learner's submission. One path (`_close`) closes every attempt, by its learner or by the server,
so scoring and the LMS passback happen once.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from courses.models import Quiz
from grading import scores
from grading.models import Attempt
from grading.services.errors import AttemptClosed
from grading.services.hooks import hooks_after_commit


def attempt_rescore(*, attempt: Attempt, also_saved: tuple[str, ...] = ()) -> None:
    """Recompute the attempt's score and maximum from its responses, overrides and the quiz's
    items; `also_saved` names fields the caller changed, written in the same update.

    Submission, expiry, overrides and regrades call this, so the final score never rests on the
    running total each answer keeps up to date.
    """
    points = {item.id: item.points for item in attempt.quiz.items.all()}
    attempt.max_score = float(sum(points.values()))
    if attempt.status == Attempt.Status.NEVER_SUBMITTED:
        # Closed unsubmitted when time ran out, at a quiz that says so: no score, whatever its
        # saved answers (or a regrade of them) would give.
        attempt.score = 0.0
    else:
        attempt.score = scores.attempt_points(
            attempt=attempt,
            points=points,
            responses=attempt.responses.all(),
            overrides=scores.item_overrides(attempt=attempt),
        )
    attempt.save(update_fields=["score", "max_score", "updated_at", *also_saved])


def attempt_closes_at(attempt: Attempt) -> datetime | None:
    """When the server closes the attempt if its learner has not submitted it: its deadline
    (accommodations.attempt_deadline's, an accommodation included) plus the quiz's grace
    period; None without a deadline."""
    if attempt.deadline is None:
        return None
    return attempt.deadline + timedelta(minutes=attempt.quiz.grace_minutes)


def answers_accepted(*, attempt: Attempt, now: datetime) -> bool:
    """Does the attempt still take answers? Only while in progress and before its deadline: the
    grace period lets the learner submit, never answer."""
    if attempt.status != Attempt.Status.IN_PROGRESS:
        return False
    return attempt.deadline is None or now < attempt.deadline


def time_up_message(attempt: Attempt) -> str:
    """What a learner is told of an attempt the server closed when time ran out."""
    if attempt.status == Attempt.Status.NEVER_SUBMITTED:
        return gettext(
            "Time is up: this attempt was not submitted before it closed, so it has no score, "
            "as this quiz sets."
        )
    return gettext(
        "Time is up: this attempt closed at its deadline, and your saved answers were graded."
    )


# What closing an attempt changes (_close), copied to the caller's instance.
CLOSED_FIELDS = ("status", "submitted_at", "late", "score", "max_score", "updated_at")


def _close(*, locked: Attempt, status: str, closed_at: datetime, late: bool) -> None:
    """Close a locked attempt in progress: the one way an attempt is submitted, by its learner
    or by the server, so scoring and the LMS passback are the same and happen once (the row
    lock makes a second caller find it closed)."""
    locked.status = status
    locked.submitted_at = closed_at
    locked.late = late
    # One update closes and scores it (the score of one never submitted is 0 from its status).
    attempt_rescore(attempt=locked, also_saved=("status", "submitted_at", "late"))
    # One never submitted counts nowhere as a score: the LMS hears nothing of it.
    if status == Attempt.Status.SUBMITTED:
        hooks_after_commit("SOFTGRADE_ATTEMPT_SUBMITTED_HOOKS", attempt=locked)


def attempt_expire_if_overdue(*, attempt: Attempt, now: datetime | None = None) -> bool:
    """Close an attempt in progress whose time has run out (its deadline and the quiz's grace
    period are over), as the quiz chooses: submitted with the answers saved before the deadline
    (answers are refused from the deadline on, so every saved one counts), or never submitted,
    with no score. True when this call closed it."""
    now = now or timezone.now()
    # Before the deadline the quiz (for its grace period) is not even read.
    if attempt.status != Attempt.Status.IN_PROGRESS or not attempt.deadline:
        return False
    if now < attempt.deadline or now < attempt_closes_at(attempt):
        return False
    with transaction.atomic():
        locked = Attempt.objects.select_for_update().select_related("quiz").get(pk=attempt.pk)
        if locked.status != Attempt.Status.IN_PROGRESS:
            attempt.refresh_from_db()
            return False
        submit = locked.quiz.overdue_handling == Quiz.OverdueHandling.SUBMIT
        _close(
            locked=locked,
            status=Attempt.Status.SUBMITTED if submit else Attempt.Status.NEVER_SUBMITTED,
            closed_at=locked.deadline,
            late=True,
        )
    attempt.refresh_from_db()
    return True


def _late_submission_refused(attempt: Attempt) -> AttemptClosed:
    if attempt.status == Attempt.Status.NEVER_SUBMITTED:
        return AttemptClosed(
            gettext(
                "Time is up: the submission arrived after the attempt closed and was refused. "
                "This quiz gives an attempt not submitted in time no score."
            )
        )
    return AttemptClosed(
        gettext(
            "Time is up: the submission arrived after the deadline and was refused. "
            "Your answers saved before the deadline have been graded."
        )
    )


def attempt_submit(*, attempt: Attempt, now: datetime | None = None) -> Attempt:
    """Submit an attempt and grade it; once time has run out the submission is refused.

    Within the quiz's grace period after the deadline the learner may still submit (the
    answers saved before the deadline are graded). After it, a refused submission still closes
    the attempt as the quiz chooses, and says so; the learner loses nothing they had saved.
    """
    now = now or timezone.now()
    if attempt_expire_if_overdue(attempt=attempt, now=now) or attempt.late:
        raise _late_submission_refused(attempt)
    with transaction.atomic():
        locked = Attempt.objects.select_for_update().get(pk=attempt.pk)
        if locked.status != Attempt.Status.IN_PROGRESS:
            attempt.refresh_from_db()
            # The server closed it first (its sweep at the close moment): refused like a
            # submission that came later, so the learner hears what happened.
            if attempt.late:
                raise _late_submission_refused(attempt)
            return attempt
        # Its quiz as the caller read it moments ago (with the attempt): not read again to score.
        locked.quiz = attempt.quiz
        _close(locked=locked, status=Attempt.Status.SUBMITTED, closed_at=now, late=False)
    # What the close wrote, without reading the row back.
    for field in CLOSED_FIELDS:
        setattr(attempt, field, getattr(locked, field))
    return attempt
