"""Changing the points of items of a quiz learners have attempted: an audited regrade.

An attempt's total and maximum are stored (Attempt.score, Attempt.max_score) and every report,
the grades API and the LMS read them, while an item's mark is its score times the item's points
now. So a points change is never a plain save: `quiz_points_change` (the quiz admin and the bank
import call it, through settings, as courses never imports grading) changes the points and, in
the same transaction, recomputes every attempt's total and maximum by grading.scores' rule,
writes one Regrade row per changed item (its points before and after in `fix`) with one
ScoreChange per attempt whose item score moved (who gains, who loses), and tells the LMS of each
learner whose submitted score or maximum moved, once. `quiz_points_plan` says all of it before
anything is written, and the same words name what was done.

An instructor's override is a number of points (grading.scores.override_fraction): it keeps them
across a points change, capped at the item's new points (the plan names each one capped).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Count
from django.utils import timezone
from django.utils.translation import gettext as _

from courses.content_versions import content_changed
from courses.models import Quiz, QuizItem
from grading.models import Attempt, Regrade, Response, ScoreChange, counted_attempt
from grading.overrides import (
    ScoreChangeNotAllowed,
    ScoreChangeRefused,
    score_change_authorize,
)
from grading.points_plans import (
    AttemptRescore,
    CappedOverride,
    ItemRescore,
    PointsChange,
    PointsPlan,
)
from grading.scores import attempt_points, item_scores, quiz_item_overrides
from grading.services.errors import ServiceError
from grading.services.hooks import hooks_after_commit

# What item_scores reads of every response of an attempt.
SCORED_FIELDS = ("id", "attempt_id", "quiz_item_id", "created_at", "counts_as_try", "score")


class PointsChangeStale(ServiceError):
    code = "points_change_stale"


def _changes(quiz: Quiz, items: list[QuizItem], points: Mapping[int, int]) -> list[PointsChange]:
    numbers = {item.pk: number for number, item in enumerate(items, start=1)}
    unknown = set(points) - set(numbers)
    if unknown:
        raise ScoreChangeRefused(
            _("Items %(items)s are not items of “%(quiz)s”.")
            % {"items": sorted(unknown), "quiz": quiz.title}
        )
    found = []
    for item in items:
        new = points.get(item.pk, item.points)
        if isinstance(new, bool) or not isinstance(new, int) or new < 1:
            raise ScoreChangeRefused(
                _("Item %(number)s's points must be a whole number of at least 1; got %(value)s.")
                % {"number": numbers[item.pk], "value": repr(new)}
            )
        if new != item.points:
            found.append(PointsChange(item.pk, numbers[item.pk], item.points, new))
    return found


def _plan(quiz: Quiz, items: list[QuizItem], changes: list[PointsChange]) -> PointsPlan:
    """Every attempt's total and maximum at the new points, by grading.scores' rule. Five
    queries whatever the number of attempts (attempts, answers, overrides at old and new, those
    capped); one (the number of attempts) when nothing changes."""
    if not changes:
        counts = Attempt.objects.filter(quiz=quiz).aggregate(
            counted=Count("pk", filter=counted_attempt()),
            previews=Count("pk", filter=~counted_attempt()),
        )
        return PointsPlan(quiz=quiz, changes=(), attempts=(), **counts)
    attempts = list(Attempt.objects.filter(quiz=quiz).select_related("user").order_by("pk"))
    if not attempts:
        return PointsPlan(quiz=quiz, changes=tuple(changes), attempts=())
    answers: dict[int, list[Any]] = defaultdict(list)
    rows = Response.objects.filter(attempt__quiz=quiz).order_by()
    for row in rows.values_list(*SCORED_FIELDS, named=True):
        answers[row.attempt_id].append(row)
    # The points after each change in turn: stage k has the first k changes made.
    stages = [{item.pk: item.points for item in items}]
    for change in changes:
        stages.append({**stages[-1], change.item_id: change.new})
    overrides = [
        quiz_item_overrides(quiz=quiz, points=stages[0]),
        quiz_item_overrides(quiz=quiz, points=stages[-1]),
    ]
    numbers = {item.pk: number for number, item in enumerate(items, start=1)}
    capped = _capped(quiz, {c.item_id: c.new for c in changes}, numbers)
    result = []
    for attempt in attempts:
        attempt.quiz = quiz
        # Only a submitted attempt is overridden (grading.scores.item_overrides).
        submitted = attempt.status == Attempt.Status.SUBMITTED
        mine = answers[attempt.pk]
        before = overrides[0].get(attempt.pk, {}) if submitted else {}
        after = overrides[1].get(attempt.pk, {}) if submitted else {}
        old_fractions = item_scores(attempt=attempt, responses=mine, overrides=before)
        new_fractions = item_scores(attempt=attempt, responses=mine, overrides=after)
        totals = [
            attempt_points(
                attempt=attempt,
                points=stage,
                responses=mine,
                overrides=before if index == 0 else after,
            )
            for index, stage in enumerate(stages)
        ]
        rescored = tuple(
            ItemRescore(
                item_id=change.item_id,
                old_score=change.old * old_fractions.get(change.item_id, 0.0),
                new_score=change.new * new_fractions.get(change.item_id, 0.0),
                old_total=totals[index],
                new_total=totals[index + 1],
            )
            for index, change in enumerate(changes)
        )
        result.append(
            AttemptRescore(
                attempt_id=attempt.pk,
                user_id=attempt.user_id,
                learner=attempt.user.get_username(),
                number=attempt.number,
                status=attempt.status,
                preview=attempt.preview,
                old_score=attempt.score,
                new_score=totals[-1],
                old_max=attempt.max_score,
                new_max=float(sum(stages[-1].values())),
                items=tuple(r for r in rescored if r.old_score != r.new_score),
            )
        )
    previews = sum(1 for attempt in attempts if attempt.preview)
    return PointsPlan(
        quiz=quiz,
        changes=tuple(changes),
        attempts=tuple(result),
        counted=len(attempts) - previews,
        previews=previews,
        capped=tuple(capped),
    )


def _capped(quiz: Quiz, points: dict[int, int], numbers: dict[int, int]) -> list[CappedOverride]:
    """The overrides in force on the items `points` changes (item id -> new points) that
    exceed their item's new points."""
    latest: dict[tuple[int, int], tuple[str, float]] = {}
    rows = (
        ScoreChange.objects.filter(
            attempt__quiz=quiz,
            attempt__status=Attempt.Status.SUBMITTED,
            kind=ScoreChange.Kind.OVERRIDE,
            quiz_item_id__in=list(points),
        )
        .order_by("created_at", "id")
        .values_list("attempt_id", "quiz_item_id", "attempt__user__username", "new_score")
    )
    for attempt_id, item_id, username, override in rows:
        latest[(attempt_id, item_id)] = (username, override)
    return [
        CappedOverride(username, numbers[item_id], override, points[item_id])
        for (_attempt, item_id), (username, override) in latest.items()
        if override > points[item_id]
    ]


