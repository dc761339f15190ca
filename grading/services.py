"""What learners do, as typed service functions: pages and the API call these and nothing else.

Grading happens before any row is written: the engine is pure and needs no lock, and SQLite allows
one writer at a time, so holding the write lock across grading would halve throughput.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import NamedTuple

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Max, Q
from django.utils import timezone
from django.utils.module_loading import import_string

from courses.models import Problem, Question, Quiz, QuizItem
from grading import engine, policy
from grading.families import (
    attempt_seed,
    practice_seed,
    problem_tolerance,
    variant_data,
)
from grading.models import Attempt, PracticeStreak, Response, ScoreChange, Variant

# Two identical submissions this close together are one double click, not two tries.
DOUBLE_SUBMIT_WINDOW = timedelta(seconds=5)


def _hooks_after_commit(setting: str, **kwargs) -> None:
    """Call the hooks a setting names (dotted paths) once the current transaction commits.

    Other apps (LTI grade passback) learn of a submission this way without grading importing
    them. `robust`: a failing hook is logged and never undoes or blocks the learner's work.
    """
    for path in getattr(settings, setting, ()):
        transaction.on_commit(partial(import_string(path), **kwargs), robust=True)


class ServiceError(Exception):
    """A request the rules refuse; `code` is stable for the API, the message is for people."""

    code = "refused"

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


class QuizNotOpen(ServiceError):
    code = "quiz_not_open"


class AttemptLimitReached(ServiceError):
    code = "attempt_limit_reached"


class AttemptClosed(ServiceError):
    code = "attempt_closed"


class NoTriesLeft(ServiceError):
    code = "no_tries_left"


class IdempotencyConflict(ServiceError):
    code = "idempotency_conflict"


class PracticeRefused(ServiceError):
    """Practice on a problem is refused: exam-only, or used by the learner's running exam."""

    code = "practice_refused"


@dataclass(frozen=True)
class Graded:
    """A verdict from either a problem (the engine) or a question (the choices)."""

    status: str
    score: float
    misconception: str | None
    feedback: str
    detail: dict


# ---------------------------------------------------------------------------------------------
# Grading, without touching the database
# ---------------------------------------------------------------------------------------------


def variant_grade(*, variant: Variant, text: str) -> Graded:
    """Grade typed text against a stored variant: its givens, grading key and tolerance, never
    regenerated."""
    family = engine.get_family(variant.family)
    verdict = engine.grade(
        family,
        variant.givens,
        text,
        tolerance=engine.Tolerance(variant.atol, variant.rtol),
        grading_key=variant.grading_key,
    )
    return Graded(
        verdict.status, verdict.score, verdict.misconception, verdict.feedback, verdict.detail
    )


def question_grade(*, question: Question, choice_ids: Iterable[int]) -> Graded:
    """Grade chosen choices; the first wrong pick names its misconception; none picked: invalid."""
    choices = list(question.choices.all())
    by_id = {choice.id: choice for choice in choices}
    picked_ids = sorted(set(choice_ids))
    if not picked_ids:
        return Graded("invalid", 0.0, None, "Choose an answer.", {})
    if any(choice_id not in by_id for choice_id in picked_ids):
        return Graded("invalid", 0.0, None, "That choice is not part of this question.", {})
    if question.kind != Question.Kind.MULTIPLE and len(picked_ids) > 1:
        return Graded("invalid", 0.0, None, "Choose exactly one answer.", {})
    picked = [by_id[i] for i in picked_ids]
    correct_ids = {c.id for c in choices if c.is_correct}
    detail = {"picked": picked_ids}
    if set(picked_ids) == correct_ids:
        feedback = " ".join(c.feedback for c in picked if c.feedback) or "Correct."
        return Graded("correct", 1.0, None, feedback, detail)
    wrong = [c for c in picked if not c.is_correct]
    if wrong:
        first = wrong[0]
        code = first.misconception.code if first.misconception else None
        return Graded("incorrect", 0.0, code, first.feedback or "Not quite.", detail)
    missing = len(correct_ids) - len(picked_ids)
    return Graded(
        "incorrect",
        0.0,
        None,
        f"Every choice you picked is right, but {missing} more "
        f"{'is' if missing == 1 else 'are'} right too.",
        detail,
    )


def _verdict_fields(graded: Graded) -> dict:
    """A Response's verdict columns; invalid input is kept but never counts as a try."""
    return {
        "status": graded.status,
        "score": graded.score,
        "counts_as_try": graded.status != "invalid",
        "misconception": graded.misconception or "",
        "feedback": graded.feedback,
        "detail": graded.detail,
    }


