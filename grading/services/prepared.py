"""Prepared attempts: everything an attempt is made of, made before its learner starts it.

A learner who opens a quiz page they could start from (before an exam opens, in its waiting
room, or at any time before starting) gets a prepared attempt: its number, its pool draws
(grading/draws.py), its problems' variants (grading/services/variants.py), its maximum and its
shuffle settings fixed, and no clock (no deadline). Starting it
(grading.services.attempts.attempt_start_or_resume) is then one guarded update that starts the
clock, so the work of making an attempt is not done at the instant a whole class starts.

A prepared attempt counts and shows nowhere (grading.models.started_attempt: only
Attempt.prepared reaches it), and one never started is deleted by
`manage.py delete_prepared_attempts` (prepared_attempts_sweep). If the quiz's items change
after it was made (items_key), the start discards it and makes the attempt afresh.

attempt_build is the one place an attempt's content is made, prepared or started at once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from courses.models import Quiz, QuizItem
from grading import accommodations, draws, policy, sheets
from grading.models import Attempt, QuizAccommodation, Variant
from grading.services.errors import ServiceError
from grading.services.variants import attempt_variant


def items_key(*, quiz: Quiz, items: Sequence[QuizItem]) -> str:
    """What an attempt made now of the quiz's items would be made of, as a short key: each
    item's id, order, points and content (a problem's family, parameters and tolerance: what
    its variant is made from), each pool's members, and the quiz's shuffle settings. A prepared
    attempt whose key differs from the one its start computes is stale.

    Call it with the items as read (before draws.attempt_draw hands pool items back as drawn).
    No query unless an item draws from a pool (then two, for the pools' members).
    """
    pools = sorted({item.pool_id for item in items if item.pool_id})
    members = draws.pool_members(pools) if pools else {}
    facts = {
        "shuffle": [quiz.shuffles_items, quiz.shuffles_choices],
        "items": [
            [
                item.pk,
                item.order,
                item.points,
                item.question_id,
                item.problem_id,
                item.pool_id,
                [item.problem.family, item.problem.params, item.problem.atol, item.problem.rtol]
                if item.problem_id
                else None,
            ]
            for item in sorted(items, key=lambda item: item.pk)
        ],
        "pools": [[pool, sorted(members.get(pool, []))] for pool in pools],
    }
    text = json.dumps(facts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def starts_line_up(*, user: AbstractBaseUser) -> None:
    """Queue this user's starts (and preparations) behind each other, inside the caller's
    transaction: a row lock on the user (PostgreSQL; SQLite has one writer at a time). FOR NO
    KEY UPDATE queues them but not behind the key-share locks their answers' inserts take on
    the same row."""
    list(
        get_user_model().objects.select_for_update(no_key=True).filter(pk=user.pk).values_list("pk")
    )


def attempt_build(
    *,
    user: AbstractBaseUser,
    quiz: Quiz,
    items: list[QuizItem],
    number: int,
    status: str,
    deadline: datetime | None,
    preview: bool = False,
    prepared_key: str = "",
) -> Attempt:
    """A new attempt with its draws and its problems' variants, prepared or in progress as
    `status` says; the caller decided it may exist (inside its transaction)."""
    attempt = Attempt.objects.create(
        user=user,
        quiz=quiz,
        number=number,
        status=status,
        deadline=deadline,
        # A pool item is one drawn entry worth its points (grading/draws.py).
        max_score=float(sum(item.points for item in items)),
        shuffle_items=quiz.shuffles_items,
        shuffle_choices=quiz.shuffles_choices,
        preview=preview,
        prepared_key=prepared_key,
    )
    # Drawn after the attempt exists: the draw is keyed by it, and hands the pool items back
    # as drawn, so their problems get variants below (grading/draws.py).
    draws.attempt_draw(attempt=attempt, items=items)
    Variant.objects.bulk_create(
        [attempt_variant(attempt, item, user) for item in items if item.problem_id]
    )
    # The attempt's draws and variants exist from here, so its exam sheet is rendered and stored
    # now (grading/sheets.py): for a prepared attempt that is before the exam opens, and the
    # first page after the start is a read. A page with feedback at once is rendered per request.
    if not policy.immediate_feedback(quiz):
        sheets.sheet_store(attempt=attempt)
    return attempt


def prepared_attempt(
    *, user: AbstractBaseUser, quiz: Quiz, items: Sequence[QuizItem]
) -> Attempt | None:
    """The learner's prepared attempt at the quiz, if it still fits the quiz's items (`items`,
    as read now); a stale one is deleted. It carries `attempts_used`, the learner's attempts
    that count at the quiz, read in the same query (the start's limit check needs them). One
    query, and the pools' two when there are any."""
    used = (
        Attempt.objects.counted()
        .filter(user=OuterRef("user"), quiz=OuterRef("quiz"))
        .order_by()
        .values("quiz")
        .annotate(count=Count("pk"))
        .values("count")
    )
    found = (
        Attempt.prepared.filter(user=user, quiz=quiz, preview=False)
        .annotate(attempts_used=Coalesce(Subquery(used), 0))
        .first()
    )
    if found is None:
        return None
    if found.prepared_key != items_key(quiz=quiz, items=items):
        _prepared_delete(Attempt.prepared.filter(pk=found.pk))
        return None
    found.quiz = quiz  # no query for it later
    return found


def attempt_prepare(
    *, user: AbstractBaseUser, quiz: Quiz, now: datetime | None = None
) -> Attempt | None:
    """The learner's prepared attempt at the quiz, made if they have none (or only a stale
    one) and could start one now or once the quiz opens: no attempt in progress, an attempt
    left, the quiz not closed for them. None otherwise, or when it cannot be made (a pool too
    small: the start then says why).

    For learners only: the caller decided the user does not preview the quiz
    (grading.services.attempts.may_preview). Idempotent: two page loads at the same moment line
    up on the user's row (as starts do) and make one prepared attempt between them.
    """
    now = now or timezone.now()
    items = list(quiz.items.select_related("problem"))
    found = prepared_attempt(user=user, quiz=quiz, items=items)
    if found is not None:
        return found
    key = items_key(quiz=quiz, items=items)
    try:
        with transaction.atomic():
            starts_line_up(user=user)
            found = Attempt.prepared.filter(user=user, quiz=quiz, preview=False).first()
            if found is not None:
                return found
            rules = accommodations.learner_rules(quiz=quiz, user=user)
            counts = (
                Attempt.objects.counted()
                .filter(user=user, quiz=quiz)
                .aggregate(
                    used=Count("pk"),
                    open=Count("pk", filter=Q(status=Attempt.Status.IN_PROGRESS)),
                )
            )
            if (
                counts["open"]
                or not accommodations.attempts_left(rules=rules, used=counts["used"])
                or (rules.closes_at is not None and now >= rules.closes_at)
            ):
                return None
            return attempt_build(
                user=user,
                quiz=quiz,
                items=items,
                number=counts["used"] + 1,
                status=Attempt.Status.PREPARED,
                deadline=None,
                prepared_key=key,
            )
    except ServiceError:
        return None
    except IntegrityError:
        # A writer that did not line up took the number or prepared one: use theirs, if any.
        return Attempt.prepared.filter(user=user, quiz=quiz, preview=False).first()


def prepared_start(
    *, attempt: Attempt, deadline: datetime | None, number: int, now: datetime
) -> bool:
    """Start a prepared attempt: one update, guarded by its status, so of simultaneous starts
    exactly one finds it prepared. It starts the clock (`deadline`: the caller's, from the
    learner's rules) and takes `number`, the next of the learner's. True when this call
    started it (the instance then says so); the caller checked every rule first."""
    fields = {
        "status": Attempt.Status.IN_PROGRESS,
        "started_at": now,
        "deadline": deadline,
        "number": number,
        "updated_at": now,
    }
    guarded = Attempt.prepared.filter(pk=attempt.pk)
    try:
        if transaction.get_autocommit():
            # One statement, atomic by itself: no transaction around it.
            started = guarded.update(**fields)
        else:
            # Inside a caller's transaction, a savepoint keeps it usable after a refusal.
            with transaction.atomic():
                started = guarded.update(**fields)
    except IntegrityError:
        # A start that made an attempt afresh at the same moment holds the in-progress slot
        # or the number (unique constraints).
        return False
    if not started:
        return False
    for name, value in fields.items():
        setattr(attempt, name, value)
    return True


def prepared_discard(*, user: AbstractBaseUser, quiz: Quiz) -> None:
    """Delete the learner's prepared attempt at the quiz (a start that makes the attempt
    afresh calls it first, inside its transaction, so the two never hold one number)."""
    _prepared_delete(Attempt.prepared.filter(user=user, quiz=quiz, preview=False))


def quiz_prepared_discard(*, quiz: Quiz) -> int:
    """Delete every prepared attempt at the quiz (before its items are removed: their draws
    and variants name them); returns how many. Learners' next page load or start makes theirs
    afresh."""
    return _prepared_delete(Attempt.prepared.filter(quiz=quiz))


def prepared_attempts_sweep(*, now: datetime | None = None, days: int | None = None) -> int:
    """Delete, with their draws and variants, the prepared attempts never started that were
    made more than `days` ago (SOFTGRADE_PREPARED_ATTEMPT_DAYS) or whose quiz has closed for
    their learner (their own due date, or the quiz's without one); returns how many."""
    now = now or timezone.now()
    days = settings.SOFTGRADE_PREPARED_ATTEMPT_DAYS if days is None else days
    theirs = QuizAccommodation.objects.filter(quiz=OuterRef("quiz"), learner=OuterRef("user"))
    closed = Exists(theirs.filter(closes_at__lte=now)) | (
        Q(quiz__closes_at__lte=now) & ~Exists(theirs.filter(closes_at__isnull=False))
    )
    old = Q(started_at__lt=now - timedelta(days=days))
    return _prepared_delete(Attempt.prepared.filter(old | closed))


def _prepared_delete(rows: QuerySet[Attempt]) -> int:
    """Delete these prepared attempts with their draws and variants; returns how many.

    Their rows are locked first, and only those still prepared then are deleted: a delete by
    itself reads the rows, then deletes them by id, and would take an attempt that a start
    turned in progress in between. Locked, a start's guarded update waits and then finds the
    row gone (it makes the attempt afresh), or this finds it started and leaves it.
    """
    with transaction.atomic():
        ids = list(rows.select_for_update(of=("self",)).values_list("pk", flat=True))
        if not ids:
            return 0
        _, deleted = Attempt.prepared.filter(pk__in=ids).delete()
    return deleted.get(Attempt._meta.label, 0)
