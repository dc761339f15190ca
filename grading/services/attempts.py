"""Attempts at a quiz: start or resume (closing and submitting: grading/services/closing.py).

Every start asks one question first (attempt_start_or_resume): does the person starting teach
the quiz's course (may_preview)? Then what starts is a preview, counted nowhere
(grading/services/previews.py says what a preview is), wherever it is started: the quiz page,
the API, or the instructor's "Preview as a learner". Only learners' attempts count.
"""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import NamedTuple

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.module_loading import import_string
from django.utils.translation import gettext, ngettext

from courses import publishing
from courses.models import Quiz, QuizItem
from grading import accommodations
from grading.accommodations import LearnerRules
from grading.models import Attempt
from grading.services import prepared
from grading.services.closing import attempt_closes_at, attempt_expire_if_overdue, attempt_submit
from grading.services.errors import AttemptLimitReached, QuizNotOpen
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
            gettext("Another attempt was started at the same moment; reload the quiz.")
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
            ngettext(
                "You have used all %(count)d attempt at this quiz.",
                "You have used all %(count)d attempts at this quiz.",
                allowed,
            )
            % {"count": allowed}
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
