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
The answers are read as plain rows, and each distinct answer (a question's set of choices
picked; a problem's variant numbers and typed text) is graded once: a preview of 9,000 answers
grades a few hundred (grading/regrade_graders.py). An item drawing from a pool has no one question
or problem to fix: each answer is graded against the question or problem it answered, as it
stands; reading those costs three queries where a fixed item's question and choices cost two.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F, TextField
from django.db.models.functions import Cast
from django.utils import translation

from courses.content_versions import content_changed
from courses.models import QuizItem
from grading.models import Attempt, Regrade, Response, ScoreChange, Variant
from grading.overrides import score_change_authorize
from grading.regrade_fixes import ItemFix, fixed_content
from grading.regrade_graders import (
    AnswerKey,
    Grader,
    item_grader,
    key_language,
    store_pool_tolerances,
)
from grading.scores import attempt_points, item_scores, quiz_item_overrides
from grading.services.closing import attempt_rescore
from grading.services.errors import ServiceError
from grading.services.hooks import hooks_after_commit
from grading.services.verdicts import verdict_fields

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
    # An instructor's preview attempt: regraded like the others so it stays consistent, but
    # not a learner's record (grading.models.counted_attempt): not counted, never passed back.
    preview: bool = False

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
    def learners(self) -> list[AttemptRegrade]:
        """The learners' attempts the regrade changes: what the pages list and count."""
        return [a for a in self.attempts if not a.preview]

    @property
    def previews(self) -> list[AttemptRegrade]:
        """Instructors' preview attempts it changes too, only mentioned by number."""
        return [a for a in self.attempts if a.preview]

    @property
    def gainers(self) -> list[AttemptRegrade]:
        return [a for a in self.learners if a.change > 0]

    @property
    def losers(self) -> list[AttemptRegrade]:
        return [a for a in self.learners if a.change < 0]

    @property
    def unchanged(self) -> list[AttemptRegrade]:
        """Attempts whose verdicts change but not their score (an override, an invalid try)."""
        return [a for a in self.learners if a.change == 0]

    @property
    def responses_changed(self) -> int:
        """The learners' answers with a new verdict."""
        return sum(len(a.responses) for a in self.learners)

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


def _answers(item: QuizItem, grader: Grader, attempt_ids: list[int] | None) -> list[Any]:
    """The item's recorded answers in attempts (of `attempt_ids` when given), oldest first, as
    plain rows (id, attempt_id, the verdict columns, what the grader reads: a problem's variant
    as text, no JSON decoded but the verdict's), each with the ids of the choices it picked,
    ascending. Two queries for a question or a pool item (its answers, their choices), one for
    a problem."""
    found = Response.objects.filter(quiz_item=item, attempt__isnull=False)
    if attempt_ids is not None:
        found = found.filter(attempt_id__in=attempt_ids)
    variant = {
        "family": F("variant__family"),
        "givens": Cast("variant__givens", TextField()),
        "grading_key": Cast("variant__grading_key", TextField()),
        "drawn_problem": F("variant__problem_id"),  # a pool item's: the problem answered
    }
    extra = {name: variant[name] for name in grader.fields if name in variant}
    rows = list(
        found.annotate(**extra)
        .order_by("created_at", "id")
        .values_list("id", "attempt_id", *VERDICT_FIELDS, *grader.fields, named=True)
    )
    picked: dict[int, list[int]] = defaultdict(list)
    if grader.picks:
        links = Response.choices.through.objects.filter(response__in=found.values("pk"))
        for response_id, choice_id in links.order_by().values_list("response_id", "choice_id"):
            picked[response_id].append(choice_id)
    return [(row, tuple(sorted(picked.get(row.id, ())))) for row in rows]


def _regraded(
    item: QuizItem, grader: Grader, attempt_ids: list[int] | None = None
) -> list[AttemptRegrade]:
    """Every attempt whose responses to the item get another verdict, with the new verdicts
    and its scores before and after. Six queries whatever the number of attempts (a pool
    item's grader has read what its answers answered: grading.regrade_graders)."""
    verdicts: dict[AnswerKey, dict] = {}
    changed: dict[int, list[ResponseRegrade]] = defaultdict(list)
    for row, picked in _answers(item, grader, attempt_ids):
        key = grader.key(row, picked)
        if key not in verdicts:
            # Through JSON, as stored: a tuple in the engine's detail is the list read back. In
            # the language the answer's feedback was written in, the learner's.
            with translation.override(key_language(key)):
                fields = verdict_fields(grader.grade(key), quiz=item.quiz)
            verdicts[key] = json.loads(json.dumps(fields))
        old = {name: getattr(row, name) for name in VERDICT_FIELDS}
        if verdicts[key] != old:
            changed[row.attempt_id].append(ResponseRegrade(row.id, old, verdicts[key]))
    if not changed:
        return []
    attempts = Attempt.objects.filter(pk__in=list(changed)).select_related("user").order_by("pk")
    every_response: dict[int, list[Any]] = defaultdict(list)
    scored = Response.objects.filter(attempt_id__in=list(changed)).order_by()
    for response in scored.values_list(*SCORED_FIELDS, named=True):
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
        # The scores as the regrade makes them.
        mine = [
            response._replace(
                score=new_by_id[response.id]["score"],
                counts_as_try=new_by_id[response.id]["counts_as_try"],
            )
            if response.id in new_by_id
            else response
            for response in mine
        ]
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
                preview=attempt.preview,
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
        grader = item_grader(item, content)
        return RegradeResult(
            item=item,
            applied=False,
            attempts=_regraded(item, grader),
            tolerance=grader.tolerance,
            fix=content.changes,
        )
    with transaction.atomic():
        content = fixed_content(item=item, fix=fix, by=by, lock=True)
        grader = item_grader(item, content)
        tolerance = grader.tolerance
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
        attempts = _regraded(item, grader, attempt_ids=ids)
        planned = RegradeResult(
            item=item, applied=False, attempts=attempts, tolerance=tolerance, fix=content.changes
        )
        if expected_digest is not None and planned.digest != expected_digest:
            raise RegradeStale(
                "Answers, scores or the item changed since this preview, so it was not applied: "
                "check the new preview below and apply it if it is right."
            )
        content.save()
        # What the sheets of every quiz showing this question or problem say may have changed
        # (a tolerance in the hint, a pool item's variants): they are rendered again.
        content_changed(
            quiz_ids=[item.quiz_id],
            question_ids=[item.question_id] if item.question_id else [],
            problem_ids=[item.problem_id] if item.problem_id else [],
        )
        if tolerance is not None:
            Variant.objects.filter(quiz_item=item).update(atol=tolerance[0], rtol=tolerance[1])
        elif item.pool_id:
            store_pool_tolerances(item)
        regrade = Regrade.objects.create(
            quiz_item=item,
            by=by,
            by_username=by.get_username(),
            atol=tolerance[0] if tolerance else None,
            rtol=tolerance[1] if tolerance else None,
            fix=content.changes,
            responses_changed=planned.responses_changed,
            attempts_changed=len(planned.learners),
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
        if entry.preview:
            continue  # an instructor's preview: no learner's record, nothing for the LMS
        if submitted and moved and entry.learner not in learners_told:
            learners_told.add(entry.learner)
            told.append(attempt.pk)
            hooks_after_commit("SOFTGRADE_ATTEMPT_SUBMITTED_HOOKS", attempt=attempt)
    return told
