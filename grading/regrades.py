"""Regrade one quiz item after an instructor fixed it (a choice's correctness, a tolerance).

Every response to the item is graded again from what was recorded: the choices picked, or the
typed text against the stored variant's givens with the problem's tolerance. The answers
themselves never change; their verdicts do. The fix is either made in the admin beforehand (no
`fix`: the item as it stands) or given here (grading/regrade_fixes.py), tried in memory for the
preview and saved only when the regrade is applied.

A preview writes nothing and says, per attempt, the score before and after, with a digest of all
of it. Applying it re-reads everything under locks and, when given the preview's digest, refuses
(RegradeStale) if anything changed since, so what is applied is exactly what was shown. Then it
saves the fix, writes one Regrade row (with the fix's before and after), one ScoreChange per
changed attempt (keeping each response's old verdict), rescores those attempts through the one
scoring path and tells the LMS of every submitted attempt whose score moved.

Reading costs a fixed number of queries whatever the number of attempts (the preview is a page).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from courses.models import QuizItem
from grading.engine import Verdict
from grading.families import problem_tolerance
from grading.models import Attempt, Regrade, Response, ScoreChange, Variant
from grading.overrides import score_change_authorize
from grading.regrade_fixes import FixedContent, ItemFix, fixed_content
from grading.scores import attempt_points, item_scores, quiz_item_overrides
from grading.services.attempts import attempt_rescore
from grading.services.errors import ServiceError
from grading.services.hooks import hooks_after_commit
from grading.services.verdicts import question_grade, variant_grade, verdict_fields

# The columns of a response a regrade may rewrite; what the learner answered is not among them.
VERDICT_FIELDS = ("status", "score", "counts_as_try", "misconception", "feedback", "detail")
# What item_scores reads of every response of an attempt, for its total before and after.
SCORED_FIELDS = ("id", "attempt_id", "quiz_item_id", "created_at", "counts_as_try", "score")


class RegradeStale(ServiceError):
    code = "regrade_stale"


@dataclass(frozen=True)
class ResponseRegrade:
    """One response whose verdict the regrade changes: before and after."""

    response_id: int
    old: dict
    new: dict


@dataclass(frozen=True)
class AttemptRegrade:
    """What the regrade does to one attempt: its item and total scores before and after."""

    attempt_id: int
    learner: str
    status: str
    old_item_score: float
    new_item_score: float
    old_score: float
    new_score: float
    # The item's score is an instructor's override: the verdicts change, the score does not.
    overridden: bool
    responses: list[ResponseRegrade]
    # For the pages: the attempt's number among the learner's, and the learner's name.
    number: int = 0
    learner_name: str = ""

    @property
    def change(self) -> float:
        return self.new_score - self.old_score


@dataclass(frozen=True)
class RegradeResult:
    """The preview (applied=False, nothing written) or the outcome of a regrade."""

    item: QuizItem
    applied: bool
    attempts: list[AttemptRegrade]
    regrade: Regrade | None = None
    tolerance: tuple[float, float] | None = field(default=None)
    # What the fix changes of the question or problem, before and after (regrade_fixes).
    fix: list[dict] = field(default_factory=list)
    # The attempts whose new score the LMS is told of (applied only).
    passed_back: tuple[int, ...] = ()

    @property
    def gainers(self) -> list[AttemptRegrade]:
        return [a for a in self.attempts if a.change > 0]

    @property
    def losers(self) -> list[AttemptRegrade]:
        return [a for a in self.attempts if a.change < 0]

    @property
    def unchanged(self) -> list[AttemptRegrade]:
        """Attempts whose verdicts change but not their score (an override, an invalid try)."""
        return [a for a in self.attempts if a.change == 0]

    @property
    def responses_changed(self) -> int:
        return sum(len(a.responses) for a in self.attempts)

    @property
    def digest(self) -> str:
        """A fingerprint of everything the regrade would do and of the fix's before and after:
        applying with it refuses a regrade that no longer matches this preview."""
        body = {
            "item": [self.item.pk, self.item.points],
            "tolerance": self.tolerance,
            "fix": self.fix,
            "attempts": [
                [
                    a.attempt_id,
                    a.status,
                    a.old_item_score,
                    a.new_item_score,
                    a.old_score,
                    a.new_score,
                    a.overridden,
                    [[r.response_id, r.old, r.new] for r in a.responses],
                ]
                for a in self.attempts
            ],
        }
        encoded = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(encoded.encode()).hexdigest()


def _verdict(response: Response) -> dict:
    return {name: getattr(response, name) for name in VERDICT_FIELDS}


def _grader(
    content: FixedContent,
) -> tuple[Callable[[Response], Verdict], tuple[float, float] | None]:
    """A function grading one recorded response to the item as the (fixed) content has it, and
    the problem's tolerance (None for a question)."""
    if content.problem is not None:
        tolerance = problem_tolerance(content.problem)

        def grade(response: Response) -> Verdict:
            variant: Variant = response.variant
            # In memory only: this grading uses the new tolerance; apply() stores it.
            variant.atol, variant.rtol = tolerance.atol, tolerance.rtol
            return variant_grade(variant=variant, text=response.text)

        return grade, (tolerance.atol, tolerance.rtol)
    question = content.question

    def grade(response: Response) -> Verdict:
        picked = [choice.pk for choice in response.choices.all()]
        return question_grade(question=question, choice_ids=picked)

    return grade, None


