"""What may change of a quiz learners have attempted, for the quiz admin and the bank import.

Attempts name a quiz's items (their answers, draws and variants) and their totals add up the
items' points. So once a quiz has attempts, its items keep their place and their question,
problem or pool, and none is added or removed; their points change only through grading's
audited regrade (grading/quiz_edits.py), which says beforehand what the change will do. The two
functions of grading are named in settings, as courses never imports grading; without them a
quiz's items are edited as if it had no attempts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.utils.module_loading import import_string
from django.utils.translation import gettext_lazy, ngettext

from .models import Quiz

# Why items of an attempted quiz are not added, removed, reordered or replaced.
ITEMS_KEPT = gettext_lazy(
    "its attempts name its items and add up their points, so items cannot be added, removed, "
    "reordered or given another question, problem or pool; only their points can change "
    "(regraded). Make a new quiz for other items."
)


class PointsPlan(Protocol):
    """What grading.quiz_edits says of a change of points (grading.points_plans.PointsPlan)."""

    counted: int
    previews: int
    changes: tuple
    refusal: str
    digest: str

    def notice(self) -> str: ...

    def outcome(self) -> str: ...


def _named(setting: str):
    path = getattr(settings, setting, None)
    return import_string(path) if path else None


def points_plan(
    *,
    quiz: Quiz,
    points: Mapping[int, int] | None = None,
    by: AbstractBaseUser | None = None,
) -> PointsPlan | None:
    """What changing the quiz's item points (item id -> points) would do to its attempts;
    None when no plan is named in settings."""
    plan = _named("SOFTGRADE_QUIZ_POINTS_PLAN")
    return None if plan is None or quiz.pk is None else plan(quiz=quiz, points=points, by=by)


def points_change(
    *, quiz: Quiz, points: Mapping[int, int], by: AbstractBaseUser | None
) -> PointsPlan | None:
    """Change the items' points through the regrade named in settings, or save them as they
    are where none is named; what was done, or None."""
    change = _named("SOFTGRADE_QUIZ_POINTS_CHANGE")
    if change is None:
        for item in quiz.items.filter(pk__in=list(points)):
            item.points = points[item.pk]
            item.save(update_fields=["points"])
        return None
    return change(quiz=quiz, points=points, by=by)


def prepared_attempts_discard(*, quiz: Quiz) -> None:
    """Delete the attempts prepared at the quiz and never started, through the function named
    in settings (SOFTGRADE_QUIZ_PREPARED_DISCARD; nothing without one). Their draws and
    variants name its items, which would keep an item from being removed; a change of the items
    makes them stale anyway, and their learners' next quiz page or start makes them afresh."""
    discard = _named("SOFTGRADE_QUIZ_PREPARED_DISCARD")
    if discard is not None and quiz.pk is not None:
        discard(quiz=quiz)


def attempted(plan: PointsPlan | None) -> bool:
    """Whether the quiz the plan is of has attempts, an instructor's preview included (a
    preview's answers name the items too)."""
    return plan is not None and plan.counted + plan.previews > 0


def items_kept(plan: PointsPlan) -> str:
    """Why an attempted quiz's items stay as they are, with its number of attempts (lower case,
    as a bank error; capfirst for a sentence)."""
    attempts = plan.counted + plan.previews
    return ngettext(
        "this quiz has %(count)d attempt: ", "this quiz has %(count)d attempts: ", attempts
    ) % {"count": attempts} + str(ITEMS_KEPT)
