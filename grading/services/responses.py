"""Answers to the items of an attempt: one at a time (response_submit) or a whole sheet.

Grading happens before any row is written: the engine is pure and needs no lock, and SQLite allows
one writer at a time, so holding the write lock across grading would halve throughput. Both ways
read what the rules need first, decide each answer with the same rules (_answer_decide), and
then write in one short transaction (_answers_write) that an answer or a submission getting in
between makes miss, so the caller reads again.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import Prefetch, Q
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop, ngettext

from courses.models import Choice, Quiz, QuizItem
from grading import draws, engine, policy, scores
from grading.models import Attempt, Response, Variant
from grading.services.closing import answers_accepted, attempt_expire_if_overdue
from grading.services.errors import AttemptClosed, NoTriesLeft, ServiceError
from grading.services.replays import (
    DOUBLE_SUBMIT_WINDOW,
    answer_fingerprint,
    keyed_replay,
    mark_replayed,
    replay_of_key,
)
from grading.services.verdicts import question_grade, variant_grade, verdict_fields

RETRIES = 3  # reads and decisions before an answer or a sheet gives up as too busy
TOO_BUSY = gettext_noop("Too many answers arrived at the same moment; please send yours again.")


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
    decimal: str = ".",
) -> Response:
    """Record one answer to one item of an attempt, graded on the stored variant.

    With immediate feedback every graded answer is a try, up to the quiz's tries per item. Without
    it (exams) an answer is saved, the latest one counts, and it is graded the same way but shown
    only when the policy allows; saving again costs nothing. Invalid input never costs a try.
    A caller that already fetched the item's variant (with its attempt) passes it; a page passes
    its decimal separator (decimal: grading.locale_numbers), the API keeps ".".
    """
    now = now or timezone.now()
    if item.quiz_id != attempt.quiz_id:
        raise ServiceError(gettext("That item is not part of this quiz."))
    if variant is not None and (variant.attempt_id, variant.quiz_item_id) != (attempt.pk, item.pk):
        raise ServiceError(gettext("That variant belongs to another item or attempt."))
    if item.pool_id and not (item.question_id or item.problem_id):
        draws.items_as_drawn(attempt=attempt, items=[item])
    fingerprint = answer_fingerprint("attempt", attempt.pk, item.pk, text, sorted(choice_ids))
    graded = None
    for _ in range(RETRIES):
        _attempt_open(attempt=attempt, now=now)
        if graded is None:
            if item.problem_id:
                variant = variant or Variant.objects.get(attempt=attempt, quiz_item=item)
                graded = variant_grade(variant=variant, text=text, decimal=decimal)
            else:
                graded = question_grade(question=item.question, choice_ids=choice_ids)
        try:
            # One read, before any lock is taken, serves the idempotency check and the tries
            # rules.
            counted, keyed = _rules_read(attempt=attempt, keys=[idempotency_key], item=item)
            decided = _answer_decide(
                attempt=attempt,
                item=item,
                variant=variant,
                graded=graded,
                text=text,
                choice_ids=choice_ids,
                idempotency_key=idempotency_key,
                fingerprint=fingerprint,
                keyed=keyed.get(idempotency_key) if idempotency_key else None,
                earlier=counted.get(item.pk, []),
                now=now,
            )
            if decided.new:
                _answers_write(attempt=attempt, answers=[decided])
            return decided.response
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
    raise ServiceError(gettext(TOO_BUSY))


def _attempt_open(*, attempt: Attempt, now: datetime) -> None:
    """Refuse an answer to an attempt that is closed, closing it first if its time is up (the
    closing commits on its own, so it stays when the answer is refused)."""
    attempt_expire_if_overdue(attempt=attempt, now=now)
    if answers_accepted(attempt=attempt, now=now):
        return
    if attempt.status == Attempt.Status.SUBMITTED and not attempt.late:
        raise AttemptClosed(
            gettext("This attempt has been submitted; answers can no longer change.")
        )
    if attempt.status == Attempt.Status.NEVER_SUBMITTED:
        then = gettext("This attempt was not submitted in time and has no score.")
    elif attempt.status == Attempt.Status.IN_PROGRESS:
        # In progress past the deadline: the quiz's grace period, for submitting only.
        then = gettext("Submit the attempt now: the answers saved before the deadline are graded.")
    else:
        then = gettext("Your saved answers have been graded.")
    raise AttemptClosed(
        gettext("Time is up: this answer arrived after the deadline and was not saved. %(then)s")
        % {"then": then}
    )


def _tries_refusal(
    *, quiz: Quiz, immediate: bool, graded: engine.Verdict, earlier: Sequence[Response]
) -> str:
    """Why the quiz refuses another try at an item, or "" when it takes it (only quizzes with
    immediate feedback count tries)."""
    if graded.status == "invalid" or not immediate:
        return ""
    if scores.solved(earlier):
        return gettext("You have already answered this item correctly.")
    if scores.tries_left(quiz=quiz, tries=earlier) == 0:
        return ngettext(
            "No tries left: this item allows %(count)d try.",
            "No tries left: this item allows %(count)d tries.",
            quiz.tries_per_item,
        ) % {"count": quiz.tries_per_item}
    return ""


class _AttemptChanged(Exception):
    """The attempt changed after it was read, so a score computed from that read is stale."""


def _rules_read(
    *, attempt: Attempt, keys: Iterable[str], item: QuizItem | None = None
) -> tuple[dict[int, list[Response]], dict[str, Response]]:
    """What the rules need, in one read: the attempt's counted tries (of one item, or of every
    item) per quiz item id, oldest first, and the learner's answers under the idempotency keys
    given, by key (a row can be both)."""
    wanted = Q(attempt=attempt, counts_as_try=True)
    if item is not None:
        wanted &= Q(quiz_item=item)
    keys = [key for key in keys if key]
    if keys:
        wanted |= Q(user_id=attempt.user_id, idempotency_key__in=keys)
    rows = Response.objects.filter(wanted).order_by("created_at", "id")
    counted: dict[int, list[Response]] = defaultdict(list)
    keyed: dict[str, Response] = {}
    for row in rows:
        if row.attempt_id == attempt.pk and row.counts_as_try:
            counted[row.quiz_item_id].append(row)
        if row.idempotency_key:
            keyed.setdefault(row.idempotency_key, row)
    return counted, keyed


@dataclass(frozen=True)
class _Decided:
    """What one answer comes to: an earlier response handed back (`new` False), or a response
    to write, the points it moves the attempt's score by and the choices it picked."""

    response: Response
    new: bool
    points: float = 0.0
    picked: frozenset[int] = frozenset()