def _regraded(
    item: QuizItem, grade: Callable[[Response], Verdict], attempt_ids: list[int] | None = None
) -> list[AttemptRegrade]:
    """Every attempt whose responses to the item get another verdict, with the new verdicts
    and its scores before and after. Six queries whatever the number of attempts."""
    responses = (
        Response.objects.filter(quiz_item=item, attempt__isnull=False)
        .select_related("variant")
        .prefetch_related("choices")
        .order_by("created_at", "id")
    )
    if attempt_ids is not None:
        responses = responses.filter(attempt_id__in=attempt_ids)
    changed: dict[int, list[ResponseRegrade]] = defaultdict(list)
    for response in responses:
        old = _verdict(response)
        # Through JSON, as stored: a tuple in the engine's detail is the list read back.
        new = json.loads(json.dumps(verdict_fields(grade(response))))
        if new != old:
            changed[response.attempt_id].append(ResponseRegrade(response.pk, old, new))
    if not changed:
        return []
    attempts = Attempt.objects.filter(pk__in=list(changed)).select_related("user").order_by("pk")
    every_response: dict[int, list[Response]] = defaultdict(list)
    for response in Response.objects.filter(attempt_id__in=list(changed)).only(*SCORED_FIELDS):
        every_response[response.attempt_id].append(response)
    points = {quiz_item.pk: quiz_item.points for quiz_item in item.quiz.items.all()}
    overrides_by_attempt = quiz_item_overrides(quiz=item.quiz)
    result = []
    for attempt in attempts:
        attempt.quiz = item.quiz
        # Only a submitted attempt is overridden (grading.scores.item_overrides).
        submitted = attempt.status == Attempt.Status.SUBMITTED
        overrides = overrides_by_attempt.get(attempt.pk, {}) if submitted else {}
        mine = every_response[attempt.pk]
        old_fractions = item_scores(attempt=attempt, responses=mine, overrides=overrides)
        new_by_id = {r.response_id: r.new for r in changed[attempt.pk]}
        for response in mine:
            for name in ("score", "counts_as_try"):
                if response.pk in new_by_id:
                    # In memory: the scores as the regrade makes them.
                    setattr(response, name, new_by_id[response.pk][name])
        fractions = item_scores(attempt=attempt, responses=mine, overrides=overrides)
        result.append(
            AttemptRegrade(
                attempt_id=attempt.pk,
                learner=attempt.user.get_username(),
                status=attempt.status,
                old_item_score=item.points * old_fractions.get(item.pk, 0.0),
                new_item_score=item.points * fractions.get(item.pk, 0.0),
                old_score=attempt.score,
                new_score=attempt_points(
                    attempt=attempt, points=points, responses=mine, overrides=overrides
                ),
                overridden=item.pk in overrides,
                responses=changed[attempt.pk],
                number=attempt.number,
                learner_name=attempt.user.get_full_name() or attempt.user.get_username(),
            )
        )
    return result


