"""Regrade one quiz item after an instructor fixed it (a choice's correctness, a tolerance).

Every response to the item is graded again from what was recorded: the choices picked, or the
typed text against the stored variant's givens with the problem's current tolerance. The answers
themselves never change; their verdicts do. A preview writes nothing and says, per attempt, the
score before and after; applying it writes one Regrade row, one ScoreChange per changed attempt
(keeping each response's old verdict), rescores those attempts through the one scoring path and
tells the LMS of every submitted attempt whose score moved.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from courses.models import Question, QuizItem
from grading.engine import Verdict
from grading.families import problem_tolerance
from grading.models import Attempt, Regrade, Response, ScoreChange, Variant
from grading.overrides import quiz_points, score_change_authorize
from grading.scores import attempt_points, item_overrides, item_scores
from grading.services.attempts import attempt_rescore
from grading.services.hooks import hooks_after_commit
from grading.services.verdicts import question_grade, variant_grade, verdict_fields

# The columns of a response a regrade may rewrite; what the learner answered is not among them.
VERDICT_FIELDS = ("status", "score", "counts_as_try", "misconception", "feedback", "detail")


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

    @property
    def gainers(self) -> list[AttemptRegrade]:
        return [a for a in self.attempts if a.change > 0]

    @property
    def losers(self) -> list[AttemptRegrade]:
        return [a for a in self.attempts if a.change < 0]

    @property
    def responses_changed(self) -> int:
        return sum(len(a.responses) for a in self.attempts)


def _verdict(response: Response) -> dict:
    return {name: getattr(response, name) for name in VERDICT_FIELDS}


def _grader(item: QuizItem):
    """A function grading one recorded response to the item as the item stands now, and the
    problem's current tolerance (None for a question)."""
    if item.problem_id:
        tolerance = problem_tolerance(item.problem)

        def grade(response: Response) -> Verdict:
            variant: Variant = response.variant
            # In memory only: this grading uses the current tolerance; apply() stores it.
            variant.atol, variant.rtol = tolerance.atol, tolerance.rtol
            return variant_grade(variant=variant, text=response.text)

        return grade, (tolerance.atol, tolerance.rtol)
    question = Question.objects.prefetch_related("choices").get(pk=item.question_id)

    def grade(response: Response) -> Verdict:
        picked = [choice.pk for choice in response.choices.all()]
        return question_grade(question=question, choice_ids=picked)

    return grade, None


def _regraded(item: QuizItem, attempt_ids: list[int] | None = None):
    """Every attempt whose responses to the item get another verdict, with the new verdicts."""
    grade, tolerance = _grader(item)
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
    attempts = Attempt.objects.filter(pk__in=list(changed)).select_related("quiz", "user")
    result = []
    for attempt in attempts.order_by("pk"):
        overrides = item_overrides(attempt=attempt)
        all_responses = list(Response.objects.filter(attempt=attempt))
        old_fractions = item_scores(attempt=attempt, responses=all_responses, overrides=overrides)
        new_by_id = {r.response_id: r.new for r in changed[attempt.pk]}
        for response in all_responses:
            for name, value in new_by_id.get(response.pk, {}).items():
                setattr(response, name, value)  # in memory: the scores as the regrade makes them
        fractions = item_scores(attempt=attempt, responses=all_responses, overrides=overrides)
        result.append(
            AttemptRegrade(
                attempt_id=attempt.pk,
                learner=attempt.user.get_username(),
                status=attempt.status,
                old_item_score=item.points * old_fractions.get(item.pk, 0.0),
                new_item_score=item.points * fractions.get(item.pk, 0.0),
                old_score=attempt.score,
                new_score=attempt_points(
                    attempt=attempt,
                    points=quiz_points(attempt=attempt),
                    responses=all_responses,
                    overrides=overrides,
                ),
                overridden=item.pk in overrides,
                responses=changed[attempt.pk],
            )
        )
    return result, tolerance


def quiz_item_regrade(*, item: QuizItem, by: AbstractBaseUser, apply: bool) -> RegradeResult:
    """Grade every recorded response to the item again as the item stands now.

    apply=False is a preview and writes nothing. apply=True does the same under a lock on the
    affected attempts, rewrites the changed verdicts, stores the problem's current tolerance on
    the item's variants (later answers in open attempts are graded like the regraded ones),
    writes the audit rows, rescores the attempts and queues the LMS passback.
    """
    item = QuizItem.objects.select_related("quiz", "problem", "question").get(pk=item.pk)
    score_change_authorize(user=by, quiz=item.quiz)
    if not apply:
        attempts, tolerance = _regraded(item)
        return RegradeResult(item=item, applied=False, attempts=attempts, tolerance=tolerance)
    with transaction.atomic():
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
        attempts, tolerance = _regraded(item, attempt_ids=ids)
        if tolerance is not None:
            Variant.objects.filter(quiz_item=item).update(atol=tolerance[0], rtol=tolerance[1])
        regrade = Regrade.objects.create(
            quiz_item=item,
            by=by,
            by_username=by.get_username(),
            atol=tolerance[0] if tolerance else None,
            rtol=tolerance[1] if tolerance else None,
            responses_changed=sum(len(a.responses) for a in attempts),
            attempts_changed=len(attempts),
        )
        told: set[str] = set()
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
            if attempt.status == Attempt.Status.SUBMITTED and moved and entry.learner not in told:
                told.add(entry.learner)
                hooks_after_commit("SOFTGRADE_ATTEMPT_SUBMITTED_HOOKS", attempt=attempt)
    return RegradeResult(
        item=item, applied=True, attempts=attempts, regrade=regrade, tolerance=tolerance
    )
