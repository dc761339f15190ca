"""Attempts at a quiz: start or resume, close when time runs out, submit, and rescore.

Every start asks one question first (attempt_start_or_resume): does the person starting teach
the quiz's course (may_preview)? Then what starts is a preview, counted nowhere
(grading/services/previews.py says what a preview is), wherever it is started: the quiz page,
the API, or the instructor's "Preview as a learner". Only learners' attempts count.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import partial
from typing import NamedTuple

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.module_loading import import_string

from courses import publishing
from courses.models import Quiz, QuizItem
from grading import accommodations, scores
from grading.accommodations import LearnerRules
from grading.models import Attempt
from grading.services import prepared
from grading.services.errors import AttemptClosed, AttemptLimitReached, QuizNotOpen
from grading.services.hooks import hooks_after_commit
from grading.services.prepared import starts_line_up
from grading.tasks import attempt_close_schedule


class AttemptStarted(NamedTuple):
    """What a start did: `created` is True only for the call that created the attempt."""

    attempt: Attempt
    created: bool


def attempt_in_progress(
    *, user: AbstractBaseUser, quiz: Quiz, now: datetime, preview: bool = False
) -> Attempt | None:
    """The learner's attempt in progress at the quiz (their preview in progress with
    `preview`), closed first if its time has run out."""
    current = Attempt.objects.filter(
        user=user, quiz=quiz, preview=preview, status=Attempt.Status.IN_PROGRESS
    ).first()
    if current is not None:
        current.quiz = quiz  # its grace period is the quiz's: no query for it
        attempt_expire_if_overdue(attempt=current, now=now)
        if current.status == Attempt.Status.IN_PROGRESS:
            return current
    return None


def attempt_create(
    *,
    user: AbstractBaseUser,
    quiz: Quiz,
    items: list[QuizItem],
    number: int,
    deadline: datetime | None,
    preview: bool = False,
) -> Attempt:
    """A new attempt in progress with its problems' variants; the caller decided it may start
    (inside its transaction, after starts_line_up)."""
    attempt = prepared.attempt_build(
        user=user,
        quiz=quiz,
        items=items,
        number=number,
        status=Attempt.Status.IN_PROGRESS,
        deadline=deadline,
        preview=preview,
    )
    _close_schedule(attempt)
    return attempt


def _close_schedule(attempt: Attempt) -> None:
    """Close the attempt at its close moment even if the learner never comes back
    (overdue.py); nothing for one without a deadline."""
    closes_at = attempt_closes_at(attempt)
    if closes_at is not None:
        transaction.on_commit(
            partial(attempt_close_schedule, attempt_id=attempt.pk, when=closes_at), robust=True
        )


def may_preview(*, user: AbstractBaseUser | AnonymousUser, quiz: Quiz) -> bool:
    """Does this user teach the quiz's course, so that what they start there is a preview:
    SOFTGRADE_PREVIEW_RULE's answer for an active user (grading never imports the app that
    knows course roles), or, without a rule, an active superuser."""
    if not user.is_authenticated or not user.is_active:
        return False
    path = getattr(settings, "SOFTGRADE_PREVIEW_RULE", None)
    if path is None:
        return bool(user.is_superuser)
    return bool(import_string(path)(user=user, quiz=quiz))


def preview_deadline(*, quiz: Quiz, now: datetime) -> datetime | None:
    """A preview's deadline: a learner's without accommodation (accommodations.attempt_deadline)
    while the quiz's close is ahead; after it, the time limit alone, since a learner would be
    past it too and the preview would end before it began."""
    if quiz.closes_at is not None and quiz.closes_at <= now:
        quiz = Quiz(time_limit_minutes=quiz.time_limit_minutes)
    rules = accommodations.rules_with(quiz=quiz, accommodation=None)
    return accommodations.attempt_deadline(rules=rules, started_at=now)


def preview_start_or_resume(
    *, user: AbstractBaseUser, quiz: Quiz, now: datetime, fresh: bool = False
) -> AttemptStarted:
    """The user's preview in progress, started if there is none; with `fresh`, a new one, the
    preview in progress submitted first (it counts nowhere, so nothing is lost). Unlimited, and
    open or closed alike; the caller decided the user may preview."""
    current = attempt_in_progress(user=user, quiz=quiz, now=now, preview=True)
    if current is not None and not fresh:
        return AttemptStarted(current, created=False)
    items = list(quiz.items.select_related("problem"))
    try:
        with transaction.atomic():
            starts_line_up(user=user)
            current = attempt_in_progress(user=user, quiz=quiz, now=now, preview=True)
            if current is not None and not fresh:
                return AttemptStarted(current, created=False)
            if current is not None:
                attempt_submit(attempt=current, now=now)
            last = Attempt.objects.previews().filter(user=user, quiz=quiz).aggregate(Max("number"))
            preview = attempt_create(
                user=user,
                quiz=quiz,
                items=items,
                number=(last["number__max"] or 0) + 1,
                deadline=preview_deadline(quiz=quiz, now=now),
                preview=True,
            )
            return AttemptStarted(preview, created=True)
    except IntegrityError:
        # A start that did not line up opened a preview at the same moment: resume it.
        current = attempt_in_progress(user=user, quiz=quiz, now=now, preview=True)
        if current is None:
            raise
        return AttemptStarted(current, created=False)


def attempt_start_or_resume(
    *, user: AbstractBaseUser, quiz: Quiz, now: datetime | None = None
) -> AttemptStarted:
    """Start an attempt, or resume the one in progress; enforces availability and the limit.

    Someone who teaches the quiz's course (may_preview) starts or resumes their preview
    instead, never an attempt of theirs that would count as a learner's: decided here, for the
    quiz page and the API alike.

    A learner's prepared attempt (grading/services/prepared.py, made when they opened the quiz
    page) is started by one guarded update, after the same checks; without one (or with one
    the quiz's items no longer fit) the attempt is made here.

    Of any number of simultaneous starts, exactly one starts the attempt and every other one
    resumes it: while an attempt is open no start is refused. A prepared attempt is started
    by the one update that finds it still prepared. Otherwise the decision is taken inside the
    transaction, after the learner's starts have lined up on their user row (a row lock on
    PostgreSQL; SQLite has one writer at a time), so the attempt in progress and the attempts
    used are read as the previous start left them. The unique in-progress and number constraints
    back this up for a writer that did not line up.
    """
    now = now or timezone.now()
    if may_preview(user=user, quiz=quiz):
        return preview_start_or_resume(user=user, quiz=quiz, now=now)
    current = attempt_in_progress(user=user, quiz=quiz, now=now)
    if current is not None:  # the common resume takes no lock
        return AttemptStarted(current, created=False)
    # In item order with their content: what the attempt is made of, its prepared key and
    # the publishing rule read them (one query).
    items = list(quiz.items.select_related("question", "problem", "pool").order_by("order", "id"))
    ready = prepared.prepared_attempt(user=user, quiz=quiz, items=items)
    if ready is not None:
        try:
            rules, used = _may_start(
                user=user, quiz=quiz, now=now, items=items, used=ready.attempts_used
            )
            started = _prepared_start(attempt=ready, rules=rules, used=used, now=now)
        except AttemptLimitReached:
            # A simultaneous start may have started it, using up the last attempt: resume it.
            started = False
            if attempt_in_progress(user=user, quiz=quiz, now=now) is None:
                raise
        if started:
            return AttemptStarted(ready, created=True)
        # Another start took it (or the slot) first: resume that attempt.
        current = attempt_in_progress(user=user, quiz=quiz, now=now)
        if current is not None:
            return AttemptStarted(current, created=False)
    try:
        with transaction.atomic():
            starts_line_up(user=user)
            current = attempt_in_progress(user=user, quiz=quiz, now=now)
            if current is not None:
                return AttemptStarted(current, created=False)
            rules, used = _may_start(user=user, quiz=quiz, now=now, items=items)
            # A prepared attempt made meanwhile (a page load) would hold the same number.
            prepared.prepared_discard(user=user, quiz=quiz)
            attempt = attempt_create(
                user=user,
                quiz=quiz,
                items=items,
                number=used + 1,
                deadline=accommodations.attempt_deadline(rules=rules, started_at=now),
            )
            return AttemptStarted(attempt, created=True)
    except IntegrityError:
        # A writer that did not line up on the user row took this number, or opened an attempt,
        # at the same moment: resume the attempt in progress rather than run two.
        current = attempt_in_progress(user=user, quiz=quiz, now=now)
        if current is not None:
            return AttemptStarted(current, created=False)
        raise AttemptLimitReached(
            "Another attempt was started at the same moment; reload the quiz."
        ) from None


def _may_start(
    *,
    user: AbstractBaseUser,
    quiz: Quiz,
    now: datetime,
    items: list[QuizItem],
    used: int | None = None,
) -> tuple[LearnerRules, int]:
    """The learner's rules and attempts used (`used` when the caller has read them), once every
    rule lets them start an attempt now; QuizNotOpen or AttemptLimitReached, saying why,
    otherwise."""
    # The learner's own rules: an accommodation may add minutes or attempts, or give a due
    # date of their own.
    rules = accommodations.learner_rules(quiz=quiz, user=user)
    problem = accommodations.availability_error(rules=rules, now=now)
    # Refused rather than started without the item: a learner never meets content its
    # instructor has not released (courses.publishing).
    problem = problem or publishing.start_refusal(quiz, items)
    if problem:
        raise QuizNotOpen(problem)
    if used is None:
        # Previews made before the user was a learner here use up no attempt.
        used = Attempt.objects.counted().filter(user=user, quiz=quiz).count()
    if not accommodations.attempts_left(rules=rules, used=used):
        allowed = rules.attempts_allowed
        raise AttemptLimitReached(
            f"You have used all {allowed} attempt{'s' if allowed != 1 else ''} at this quiz."
        )
    return rules, used


def _prepared_start(*, attempt: Attempt, rules: LearnerRules, used: int, now: datetime) -> bool:
    """Start a prepared attempt (prepared.prepared_start: one guarded update) with the clock
    the learner's rules give it, and schedule its close. True when this call started it."""
    deadline = accommodations.attempt_deadline(rules=rules, started_at=now)
    if not prepared.prepared_start(attempt=attempt, deadline=deadline, number=used + 1, now=now):
        return False
    _close_schedule(attempt)
    return True


def attempt_start(*, user: AbstractBaseUser, quiz: Quiz, now: datetime | None = None) -> Attempt:
    """The learner's attempt in progress at the quiz, started if there is none; for someone who
    teaches the quiz's course, their preview (see attempt_start_or_resume, for callers that must
    tell a new attempt from a resumed one)."""
    return attempt_start_or_resume(user=user, quiz=quiz, now=now).attempt


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
        return (
            "Time is up: this attempt was not submitted before it closed, so it has no score, "
            "as this quiz sets."
        )
    return "Time is up: this attempt closed at its deadline, and your saved answers were graded."


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
            "Time is up: the submission arrived after the attempt closed and was refused. "
            "This quiz gives an attempt not submitted in time no score."
        )
    return AttemptClosed(
        "Time is up: the submission arrived after the deadline and was refused. "
        "Your answers saved before the deadline have been graded."
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