def quiz_item_regrade(
    *,
    item: QuizItem,
    by: AbstractBaseUser,
    apply: bool,
    fix: ItemFix | None = None,
    expected_digest: str | None = None,
) -> RegradeResult:
    """Grade every recorded response to the item again, as the item stands now or with `fix`.

    apply=False is a preview and writes nothing. apply=True does the same under a lock on the
    item's question or problem and on the affected attempts; with `expected_digest` (the
    preview's `digest`) it refuses with RegradeStale when the regrade is no longer the one
    previewed. Then it saves the fix, rewrites the changed verdicts, stores the problem's
    tolerance on the item's variants (later answers in open attempts are graded like the
    regraded ones), writes the audit rows, rescores the attempts and queues the LMS passback.
    """
    item = QuizItem.objects.select_related("quiz", "problem", "question").get(pk=item.pk)
    score_change_authorize(user=by, quiz=item.quiz)
    if not apply:
        content = fixed_content(item=item, fix=fix, by=by)
        grade, tolerance = _grader(content)
        return RegradeResult(
            item=item,
            applied=False,
            attempts=_regraded(item, grade),
            tolerance=tolerance,
            fix=content.changes,
        )
    with transaction.atomic():
        content = fixed_content(item=item, fix=fix, by=by, lock=True)
        grade, tolerance = _grader(content)
        # Lock every attempt with an answer to the item before reading the answers again, so no
        # answer or submission slips between the regrade's reading and its writing.
        ids = sorted(
            set(
                Response.objects.filter(quiz_item=item, attempt__isnull=False).values_list(
                    "attempt_id", flat=True
                )
            )
        )
        list(Attempt.objects.select_for_update().filter(pk__in=ids).order_by("pk").values("pk"))
        attempts = _regraded(item, grade, attempt_ids=ids)
        planned = RegradeResult(
            item=item, applied=False, attempts=attempts, tolerance=tolerance, fix=content.changes
        )
        if expected_digest is not None and planned.digest != expected_digest:
            raise RegradeStale(
                "Answers, scores or the item changed since this preview, so it was not applied: "
                "check the new preview below and apply it if it is right."
            )
        content.save()
        if tolerance is not None:
            Variant.objects.filter(quiz_item=item).update(atol=tolerance[0], rtol=tolerance[1])
        regrade = Regrade.objects.create(
            quiz_item=item,
            by=by,
            by_username=by.get_username(),
            atol=tolerance[0] if tolerance else None,
            rtol=tolerance[1] if tolerance else None,
            fix=content.changes,
            responses_changed=planned.responses_changed,
            attempts_changed=len(attempts),
        )
        told = _write(item=item, regrade=regrade, attempts=attempts, by=by)
    return RegradeResult(
        item=item,
        applied=True,
        attempts=attempts,
        regrade=regrade,
        tolerance=tolerance,
        fix=content.changes,
        passed_back=tuple(told),
    )


def _write(
    *, item: QuizItem, regrade: Regrade, attempts: list[AttemptRegrade], by: AbstractBaseUser
) -> list[int]:
    """The new verdicts, one ScoreChange per attempt, the new scores; the LMS is told of each
    learner's submitted attempts whose score moved. The attempts told of, by id."""
    told: list[int] = []
    learners_told: set[str] = set()
    for entry in attempts:
        for change in entry.responses:
            Response.objects.filter(pk=change.response_id).update(**change.new)
        attempt = Attempt.objects.select_related("quiz").get(pk=entry.attempt_id)
        ScoreChange.objects.create(
            kind=ScoreChange.Kind.REGRADE,
            attempt=attempt,
            learner_id=attempt.user_id,
            quiz_item=item,
            regrade=regrade,
            points=item.points,
            old_score=entry.old_item_score,
            new_score=entry.new_item_score,
            old_attempt_score=entry.old_score,
            new_attempt_score=entry.new_score,
            responses=[
                {"response": c.response_id, "old": c.old, "new": c.new} for c in entry.responses
            ],
            by=by,
            by_username=by.get_username(),
        )
        attempt_rescore(attempt=attempt)
        # The LMS gets the learner's best submitted score: once per learner is enough.
        moved = attempt.score != entry.old_score
        submitted = attempt.status == Attempt.Status.SUBMITTED
        if submitted and moved and entry.learner not in learners_told:
            learners_told.add(entry.learner)
            told.append(attempt.pk)
            hooks_after_commit("SOFTGRADE_ATTEMPT_SUBMITTED_HOOKS", attempt=attempt)
    return told
