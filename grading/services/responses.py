"""Answers to the items of an attempt: one at a time (response_submit) or a whole sheet.

Grading happens before any row is written: the engine is pure and needs no lock, and SQLite allows
one writer at a time, so holding the write lock across grading would halve throughput.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from courses.models import Quiz, QuizItem
from grading import engine, policy, scores
from grading.models import Attempt, Response, Variant
from grading.services.attempts import attempt_expire_if_overdue
from grading.services.errors import AttemptClosed, IdempotencyConflict, NoTriesLeft, ServiceError
from grading.services.replays import (
    DOUBLE_SUBMIT_WINDOW,
    answer_fingerprint,
    mark_replayed,
    replay_of_key,
)
from grading.services.verdicts import question_grade, variant_grade, verdict_fields


def tries_used(*, attempt: Attempt, item: QuizItem) -> int:
    return Response.objects.filter(attempt=attempt, quiz_item=item, counts_as_try=True).count()


def response_submit(
    *,
    attempt: Attempt,
    item: QuizItem,
    text: str = "",
    choice_ids: Sequence[int] = (),
    idempotency_key: str = "",
    now: datetime | None = None,
    variant: Variant | None = None,
) -> Response:
    """Record one answer to one item of an attempt, graded on the stored variant.

    With immediate feedback every graded answer is a try, up to the quiz's tries per item. Without
    it (exams) an answer is saved, the latest one counts, and it is graded the same way but shown
    only when the policy allows; saving again costs nothing. Invalid input never costs a try.
    A caller that already fetched the item's variant (with its attempt) passes it.
    """
    now = now or timezone.now()
    if item.quiz_id != attempt.quiz_id:
        raise ServiceError("That item is not part of this quiz.")
    if variant is not None and (variant.attempt_id, variant.quiz_item_id) != (attempt.pk, item.pk):
        raise ServiceError("That variant belongs to another item or attempt.")
    fingerprint = answer_fingerprint("attempt", attempt.pk, item.pk, text, sorted(choice_ids))
    graded = None
    for _ in range(3):
        attempt_expire_if_overdue(attempt=attempt, now=now)
        if attempt.status != Attempt.Status.IN_PROGRESS:
            if attempt.late:
                raise AttemptClosed(
                    "Time is up: this answer arrived after the deadline and was not saved. "
                    "Your saved answers have been graded."
                )
            raise AttemptClosed("This attempt has been submitted; answers can no longer change.")
        if graded is None:
            if item.problem_id:
                variant = variant or Variant.objects.get(attempt=attempt, quiz_item=item)
                graded = variant_grade(variant=variant, text=text)
            else:
                graded = question_grade(question=item.question, choice_ids=choice_ids)
        try:
            return _response_record(
                attempt=attempt,
                item=item,
                variant=variant,
                graded=graded,
                text=text,
                choice_ids=choice_ids,
                idempotency_key=idempotency_key,
                fingerprint=fingerprint,
                now=now,
            )
        except IntegrityError:
            # The key was used before (a concurrent twin, or an earlier answer this read did
            # not cover): the first row is the answer.
            replay = replay_of_key(
                user=attempt.user_id, idempotency_key=idempotency_key, fingerprint=fingerprint
            )
            if replay is None:
                raise
            return replay
        except _AttemptChanged:
            # Another answer or a submission got in between: read the attempt and decide again.
            attempt.refresh_from_db()
    raise ServiceError("Too many answers arrived at the same moment; please send yours again.")


def _tries_refusal(
    *, quiz: Quiz, immediate: bool, graded: engine.Verdict, earlier: Sequence[Response]
) -> str:
    """Why the quiz refuses another try at an item, or "" when it takes it (only quizzes with
    immediate feedback count tries)."""
    if graded.status == "invalid" or not immediate:
        return ""
    if scores.solved(earlier):
        return "You have already answered this item correctly."
    if scores.tries_left(quiz=quiz, tries=earlier) == 0:
        return (
            f"No tries left: this item allows {quiz.tries_per_item} "
            f"tr{'y' if quiz.tries_per_item == 1 else 'ies'}."
        )
    return ""


class _AttemptChanged(Exception):
    """The attempt changed after it was read, so a score computed from that read is stale."""


def _tries_and_key(*, attempt: Attempt, item: QuizItem, idempotency_key: str) -> list[Response]:
    """The item's counted tries in the attempt, oldest first, and the learner's earlier answer
    under the idempotency key when one is given: one read serves the replay check and the tries
    rules."""
    wanted = Q(attempt=attempt, quiz_item=item, counts_as_try=True)
    if idempotency_key:
        wanted |= Q(user_id=attempt.user_id, idempotency_key=idempotency_key)
    return list(Response.objects.filter(wanted).order_by("created_at", "id"))


def _response_record(
    *,
    attempt: Attempt,
    item: QuizItem,
    variant: Variant | None,
    graded: engine.Verdict,
    text: str,
    choice_ids: Sequence[int],
    idempotency_key: str,
    fingerprint: str,
    now: datetime,
) -> Response:
    """Apply the tries rules and write one graded answer with the attempt's new score.

    One read, before any lock is taken, serves the idempotency check and the tries rules. The
    write is then as short as it can be (SQLite has one writer at a time): move the attempt's
    score by what this item's score changed, only if the attempt is unchanged since it was read
    (an UPDATE filtered on its updated_at), and insert the answer, in one transaction. Every
    counted answer and every submission changes the attempt, so an answer or a submission that
    got in between makes the update miss; nothing is written and _AttemptChanged tells the
    caller to read again. Two answers racing for the last try cannot both count, and the score
    stays the sum over the items that a full rescore would give. A key used at the same moment
    by a twin is caught by its unique constraint (IntegrityError, and the caller replays).
    """
    seen = attempt.updated_at
    rows = _tries_and_key(attempt=attempt, item=item, idempotency_key=idempotency_key)
    for row in rows:
        if idempotency_key and row.idempotency_key == idempotency_key:
            if row.request_fingerprint != fingerprint:
                raise IdempotencyConflict(
                    "This Idempotency-Key was already used for a different answer; use a new key."
                )
            return mark_replayed(row)
    earlier = [
        row
        for row in rows
        if row.attempt_id == attempt.pk and row.quiz_item_id == item.pk and row.counts_as_try
    ]
    if (
        earlier
        and earlier[-1].request_fingerprint == fingerprint
        and now - earlier[-1].created_at < DOUBLE_SUBMIT_WINDOW
    ):
        return mark_replayed(earlier[-1])
    immediate = policy.immediate_feedback(attempt.quiz)
    refusal = _tries_refusal(quiz=attempt.quiz, immediate=immediate, graded=graded, earlier=earlier)
    if refusal:
        raise NoTriesLeft(refusal)
    response = Response(
        idempotency_key=idempotency_key,
        request_fingerprint=fingerprint,
        user_id=attempt.user_id,
        attempt=attempt,
        quiz_item=item,
        variant=variant,
        question=item.question if variant is None else None,
        text=text,
        **verdict_fields(graded),
    )
    score = changed_at = None
    picked = set(choice_ids) if graded.status != "invalid" else set()
    # A duplicate key raises IntegrityError with nothing written, and the caller replays.
    with transaction.atomic():
        if response.counts_as_try:
            before = scores.item_score(immediate=immediate, tries=earlier)
            after = scores.item_score(immediate=immediate, tries=[*earlier, response])
            score = attempt.score + item.points * (after - before)
            # The clock at the write, not the request's start: a retry may have read an
            # attempt written after the request began, and updated_at must only move forward
            # for the LMS's incremental grade sync.
            changed_at = timezone.now()
            moved = Attempt.objects.filter(pk=attempt.pk, updated_at=seen).update(
                score=score, updated_at=changed_at
            )
            if not moved:
                raise _AttemptChanged
        response.save(force_insert=True)
        if picked:
            Response.choices.through.objects.bulk_create(
                [Response.choices.through(response=response, choice_id=i) for i in picked]
            )
    if response.counts_as_try:
        attempt.score, attempt.updated_at = score, changed_at
    return response


@dataclass(frozen=True)
class SheetAnswer:
    """What a learner entered for one item of a sheet: typed text, or the choices picked."""

    text: str = ""
    choice_ids: tuple[int, ...] = ()

    @property
    def blank(self) -> bool:
        return not self.text.strip() and not self.choice_ids


def attempt_answers_save(
    *,
    attempt: Attempt,
    answers: dict[int, SheetAnswer],
    idempotency_key: str = "",
    now: datetime | None = None,
) -> dict[int, Response]:
    """Save a page of answers (quiz item id → answer): each changed, non-blank one once.

    A blank answer or one equal to the answer already saved for its item is skipped, so saving a
    page again records nothing new; each item gets its own key (`<key>:<item id>`), so a double
    click saves each answer once. Returns the response recorded per item.

    The sheet is one transaction: a refusal or a database that fails half way saves none of it,
    so a learner who sends it again never finds part of a sheet saved. An attempt past its
    deadline is closed (its saved answers graded) before that transaction, so the closing stays
    when the late sheet is refused.
    """
    now = now or timezone.now()
    items = {item.pk: item for item in attempt.quiz.items.select_related("question", "problem")}
    unknown = set(answers) - set(items)
    if unknown:
        raise ServiceError("That item is not part of this quiz.")
    attempt_expire_if_overdue(attempt=attempt, now=now)
    saved: dict[int, tuple[str, list[int]]] = {}
    for response in (
        Response.objects.filter(attempt=attempt, counts_as_try=True)
        .prefetch_related("choices")
        .order_by("created_at", "id")
    ):
        saved[response.quiz_item_id] = (
            response.text,
            sorted(choice.pk for choice in response.choices.all()),
        )
    recorded: dict[int, Response] = {}
    with transaction.atomic():
        for item_id, answer in answers.items():
            if answer.blank:
                continue
            if saved.get(item_id) == (answer.text, sorted(answer.choice_ids)):
                continue
            recorded[item_id] = response_submit(
                attempt=attempt,
                item=items[item_id],
                text=answer.text,
                choice_ids=list(answer.choice_ids),
                idempotency_key=f"{idempotency_key}:{item_id}" if idempotency_key else "",
                now=now,
            )
    return recorded