def _answer_decide(
    *,
    attempt: Attempt,
    item: QuizItem,
    variant: Variant | None,
    graded: engine.Verdict,
    text: str,
    choice_ids: Sequence[int],
    idempotency_key: str,
    fingerprint: str,
    keyed: Response | None,
    earlier: Sequence[Response],
    now: datetime,
) -> _Decided:
    """The rules for one graded answer, on what was read; reads and writes nothing.

    The answer stored under its idempotency key is handed back (a different answer under that
    key is refused), and so is the item's latest try when this is the same answer moments later
    (a double click); a try the quiz no longer takes is refused. Else the new response, and by
    how many points it moves the attempt's score: the item's score with this try against its
    score before (the best try with immediate feedback, else the latest saved answer).
    """
    if keyed is not None:
        return _Decided(keyed_replay(keyed, fingerprint=fingerprint), new=False)
    if (
        earlier
        and earlier[-1].request_fingerprint == fingerprint
        and now - earlier[-1].created_at < DOUBLE_SUBMIT_WINDOW
    ):
        return _Decided(mark_replayed(earlier[-1]), new=False)
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
        **verdict_fields(graded, quiz=attempt.quiz),
    )
    if not response.counts_as_try:
        return _Decided(response, new=True)
    rule = scores.scoring_rule(attempt.quiz)
    before = scores.item_score(rule=rule, tries=earlier)
    after = scores.item_score(rule=rule, tries=[*earlier, response])
    return _Decided(
        response, new=True, points=item.points * (after - before), picked=frozenset(choice_ids)
    )