def _fingerprint(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def _replayed(response: Response) -> Response:
    """A response recorded by an earlier request, marked as handed back again (not created)."""
    response.replayed = True
    return response


def _replay(*, user, idempotency_key: str, fingerprint: str) -> Response | None:
    """The response first recorded under this key, or None; a different body is a conflict."""
    if not idempotency_key:
        return None
    earlier = Response.objects.filter(user=user, idempotency_key=idempotency_key).first()
    if earlier is None:
        return None
    if earlier.request_fingerprint != fingerprint:
        raise IdempotencyConflict(
            "This Idempotency-Key was already used for a different answer; use a new key."
        )
    return _replayed(earlier)


def _create_response(*, idempotency_key: str, fingerprint: str, **fields) -> Response:
    """Insert one response; a concurrent twin with the same key yields the first one's row."""
    try:
        with transaction.atomic():
            return Response.objects.create(
                idempotency_key=idempotency_key, request_fingerprint=fingerprint, **fields
            )
    except IntegrityError:
        if not idempotency_key:
            raise
        replay = _replay(
            user=fields["user"], idempotency_key=idempotency_key, fingerprint=fingerprint
        )
        if replay is None:
            raise
        return replay


# ---------------------------------------------------------------------------------------------
# Practice
# ---------------------------------------------------------------------------------------------


def _variant_unsaved(*, problem: Problem, seed: int, user, **owner) -> Variant:
    """A problem's variant for a seed, with everything a regrade needs stored beside the seed."""
    data = variant_data(problem, seed)
    tolerance = problem_tolerance(problem)
    return Variant(
        problem=problem,
        user=user,
        seed=seed,
        family=problem.family,
        family_version=engine.get_family(problem.family).version,
        params=problem.params,
        givens=data.givens,
        grading_key=data.grading_key,
        atol=tolerance.atol,
        rtol=tolerance.rtol,
        **owner,
    )


def practice_refusal(
    *, user: AbstractBaseUser, problem: Problem, now: datetime | None = None
) -> str | None:
    """Why this learner may not practise this problem now (grading.policy decides), or None."""
    now = now or timezone.now()
    open_exams = []
    if not problem.exam_only:
        open_exams = [
            policy.OpenExam(title=title, deadline=deadline)
            for title, deadline in Attempt.objects.filter(
                Q(deadline__isnull=True) | Q(deadline__gt=now),
                user=user,
                status=Attempt.Status.IN_PROGRESS,
                quiz__mode=Quiz.Mode.EXAM,
                quiz__items__problem=problem,
            )
            .values_list("quiz__title", "deadline")
            .distinct()
        ]
    return policy.practice_refusal(
        problem_title=problem.title, exam_only=problem.exam_only, open_exams=open_exams, now=now
    )


def practice_check(*, user: AbstractBaseUser, problem: Problem) -> None:
    """Raise PracticeRefused, with the reason and until when, when practice is refused now."""
    refusal = practice_refusal(user=user, problem=problem)
    if refusal:
        raise PracticeRefused(refusal)


def practice_variant_new(*, user: AbstractBaseUser, problem: Problem) -> Variant:
    """A fresh variant of a problem for a learner: the next counter, a server-derived seed.

    Refused (PracticeRefused) for an exam-only problem or during an exam that uses it."""
    practice_check(user=user, problem=problem)
    return _practice_variant_make(user=user, problem=problem)


def _practice_variant_make(*, user: AbstractBaseUser, problem: Problem) -> Variant:
    for _ in range(3):  # a concurrent request may take the same counter; try the next one
        last = Variant.objects.filter(
            user=user, problem=problem, attempt__isnull=True, counter__isnull=False
        ).aggregate(last=Max("counter"))["last"]
        counter = (last or 0) + 1
        seed = practice_seed(user_id=user.pk, problem_id=problem.pk, counter=counter)
        variant = _variant_unsaved(problem=problem, seed=seed, user=user, counter=counter)
        try:
            with transaction.atomic():
                variant.save(force_insert=True)
                return variant
        except IntegrityError:
            continue
    raise ServiceError("Could not create a new variant; please try again.")


def practice_variant_current(*, user: AbstractBaseUser, problem: Problem) -> Variant:
    """The learner's latest practice variant of the problem, or a first one; refused as
    practice_variant_new is."""
    practice_check(user=user, problem=problem)
    latest = (
        Variant.objects.filter(user=user, problem=problem, attempt__isnull=True)
        .order_by("-counter")
        .first()
    )
    return latest or _practice_variant_make(user=user, problem=problem)


def practice_answer_submit(
    *, user: AbstractBaseUser, variant: Variant, text: str, idempotency_key: str = ""
) -> Response:
    """Grade a practice answer and move the mastery streak.

    A streak counts first-try correct answers on fresh variants: a wrong answer resets it, a correct
    one on a variant already tried (or already solved) leaves it unchanged. Invalid input is kept
    but costs no try and does not touch the streak. Refused, recording nothing, while practice on
    the problem is (an exam-only problem, or an exam of the learner's in progress that uses it).
    """
    if variant.user_id != user.pk or variant.attempt_id is not None:
        raise ServiceError("That variant is not one of your practice variants.")
    # Before the replay too: nothing about this problem is graded or returned while refused.
    practice_check(user=user, problem=variant.problem)
    fingerprint = _fingerprint("practice", variant.pk, text)
    replay = _replay(user=user, idempotency_key=idempotency_key, fingerprint=fingerprint)
    if replay:
        return replay
    graded = variant_grade(variant=variant, text=text)
    now = timezone.now()
    with transaction.atomic():
        earlier = list(
            Response.objects.filter(variant=variant, counts_as_try=True).values_list(
                "status", "text", "created_at"
            )
        )
        if (
            graded.status != "invalid"
            and earlier
            and earlier[-1][1] == text
            and now - earlier[-1][2] < DOUBLE_SUBMIT_WINDOW
        ):
            return _replayed(Response.objects.filter(variant=variant, counts_as_try=True).last())
        response = _create_response(
            idempotency_key=idempotency_key,
            fingerprint=fingerprint,
            user=user,
            variant=variant,
            text=text,
            **_verdict_fields(graded),
        )
        if graded.status == "invalid":
            return response
        streak, _ = PracticeStreak.objects.select_for_update().get_or_create(
            user=user, problem=variant.problem
        )
        streak.tries_total += 1
        if graded.status == "correct":
            streak.correct_total += 1
            if not earlier:
                streak.current += 1
                streak.best = max(streak.best, streak.current)
                if streak.current >= PracticeStreak.MASTERY and streak.mastered_at is None:
                    streak.mastered_at = now
                    _hooks_after_commit("SOFTGRADE_MASTERY_CHANGED_HOOKS", streak=streak)
        else:
            streak.current = 0
        streak.save()
    return response


# ---------------------------------------------------------------------------------------------
# Quizzes
# ---------------------------------------------------------------------------------------------


def quiz_availability_error(*, quiz: Quiz, now: datetime) -> str | None:
    """Why the quiz cannot be started now, or None."""
    if quiz.opens_at and now < quiz.opens_at:
        return f"This quiz opens at {quiz.opens_at:%Y-%m-%d %H:%M} UTC."
    if quiz.closes_at and now >= quiz.closes_at:
        return f"This quiz closed at {quiz.closes_at:%Y-%m-%d %H:%M} UTC."
    return None


class AttemptStarted(NamedTuple):
    """What a start did: `created` is True only for the call that created the attempt."""

    attempt: Attempt
    created: bool


def _attempt_in_progress(*, user: AbstractBaseUser, quiz: Quiz, now: datetime) -> Attempt | None:
    """The learner's attempt in progress at the quiz, closed first if its time has run out."""
    current = Attempt.objects.filter(
        user=user, quiz=quiz, status=Attempt.Status.IN_PROGRESS
    ).first()
    if current is not None:
        attempt_expire_if_overdue(attempt=current, now=now)
        if current.status == Attempt.Status.IN_PROGRESS:
            return current
    return None


def attempt_start_or_resume(
    *, user: AbstractBaseUser, quiz: Quiz, now: datetime | None = None
) -> AttemptStarted:
    """Start an attempt, or resume the one in progress; enforces availability and the limit.

    Of any number of simultaneous starts, exactly one creates the attempt and every other one
    resumes it: while an attempt is open no start is refused. The decision is taken inside the
    transaction, after the learner's starts have lined up on their user row (a row lock on
    PostgreSQL; SQLite has one writer at a time), so the attempt in progress and the attempts
    used are read as the previous start left them. The unique in-progress and number constraints
    back this up for a writer that did not line up.
    """
    now = now or timezone.now()
    current = _attempt_in_progress(user=user, quiz=quiz, now=now)
    if current is not None:  # the common resume takes no lock
        return AttemptStarted(current, created=False)
    items = list(quiz.items.select_related("problem"))
    try:
        with transaction.atomic():
            # FOR NO KEY UPDATE: it queues this learner's starts behind each other but not
            # behind the key-share locks their answers' inserts take on the same row.
            list(
                get_user_model()
                .objects.select_for_update(no_key=True)
                .filter(pk=user.pk)
                .values_list("pk")
            )
            current = _attempt_in_progress(user=user, quiz=quiz, now=now)
            if current is not None:
                return AttemptStarted(current, created=False)
            problem = quiz_availability_error(quiz=quiz, now=now)
            if problem:
                raise QuizNotOpen(problem)
            used = Attempt.objects.filter(user=user, quiz=quiz).count()
            if quiz.attempts_allowed is not None and used >= quiz.attempts_allowed:
                raise AttemptLimitReached(
                    f"You have used all {quiz.attempts_allowed} attempt"
                    f"{'s' if quiz.attempts_allowed != 1 else ''} at this quiz."
                )
            deadline = None
            if quiz.time_limit_minutes:
                deadline = now + timedelta(minutes=quiz.time_limit_minutes)
            if quiz.closes_at and (deadline is None or quiz.closes_at < deadline):
                deadline = quiz.closes_at
            attempt = Attempt.objects.create(
                user=user,
                quiz=quiz,
                number=used + 1,
                deadline=deadline,
                max_score=float(sum(item.points for item in items)),
                shuffle_items=quiz.shuffles_items,
                shuffle_choices=quiz.shuffles_choices,
            )
            Variant.objects.bulk_create(
                [_attempt_variant(attempt, item, user) for item in items if item.problem_id]
            )
            return AttemptStarted(attempt, created=True)
    except IntegrityError:
        # A writer that did not line up on the user row took this number, or opened an attempt,
        # at the same moment: resume the attempt in progress rather than run two.
        current = _attempt_in_progress(user=user, quiz=quiz, now=now)
        if current is not None:
            return AttemptStarted(current, created=False)
        raise AttemptLimitReached(
            "Another attempt was started at the same moment; reload the quiz."
        ) from None


def attempt_start(*, user: AbstractBaseUser, quiz: Quiz, now: datetime | None = None) -> Attempt:
    """The learner's attempt in progress at the quiz, started if there is none (see
    attempt_start_or_resume, for callers that must tell a new attempt from a resumed one)."""
    return attempt_start_or_resume(user=user, quiz=quiz, now=now).attempt


def _attempt_variant(attempt: Attempt, item: QuizItem, user) -> Variant:
    seed = attempt_seed(attempt_id=attempt.pk, item_id=item.pk)
    return _variant_unsaved(
        problem=item.problem, seed=seed, user=user, attempt=attempt, quiz_item=item
    )


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
    fingerprint = _fingerprint("attempt", attempt.pk, item.pk, text, sorted(choice_ids))
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
            replay = _replay(
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
    *, quiz: Quiz, immediate: bool, graded: Graded, earlier: Sequence[Response]
) -> str:
    """Why the quiz refuses another try at an item, or "" when it takes it (only quizzes with
    immediate feedback count tries)."""
    if graded.status == "invalid" or not immediate:
        return ""
    if any(row.status == "correct" for row in earlier):
        return "You have already answered this item correctly."
    if len(earlier) >= quiz.tries_per_item:
        return (
            f"No tries left: this item allows {quiz.tries_per_item} "
            f"tr{'y' if quiz.tries_per_item == 1 else 'ies'}."
        )
    return ""


class _AttemptChanged(Exception):
    """The attempt changed after it was read, so a score computed from that read is stale."""


def _item_score(*, immediate: bool, tries: Sequence[Response]) -> float:
    """An item's score (0 to 1) from its counted tries in order: the best one with immediate
    feedback, else the latest saved answer; 0 when there is none. Same rule as item_scores."""
    if not tries:
        return 0.0
    return max(row.score for row in tries) if immediate else tries[-1].score


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
    graded: Graded,
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
            return _replayed(row)
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
        return _replayed(earlier[-1])
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
        **_verdict_fields(graded),
    )
    score = changed_at = None
    picked = set(choice_ids) if graded.status != "invalid" else set()
    # A duplicate key raises IntegrityError with nothing written, and the caller replays.
    with transaction.atomic():
        if response.counts_as_try:
            before = _item_score(immediate=immediate, tries=earlier)
            after = _item_score(immediate=immediate, tries=[*earlier, response])
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


