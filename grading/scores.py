"""What answers and attempts count for, defined once: an item's score, tries left, solved, an
attempt's points, a learner's best score at a quiz and mastered practice problems.

Services, selectors, pages, the API and LTI passback all ask here, so a page, a grade export and
the LMS never disagree. What a learner may *see* of these is grading.policy's decision.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Max, Q, QuerySet

from courses.models import Quiz
from courses.visibility import practice_problem
from grading import engine, policy
from grading.models import Attempt, Response, ScoreChange, counted_attempt

# Only a submitted attempt's score counts: an exam's saved answers are graded before
# submission, and a running score would tell which of them are right.
SUBMITTED = Q(status=Attempt.Status.SUBMITTED)

# A streak that reached PracticeStreak.MASTERY on a problem learners may practise now: a streak
# left from before it became exam-only, or unpublished, does not count.
MASTERED = Q(mastered_at__isnull=False) & practice_problem("problem__")


class Scored(Protocol):
    """What the scoring rules read of a response: a Response, or a row of the same fields
    (values_list(..., named=True)) where tens of thousands are read at once (quiz statistics)."""

    @property
    def id(self) -> int: ...
    @property
    def quiz_item_id(self) -> int | None: ...
    @property
    def score(self) -> float: ...
    @property
    def counts_as_try(self) -> bool: ...
    @property
    def created_at(self) -> datetime: ...


def solved(tries: Iterable[Response]) -> bool:
    """Whether an item (or a practice variant) is solved: one of its counted tries is correct."""
    return any(r.counts_as_try and r.status == Response.Status.CORRECT for r in tries)


def try_counts(*, verdict: engine.Verdict, quiz: Quiz | None) -> bool:
    """Whether a graded answer uses up a try: never when unreadable; a near miss the engine
    gives back (the right value to too few significant figures) is free in practice (no quiz)
    and in a quiz that counts tries (feedback per item) and keeps its rounding retries on. A
    quiz without feedback per item scores its latest saved answer, so there every readable
    answer counts."""
    if verdict.status == "invalid":
        return False
    if verdict.costs_try:
        return True
    if quiz is None:
        return False
    return not (policy.immediate_feedback(quiz) and quiz.rounding_retries)


def tries_left(*, quiz: Quiz, tries: Sequence[Response]) -> int | None:
    """How many more tries an item takes, given its tries so far: none once solved, and None
    when the quiz saves answers instead of counting tries (no immediate feedback)."""
    if not policy.immediate_feedback(quiz):
        return None
    if solved(tries):
        return 0
    return max(0, quiz.tries_per_item - sum(1 for r in tries if r.counts_as_try))


@dataclass(frozen=True)
class ScoringRule:
    """How a quiz scores an item from its tries: the best try with immediate feedback (less
    `extra_try_penalty` of the item for each try before it), else the latest saved answer."""

    immediate: bool
    extra_try_penalty: float = 0.0


def scoring_rule(quiz: Quiz) -> ScoringRule:
    """The quiz's ScoringRule. Only tries with immediate feedback are counted, so only they
    are penalised (the quiz's constraints refuse a penalty elsewhere; this holds regardless)."""
    immediate = policy.immediate_feedback(quiz)
    return ScoringRule(
        immediate=immediate, extra_try_penalty=quiz.extra_try_penalty if immediate else 0.0
    )


def try_score(*, rule: ScoringRule, score: float, earlier_tries: int) -> float:
    """What a counted try scores (0 to 1) after `earlier_tries` counted tries on its item:
    its own score less the penalty for each of them, never below 0."""
    return max(0.0, score - rule.extra_try_penalty * earlier_tries)


def _scored_tries[T: Scored](rule: ScoringRule, tries: Sequence[T]) -> list[tuple[float, T]]:
    return [
        (try_score(rule=rule, score=row.score, earlier_tries=index), row)
        for index, row in enumerate(tries)
    ]


def counting_try[T: Scored](*, rule: ScoringRule, tries: Sequence[T]) -> T | None:
    """Of an item's counted tries in order, the one whose score is the item's: the best after
    the penalty with immediate feedback (the first of equals), else the latest saved answer;
    None when none."""
    if not tries:
        return None
    if not rule.immediate:
        return tries[-1]
    return max(_scored_tries(rule, tries), key=lambda pair: pair[0])[1]


def item_score(*, rule: ScoringRule, tries: Sequence[Scored]) -> float:
    """An item's score (0 to 1) from its counted tries in order: counting_try's, after the
    penalty for the tries before it; 0 when none. The one place a try becomes an item's score."""
    if not tries:
        return 0.0
    if not rule.immediate:
        return tries[-1].score
    return max(score for score, _ in _scored_tries(rule, tries))


def item_scores(
    *,
    attempt: Attempt,
    responses: Iterable[Scored],
    overrides: Mapping[int, float] | None = None,
) -> dict[int, float]:
    """Score per quiz item id from the attempt's responses (0 to 1, before points), each as
    item_score has it. An instructor's override (`overrides`, from item_overrides) is its item's
    score whatever the responses say."""
    rule = scoring_rule(attempt.quiz)
    counted: dict[int, list[Scored]] = defaultdict(list)
    for response in sorted(responses, key=lambda r: (r.created_at, r.id)):
        if response.counts_as_try:
            counted[response.quiz_item_id].append(response)
    scores = {item_id: item_score(rule=rule, tries=tries) for item_id, tries in counted.items()}
    scores.update(overrides or {})
    return scores


def override_fraction(*, override: float, points: int) -> float:
    """The score (0 to 1) an override counts for on an item worth `points`. An override is a
    number of points, as the instructor typed it, and keeps them when the item's points change
    later (1.5 stays 1.5 of 2 or of 4), capped at the item's points should they drop below it."""
    return min(override, points) / points


def _overrides_by_attempt(
    changes: QuerySet[ScoreChange], points: Mapping[int, int] | None = None
) -> dict[int, dict[int, float]]:
    """Attempt id -> quiz item id -> the score (0 to 1) in force: the latest override wins,
    at each item's points (from `points`, item id -> points, where given)."""
    rows = (
        changes.filter(kind=ScoreChange.Kind.OVERRIDE)
        .order_by("created_at", "id")
        .values_list("attempt_id", "quiz_item_id", "new_score", "quiz_item__points")
    )
    found: dict[int, dict[int, float]] = defaultdict(dict)
    for attempt_id, item_id, override, item_points in rows:
        worth = points.get(item_id, item_points) if points else item_points
        found[attempt_id][item_id] = override_fraction(override=override, points=worth)
    return found


def item_overrides(*, attempt: Attempt) -> dict[int, float]:
    """The scores (0 to 1) instructors set for items of a submitted attempt, by quiz item id;
    the latest override of an item is in force (grading/overrides.py writes them)."""
    if attempt.status != Attempt.Status.SUBMITTED:
        return {}  # only submitted attempts are overridden: no query for the others
    changes = ScoreChange.objects.filter(attempt=attempt)
    return _overrides_by_attempt(changes).get(attempt.pk, {})


def quiz_item_overrides(
    *, quiz: Quiz, points: Mapping[int, int] | None = None
) -> dict[int, dict[int, float]]:
    """item_overrides of every attempt at a quiz, by attempt id, in one query (attempts without
    an override are absent); with `points` (item id -> points), as they count at those points
    (a points change's plan, grading/quiz_edits.py)."""
    return dict(_overrides_by_attempt(ScoreChange.objects.filter(attempt__quiz=quiz), points))


def attempt_points(
    *,
    attempt: Attempt,
    points: Mapping[int, int],
    responses: Iterable[Scored],
    overrides: Mapping[int, float],
) -> float:
    """The attempt's score in points: each item's score (item_scores) times its points."""
    scores = item_scores(attempt=attempt, responses=responses, overrides=overrides)
    return float(sum(points[item_id] * score for item_id, score in scores.items()))


def best_score() -> Max:
    """A learner's best score at a quiz, as an aggregate over their attempts: the highest score
    of a submitted attempt that counts (no preview), None while none is submitted."""
    return Max("score", filter=SUBMITTED & counted_attempt())


def best_of(attempts: Iterable[Attempt]) -> Attempt | None:
    """Of one learner's attempts at a quiz, the submitted one whose score is best_score: the
    highest score, the latest submitted of equals (then the latest made); None while none is
    submitted. The LMS is sent its score, and the instructor pages' "best attempt" is it."""
    submitted = [a for a in attempts if a.status == Attempt.Status.SUBMITTED]
    return max(submitted, key=lambda a: (a.score, a.submitted_at, a.pk), default=None)


def best_attempt(*, user: AbstractBaseUser, quiz: Quiz) -> Attempt | None:
    """The learner's best_of attempt at the quiz."""
    return best_of(Attempt.objects.counted().filter(SUBMITTED, user=user, quiz=quiz))
