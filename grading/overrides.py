"""Audited changes to a submitted attempt's score: an instructor overrides one item's score.

A recorded answer is evidence and never changes; a score changes only here or through a regrade
(grading/regrades.py). Each change is a ScoreChange row (who, when, old → new, why); the attempt is
rescored through the one scoring path (grading.services.closing.attempt_rescore, where an
override takes precedence for its item), and the LMS hears of the new score through the
submitted-attempt hooks (LTI grade passback), once the change is committed.
"""

from __future__ import annotations

import math

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils.module_loading import import_string
from django.utils.translation import gettext

from courses.models import Quiz, QuizItem
from grading.models import Attempt, Response, ScoreChange
from grading.scores import attempt_points, item_overrides, item_scores
from grading.services.closing import attempt_rescore
from grading.services.errors import ServiceError
from grading.services.hooks import hooks_after_commit

REASON_MAX_LENGTH = 2000


class ScoreChangeRefused(ServiceError):
    code = "score_change_refused"


class ScoreChangeNotAllowed(ServiceError):
    code = "permission_denied"


def may_change_scores(*, user: AbstractBaseUser, quiz: Quiz) -> bool:
    """May this user override or regrade scores of this quiz's attempts?

    Every score change asks this one function, and it asks the rule SOFTGRADE_SCORE_CHANGE_RULE
    names (teaching.access.may_change_scores: the instructors of the quiz's course and
    superusers), so grading never imports the app that knows course roles. Without a rule only
    active superusers may.
    """
    if not user.is_active:
        return False
    path = getattr(settings, "SOFTGRADE_SCORE_CHANGE_RULE", None)
    if path is None:
        return bool(user.is_superuser)
    return bool(import_string(path)(user=user, quiz=quiz))


def score_change_authorize(*, user: AbstractBaseUser, quiz: Quiz) -> None:
    if not may_change_scores(user=user, quiz=quiz):
        raise ScoreChangeNotAllowed(gettext("Only instructors may change a learner's score."))


def item_points(*, attempt: Attempt, item: QuizItem, overrides: dict[int, float]) -> float:
    """The item's score in points in this attempt now, through the one scoring path."""
    fractions = item_scores(attempt=attempt, responses=attempt.responses.all(), overrides=overrides)
    return item.points * fractions.get(item.pk, 0.0)


def quiz_points(*, attempt: Attempt) -> dict[int, int]:
    """Points per quiz item id of the attempt's quiz."""
    return {item.pk: item.points for item in attempt.quiz.items.all()}


def item_score_override(
    *,
    attempt: Attempt,
    item: QuizItem,
    score: float,
    reason: str,
    by: AbstractBaseUser,
) -> ScoreChange:
    """Set one item's score (in points) in a submitted attempt, with a reason, audited.

    The override is in force from now on, whatever the item's responses say; a later override of
    the same item replaces it (both rows stay). Refusals change nothing.
    """
    score_change_authorize(user=by, quiz=attempt.quiz)
    if item.quiz_id != attempt.quiz_id:
        raise ScoreChangeRefused(gettext("That item is not part of this attempt's quiz."))
    reason = (reason or "").strip()
    if not reason:
        raise ScoreChangeRefused(
            gettext("Give a reason for the override: the learner's record keeps it.")
        )
    if len(reason) > REASON_MAX_LENGTH:
        raise ScoreChangeRefused(
            gettext("Keep the reason under %(count)d characters.") % {"count": REASON_MAX_LENGTH}
        )
    if (
        isinstance(score, bool)
        or not isinstance(score, int | float)
        or not math.isfinite(score)
        or not 0 <= score <= item.points
    ):
        raise ScoreChangeRefused(
            gettext(
                "The score must be a number from 0 to %(points)s (the item's points); "
                "got %(score)s."
            )
            % {"points": item.points, "score": repr(score)}
        )
    with transaction.atomic():
        locked = Attempt.objects.select_for_update().select_related("quiz").get(pk=attempt.pk)
        if locked.status != Attempt.Status.SUBMITTED:
            raise ScoreChangeRefused(
                gettext(
                    "Only a submitted attempt's score can be overridden; this one is still in "
                    "progress."
                )
            )
        overrides = item_overrides(attempt=locked)
        old_item = item_points(attempt=locked, item=item, overrides=overrides)
        overrides[item.pk] = float(score) / item.points
        new_total = attempt_points(
            attempt=locked,
            points=quiz_points(attempt=locked),
            responses=Response.objects.filter(attempt=locked),
            overrides=overrides,
        )
        old_total = locked.score
        change = ScoreChange.objects.create(
            kind=ScoreChange.Kind.OVERRIDE,
            attempt=locked,
            learner_id=locked.user_id,
            quiz_item=item,
            points=item.points,
            old_score=old_item,
            new_score=float(score),
            old_attempt_score=old_total,
            new_attempt_score=new_total,
            reason=reason,
            by=by,
            by_username=by.get_username(),
        )
        attempt_rescore(attempt=locked)
        if locked.score != old_total:
            hooks_after_commit("SOFTGRADE_ATTEMPT_SUBMITTED_HOOKS", attempt=locked)
    attempt.refresh_from_db()
    return change