def _answers_write(*, attempt: Attempt, answers: Sequence[_Decided]) -> None:
    """Write new answers and the attempt's new score in one transaction, as short as it can be
    (SQLite has one writer at a time).

    The attempt's score moves by what the answers' items changed, only if the attempt is
    unchanged since it was read (an UPDATE filtered on its updated_at); then the answers and
    their choices are inserted, each in one statement. Every counted answer and every submission
    changes the attempt, so one that got in between makes the update miss: nothing is written
    and _AttemptChanged tells the caller to read again. Two answers racing for the last try
    cannot both count, and the score stays the sum over the items that a full rescore would
    give. A key used at the same moment by a twin is caught by its unique constraint
    (IntegrityError, with nothing written).
    """
    counted = [answer for answer in answers if answer.response.counts_as_try]
    score = changed_at = None
    with transaction.atomic():
        if counted:
            score = attempt.score + sum(answer.points for answer in counted)
            # The clock at the write, not the request's start: a retry may have read an
            # attempt written after the request began, and updated_at must only move forward
            # for the LMS's incremental grade sync.
            changed_at = timezone.now()
            moved = Attempt.objects.filter(pk=attempt.pk, updated_at=attempt.updated_at).update(
                score=score, updated_at=changed_at
            )
            if not moved:
                raise _AttemptChanged
        # Each row's primary key comes back (RETURNING), for its choices.
        Response.objects.bulk_create([answer.response for answer in answers])
        picks = [
            Response.choices.through(response=answer.response, choice_id=choice_id)
            for answer in answers
            for choice_id in sorted(answer.picked)
        ]
        if picks:
            Response.choices.through.objects.bulk_create(picks)
    if counted:
        attempt.score, attempt.updated_at = score, changed_at


@dataclass(frozen=True)
class SheetAnswer:
    """What a learner entered for one item of a sheet: typed text, or the choices picked."""

    text: str = ""
    choice_ids: tuple[int, ...] = ()

    @property
    def blank(self) -> bool:
        return not self.text.strip() and not self.choice_ids

    def saved_as(self, response: Response) -> bool:
        """Whether this is the answer the response saved: its fingerprint (made of the same
        text and choices), so its choices are not read; a response stored without one compares
        its text and choices."""
        if response.request_fingerprint:
            return response.request_fingerprint == self.fingerprint(response)
        picked = sorted(choice.pk for choice in response.choices.all())
        return (response.text, picked) == (self.text, sorted(self.choice_ids))

    def fingerprint(self, response: Response) -> str:
        """This answer's fingerprint as an answer to the response's attempt and item."""
        return answer_fingerprint(
            "attempt",
            response.attempt_id,
            response.quiz_item_id,
            self.text,
            sorted(self.choice_ids),
        )