def item_scores(
    *,
    attempt: Attempt,
    responses: Iterable[Response],
    overrides: Mapping[int, float] | None = None,
) -> dict[int, float]:
    """Score per quiz item id from the attempt's responses (0 to 1, before points).

    With immediate feedback the best try counts; otherwise the latest saved answer counts. An
    instructor's override (`overrides`, from item_overrides) is its item's score whatever the
    responses say.
    """
    immediate = policy.immediate_feedback(attempt.quiz)
    scores: dict[int, float] = {}
    for response in sorted(responses, key=lambda r: (r.created_at, r.id)):
        if not response.counts_as_try:
            continue
        if immediate:
            scores[response.quiz_item_id] = max(
                scores.get(response.quiz_item_id, 0.0), response.score
            )
        else:
            scores[response.quiz_item_id] = response.score
    scores.update(overrides or {})
    return scores


def item_overrides(*, attempt: Attempt) -> dict[int, float]:
    """The scores (0 to 1) instructors set for items of a submitted attempt, by quiz item id;
    the latest override of an item is in force (grading/overrides.py writes them)."""
    if attempt.status != Attempt.Status.SUBMITTED:
        return {}  # only submitted attempts are overridden: no query for the others
    rows = (
        ScoreChange.objects.filter(attempt=attempt, kind=ScoreChange.Kind.OVERRIDE)
        .order_by("created_at", "id")
        .values_list("quiz_item_id", "new_score", "points")
    )
    return {item_id: score / points for item_id, score, points in rows}


