"""Reads for the override and regrade pages: an attempt's score changes item by item, an item's
score in an attempt now, a quiz item's place, content, other uses and past regrades. Each costs
one or two queries."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Q

from courses.models import Choice, Misconception, QuizItem
from grading import engine
from grading.engine import Tolerance
from grading.families import problem_tolerance
from grading.models import Attempt, Regrade, ScoreChange
from grading.overrides import item_points
from grading.regrade_fixes import misconception_choices
from grading.scores import item_overrides


def attempt_score_changes(*, attempt: Attempt) -> dict[int, list[ScoreChange]]:
    """Every override and regrade of the attempt's items, oldest first, by quiz item id."""
    found: dict[int, list[ScoreChange]] = defaultdict(list)
    for change in ScoreChange.objects.filter(attempt=attempt).order_by("created_at", "id"):
        found[change.quiz_item_id].append(change)
    return dict(found)


def item_points_now(*, attempt: Attempt, item: QuizItem) -> float:
    """The item's score in points in the attempt now, an override included (two queries)."""
    return item_points(attempt=attempt, item=item, overrides=item_overrides(attempt=attempt))


def item_number(item: QuizItem) -> int:
    """The item's place in its quiz's order, from 1 (learners of a shuffled quiz saw their own
    order; this is the quiz's, as the results grid numbers its columns)."""
    ids = list(QuizItem.objects.filter(quiz_id=item.quiz_id).values_list("pk", flat=True))
    return ids.index(item.pk) + 1


@dataclass(frozen=True)
class QuestionNow:
    """A question item's choices as authored now and the misconceptions a fix may name."""

    choices: list[Choice]
    misconceptions: list[Misconception]


def question_now(item: QuizItem) -> QuestionNow:
    choices = Choice.objects.filter(question_id=item.question_id).select_related("misconception")
    return QuestionNow(
        choices=list(choices.order_by("order", "pk")),
        misconceptions=misconception_choices(item.question),
    )


@dataclass(frozen=True)
class ProblemNow:
    """A problem item's tolerance in force now (its own, or its family's default) and the
    family's default."""

    tolerance: Tolerance
    default: Tolerance
    own: bool


def problem_now(item: QuizItem) -> ProblemNow:
    problem = item.problem
    return ProblemNow(
        tolerance=problem_tolerance(problem),
        default=engine.get_family(problem.family).default_tolerance,
        own=problem.atol is not None,
    )


def other_uses(item: QuizItem) -> list[QuizItem]:
    """The other quiz items that use the item's question or problem (a fix changes them too);
    none for a pool item, which takes no fix."""
    if item.pool_id:
        return []
    content = Q(question_id=item.question_id) if item.question_id else Q(problem=item.problem_id)
    return list(
        QuizItem.objects.filter(content)
        .exclude(pk=item.pk)
        .select_related("quiz")
        .order_by("quiz__title", "pk")
    )


def item_regrades(item: QuizItem) -> list[Regrade]:
    """The item's regrades, latest first."""
    return list(Regrade.objects.filter(quiz_item=item).order_by("-created_at", "-id"))