def quiz_points_plan(
    *,
    quiz: Quiz,
    points: Mapping[int, int] | None = None,
    by: AbstractBaseUser | None = None,
) -> PointsPlan:
    """What changing the quiz's item points to `points` (item id -> points; items left out
    keep theirs) would do to its attempts. Writes nothing; with no `points`, the attempts as
    they stand (its `notice` says how many there are). With `by`, its `refusal` says why that
    user may not apply it, if they may not."""
    items = list(quiz.items.order_by("order", "id"))
    plan = _plan(quiz, items, _changes(quiz, items, points or {}))
    if by is not None and plan.changes and plan.learners:
        try:
            score_change_authorize(user=by, quiz=quiz)
        except ScoreChangeNotAllowed:
            refusal = _(
                "Changing these points regrades learners' attempts, which only an instructor "
                "of the quiz's course may do."
            )
            return replace(plan, refusal=refusal)
    return plan


def quiz_points_change(
    *,
    quiz: Quiz,
    points: Mapping[int, int],
    by: AbstractBaseUser,
    expected_digest: str | None = None,
) -> PointsPlan:
    """Change the points of the quiz's items (item id -> points) and regrade its attempts,
    audited; returns what was done (applied=True).

    Under locks on the quiz's items and attempts, the plan is made again (with
    `expected_digest`, the plan shown before, a different one is refused: PointsChangeStale),
    the points are saved, each attempt's total and maximum are written by grading.scores' rule,
    each changed item gets a Regrade row and a ScoreChange per attempt whose item score moved,
    and each learner whose submitted score or maximum moved is passed back once, after commit.
    Changing the points of a quiz with learners' attempts takes the right to change its scores
    (grading.overrides.may_change_scores). Refusals change nothing.
    """
    with transaction.atomic():
        items = list(QuizItem.objects.select_for_update().filter(quiz=quiz).order_by("order", "id"))
        changes = _changes(quiz, items, points)
        ids = list(Attempt.objects.filter(quiz=quiz).order_by("pk").values_list("pk", flat=True))
        list(Attempt.objects.select_for_update().filter(pk__in=ids).order_by("pk").values("pk"))
        plan = _plan(quiz, items, changes)
        if plan.learners:
            score_change_authorize(user=by, quiz=quiz)
        if expected_digest is not None and plan.digest != expected_digest:
            raise PointsChangeStale(
                _(
                    "Attempts or points changed since this was shown, so nothing was changed: "
                    "check what the change does now and save again."
                )
            )
        if not changes:
            return plan
        for change in changes:
            QuizItem.objects.filter(pk=change.item_id).update(points=change.new)
        content_changed(quiz_ids=[quiz.pk])
        if not plan.attempts:
            return replace(plan, applied=True)
        regrades = _audit(plan, by)
        _rescore(plan)
        told = [entry.attempt_id for entry in plan.told]
        for attempt in Attempt.objects.filter(pk__in=told).select_related("user", "quiz"):
            hooks_after_commit("SOFTGRADE_ATTEMPT_SUBMITTED_HOOKS", attempt=attempt)
    return replace(plan, applied=True, regrades=tuple(regrades), passed_back=tuple(told))