def attempt_points(
    *,
    attempt: Attempt,
    points: Mapping[int, int],
    responses: Iterable[Response],
    overrides: Mapping[int, float],
) -> float:
    """The attempt's score in points: each item's score (item_scores) times its points."""
    scores = item_scores(attempt=attempt, responses=responses, overrides=overrides)
    return float(sum(points[item_id] * score for item_id, score in scores.items()))


def _attempt_rescore(attempt: Attempt) -> None:
    """Recompute the attempt's score and maximum from its responses, overrides and the quiz's
    items.

    Submission, expiry, overrides and regrades call this, so the final score never rests on the
    running total each answer keeps up to date.
    """
    points = {item.id: item.points for item in attempt.quiz.items.all()}
    attempt.max_score = float(sum(points.values()))
    attempt.score = attempt_points(
        attempt=attempt,
        points=points,
        responses=attempt.responses.all(),
        overrides=item_overrides(attempt=attempt),
    )
    attempt.save(update_fields=["score", "max_score", "updated_at"])


def attempt_expire_if_overdue(*, attempt: Attempt, now: datetime | None = None) -> bool:
    """Close an in-progress attempt whose deadline has passed, grading its saved answers."""
    now = now or timezone.now()
    if attempt.status != Attempt.Status.IN_PROGRESS or not attempt.deadline:
        return False
    if now < attempt.deadline:
        return False
    with transaction.atomic():
        locked = Attempt.objects.select_for_update().get(pk=attempt.pk)
        if locked.status != Attempt.Status.IN_PROGRESS:
            attempt.refresh_from_db()
            return False
        locked.status = Attempt.Status.SUBMITTED
        locked.submitted_at = locked.deadline
        locked.late = True
        locked.save(update_fields=["status", "submitted_at", "late", "updated_at"])
        _attempt_rescore(locked)
        _hooks_after_commit("SOFTGRADE_ATTEMPT_SUBMITTED_HOOKS", attempt=locked)
    attempt.refresh_from_db()
    return True