def attempt_answers_save(
    *,
    attempt: Attempt,
    answers: dict[int, SheetAnswer],
    idempotency_key: str = "",
    now: datetime | None = None,
    others_ignored: bool = False,
    decimal: str = ".",
) -> dict[int, Response]:
    """Save a page of answers (quiz item id → answer): each changed, non-blank one once.

    An answer to an item that is not the quiz's is refused, or with `others_ignored` left out
    (the attempt page's form: fields a page older than an edit of the quiz still has).

    A blank answer or one equal to the answer already saved for its item is skipped, so saving a
    page again records nothing new; each item gets its own key (`<key>:<item id>`), so a double
    click saves each answer once. Returns the response recorded per item.

    The same number of statements whatever the number of items: the items, the attempt's
    variants, and its saved answers with the answers under the sheet's keys are read once each,
    every answer is graded and decided by the rules response_submit applies, and all of them are
    written in one transaction (_answers_write: one guarded update of the attempt, one insert of
    the answers, one of their choices). A refusal or a database that fails half way saves none of
    the sheet, so a learner who sends it again never finds part of a sheet saved. An attempt past
    its deadline is closed (its saved answers graded) before that transaction, so the closing
    stays when the late sheet is refused.
    """
    now = now or timezone.now()
    items = {item.pk: item for item in _quiz_items(attempt=attempt)}
    if others_ignored:
        answers = {item_id: answer for item_id, answer in answers.items() if item_id in items}
    elif set(answers) - set(items):
        raise ServiceError(gettext("That item is not part of this quiz."))
    given = {item_id: answer for item_id, answer in answers.items() if not answer.blank}
    keys = {item_id: f"{idempotency_key}:{item_id}" if idempotency_key else "" for item_id in given}
    variants: dict[int, Variant] = {}
    graded: dict[int, engine.Verdict] = {}
    replayed_twin = False
    for _ in range(RETRIES):
        attempt_expire_if_overdue(attempt=attempt, now=now)
        counted, keyed = _rules_read(attempt=attempt, keys=keys.values())
        changed = {
            item_id: answer
            for item_id, answer in given.items()
            if not (counted.get(item_id) and answer.saved_as(counted[item_id][-1]))
        }
        if not changed:
            return {}
        _attempt_open(attempt=attempt, now=now)
        if not variants and any(items[item_id].problem_id for item_id in changed):
            variants = {v.quiz_item_id: v for v in Variant.objects.filter(attempt=attempt)}
        decided: dict[int, _Decided] = {}
        for item_id, answer in changed.items():
            item = items[item_id]
            variant = _item_variant(item, variants)
            if item_id not in graded:
                graded[item_id] = (
                    variant_grade(variant=variant, text=answer.text, decimal=decimal)
                    if variant is not None
                    else question_grade(question=item.question, choice_ids=answer.choice_ids)
                )
            decided[item_id] = _answer_decide(
                attempt=attempt,
                item=item,
                variant=variant,
                graded=graded[item_id],
                text=answer.text,
                choice_ids=answer.choice_ids,
                idempotency_key=keys[item_id],
                fingerprint=answer_fingerprint(
                    "attempt", attempt.pk, item_id, answer.text, sorted(answer.choice_ids)
                ),
                keyed=keyed.get(keys[item_id]) if keys[item_id] else None,
                earlier=counted.get(item_id, []),
                now=now,
            )
        try:
            _answers_write(
                attempt=attempt, answers=[answer for answer in decided.values() if answer.new]
            )
            return {item_id: answer.response for item_id, answer in decided.items()}
        except IntegrityError:
            # The same sheet sent twice at once (a double click, a retried save) and the twin
            # wrote first: read again, and its answers are this sheet's.
            if not idempotency_key or replayed_twin:
                raise
            replayed_twin = True
            attempt.refresh_from_db()
        except _AttemptChanged:
            attempt.refresh_from_db()
    raise ServiceError(gettext(TOO_BUSY))


def _quiz_items(*, attempt: Attempt) -> list[QuizItem]:
    """An attempt's items with what grading reads: problem, question (as the attempt drew a pool
    item's), choices and misconceptions."""
    choices = Choice.objects.select_related("misconception")
    items = list(
        QuizItem.objects.filter(quiz_id=attempt.quiz_id)
        .select_related("question", "problem")
        .prefetch_related(Prefetch("question__choices", queryset=choices))
    )
    return draws.items_as_drawn(attempt=attempt, items=items, choices=choices)


def _item_variant(item: QuizItem, variants: dict[int, Variant]) -> Variant | None:
    """The attempt's variant of a problem item; None for a question."""
    if not item.problem_id:
        return None
    if item.pk not in variants:
        raise Variant.DoesNotExist(f"The attempt has no variant of item {item.pk}.")
    return variants[item.pk]