def quiz_item_points_change(*, item: QuizItem, points: int, by: AbstractBaseUser) -> PointsPlan:
    """Change one item's points and regrade the attempts at its quiz (quiz_points_change)."""
    return quiz_points_change(quiz=item.quiz, points={item.pk: points}, by=by)


def _audit(plan: PointsPlan, by: AbstractBaseUser) -> list[Regrade]:
    """One Regrade per changed item, with a ScoreChange per attempt whose item score moved."""
    regrades = []
    for change in plan.changes:
        rows = [
            (entry, rescore)
            for entry in plan.attempts
            for rescore in entry.items
            if rescore.item_id == change.item_id
        ]
        regrade = Regrade.objects.create(
            quiz_item_id=change.item_id,
            by=by,
            by_username=by.get_username(),
            fix=[{"points": [change.old, change.new]}],
            responses_changed=0,
            attempts_changed=sum(1 for entry, _rescore in rows if not entry.preview),
        )
        ScoreChange.objects.bulk_create(
            [
                ScoreChange(
                    kind=ScoreChange.Kind.REGRADE,
                    attempt_id=entry.attempt_id,
                    learner_id=entry.user_id,
                    quiz_item_id=change.item_id,
                    regrade=regrade,
                    points=change.new,
                    old_score=rescore.old_score,
                    new_score=rescore.new_score,
                    old_attempt_score=rescore.old_total,
                    new_attempt_score=rescore.new_total,
                    by=by,
                    by_username=by.get_username(),
                )
                for entry, rescore in rows
            ]
        )
        regrades.append(regrade)
    return regrades


def _rescore(plan: PointsPlan) -> None:
    """Each attempt's total and maximum as planned (the same rule as attempt_rescore)."""
    now = timezone.now()
    attempts = []
    for entry in plan.attempts:
        attempt = Attempt(pk=entry.attempt_id, score=entry.new_score, max_score=entry.new_max)
        attempt.updated_at = now
        attempts.append(attempt)
    Attempt.objects.bulk_update(attempts, ["score", "max_score", "updated_at"], batch_size=500)