def attempt_submit(*, attempt: Attempt, now: datetime | None = None) -> Attempt:
    """Submit an attempt and grade it; past the deadline the submission is refused.

    A refused late submission still closes the attempt and grades what was saved before the
    deadline, and says so; the learner loses nothing they had saved.
    """
    now = now or timezone.now()
    if attempt_expire_if_overdue(attempt=attempt, now=now) or attempt.late:
        raise AttemptClosed(
            "Time is up: the submission arrived after the deadline and was refused. "
            "Your answers saved before the deadline have been graded."
        )
    with transaction.atomic():
        locked = Attempt.objects.select_for_update().get(pk=attempt.pk)
        if locked.status != Attempt.Status.IN_PROGRESS:
            attempt.refresh_from_db()
            return attempt
        locked.status = Attempt.Status.SUBMITTED
        locked.submitted_at = now
        locked.save(update_fields=["status", "submitted_at", "updated_at"])
        _attempt_rescore(locked)
        _hooks_after_commit("SOFTGRADE_ATTEMPT_SUBMITTED_HOOKS", attempt=locked)
    attempt.refresh_from_db()
    return attempt


# ---------------------------------------------------------------------------------------------
# Answer sheets (a whole page of answers at once)
# ---------------------------------------------------------------------------------------------


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
