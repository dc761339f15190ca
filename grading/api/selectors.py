"""Reads behind the grading API, each narrowed to what the caller's Scope reaches.

Rows come with their related rows fetched up front, so every endpoint costs a fixed number of
queries whatever the page size; tests/api pins those counts.
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from django.contrib.auth import get_user_model
from django.db.models import Count, F, FilteredRelation, Max, Q, QuerySet

from api.scope import Scope
from config.statements import Statement, columns, instance
from courses.markup import MarkupError, render_markup
from courses.models import Problem, Quiz, QuizItem
from grading import engine, services
from grading.models import Attempt, PracticeStreak, Variant
from integrations.api.scope import KeyScope
from integrations.models import ApiKey


def attempts(*, scope: Scope) -> QuerySet[Attempt]:
    """The attempts the caller may see, with quiz, course and learner."""
    rows = Attempt.objects.select_related("quiz__lesson__course", "user__integration_learner")
    return scope.courses(scope.owned(rows), "quiz__lesson__course")


def attempt_to_answer(*, scope: Scope, attempt_id: int) -> Attempt | None:
    """One attempt with what answering needs: its quiz (the learner is used by id)."""
    rows = scope.courses(
        scope.owned(Attempt.objects.select_related("quiz")), "quiz__lesson__course"
    )
    return next(iter(rows.filter(pk=attempt_id).order_by()[:1]), None)


_ANSWER_COLUMNS = (
    (Variant, ""),
    (Attempt, "attempt"),
    (Quiz, "attempt__quiz"),
    (QuizItem, "quiz_item"),
)


class VariantToAnswer(NamedTuple):
    """A problem item's variant in an attempt (with attempt, quiz and item) and the item's
    counted tries so far, oldest first, read in the same query as the attempt."""

    variant: Variant
    tries: list[services.Try]


_TRY_COLUMNS = [f"counted__{name}" for name in services.Try._fields]


def variant_to_answer_rows(*, scope: Scope, attempt_id: int, item_id: int) -> QuerySet:
    """The read behind variant_to_answer, as a values_list queryset: one row per counted try
    (an attempt's variant is the one its item's answers are graded on), or one row with empty
    try columns, or none."""
    counted = FilteredRelation("responses", condition=Q(responses__counts_as_try=True))
    rows = scope.courses(
        scope.owned(Variant.objects.annotate(counted=counted), "attempt__user"),
        "attempt__quiz__lesson__course",
        confirm=True,
    )
    names = [name for model, path in _ANSWER_COLUMNS for name in columns(model, path)]
    return (
        rows.filter(attempt_id=attempt_id, quiz_item_id=item_id)
        .order_by("counted__created_at", "counted__id")
        .values_list(*names, *_TRY_COLUMNS)
    )


# Compiled once per connection: answering is the API's hottest path (config/statements.py).
_VARIANT_FOR_KEY = Statement(
    lambda attempt_id, item_id, key_id, integration_id, digest: variant_to_answer_rows(
        scope=KeyScope(ApiKey(pk=key_id, integration_id=integration_id, digest=digest)),
        attempt_id=attempt_id,
        item_id=item_id,
    ),
    attempt_id=-(2**40) - 1,
    item_id=-(2**40) - 2,
    key_id=-(2**40) - 3,
    integration_id=-(2**40) - 4,
    digest="(statement marker: key digest)",
)
_VARIANT_FOR_LEARNER = Statement(
    lambda attempt_id, item_id, user_id: variant_to_answer_rows(
        scope=Scope(user=get_user_model()(pk=user_id)),
        attempt_id=attempt_id,
        item_id=item_id,
    ),
    attempt_id=-(2**40) - 1,
    item_id=-(2**40) - 2,
    user_id=-(2**40) - 3,
)


def variant_to_answer(*, scope: Scope, attempt_id: int, item_id: int) -> VariantToAnswer | None:
    """The attempt's variant of a problem item, with its attempt, quiz, item and the item's
    counted tries: one query, which also spares the service its read of the tries.

    Narrowed to the caller's scope through the attempt, like attempt_to_answer, so a variant
    found here is one the caller may answer; with a key, only while the key is in force as the
    caller holds it, so a recent copy of the key is confirmed by this same read. None for a
    question item (it has no variant), for an attempt out of reach and for a key no longer in
    force; the caller then confirms a recent key and asks attempt_to_answer and item_to_answer.
    """
    if scope.key is not None:
        rows = _VARIANT_FOR_KEY.rows(
            attempt_id=attempt_id,
            item_id=item_id,
            key_id=scope.key.pk,
            integration_id=scope.key.integration_id,
            digest=scope.key.digest,
        )
    else:
        rows = _VARIANT_FOR_LEARNER.rows(
            attempt_id=attempt_id, item_id=item_id, user_id=scope.user.pk
        )
    if not rows:
        return None
    loaded, start = [], 0
    for model, _ in _ANSWER_COLUMNS:
        loaded.append(instance(model, rows[0], start))
        start += len(model._meta.concrete_fields)
    variant, attempt, quiz, item = loaded
    attempt.quiz = quiz
    variant.attempt, variant.quiz_item = attempt, item
    tries = [services.Try(*row[start:]) for row in rows if row[start] is not None]
    return VariantToAnswer(variant, tries)


def item_to_answer(*, attempt: Attempt, item_id: int) -> QuizItem | None:
    """The item of the attempt's quiz, with its question or problem."""
    rows = QuizItem.objects.select_related("question", "problem").filter(
        quiz_id=attempt.quiz_id, pk=item_id
    )
    return next(iter(rows.order_by()[:1]), None)


def quiz_to_start(*, scope: Scope, slug: str) -> Quiz | None:
    return scope.courses(Quiz.objects.all(), "lesson__course").filter(slug=slug).first()


def problem_to_practise(*, scope: Scope, slug: str) -> Problem | None:
    # An exam-only problem is found, so that practising it is refused with the reason.
    rows = scope.courses(Problem.objects.select_related("lesson"), "lesson__course")
    return rows.filter(slug=slug).first()


def practice_variants(*, scope: Scope) -> QuerySet[Variant]:
    """The caller's practice variants (never an attempt's), with problem and learner."""
    rows = Variant.objects.filter(attempt__isnull=True, user__isnull=False).select_related(
        "problem", "user__integration_learner"
    )
    return scope.courses(scope.owned(rows), "problem__lesson__course")


def streaks(*, scope: Scope) -> QuerySet[PracticeStreak]:
    rows = PracticeStreak.objects.select_related("problem", "user__integration_learner")
    return scope.courses(scope.owned(rows), "problem__lesson__course").order_by(
        "problem__lesson__order", "problem__order", "problem_id", "user_id"
    )


def grades(*, scope: Scope, since: datetime | None = None) -> QuerySet:
    """One row per learner and quiz: the best submitted score, attempts, and the last change.

    In-progress attempts count as attempts but never give a score: an exam's saved answers are
    graded before submission, and a running score would tell which of them are right.
    """
    submitted = Q(status=Attempt.Status.SUBMITTED)
    rows = (
        attempts(scope=scope)
        .order_by()  # the model's default ordering would join the GROUP BY
        .values(
            "user_id",
            "quiz_id",
            learner=F("user__integration_learner__external_id"),
            learner_name=F("user__integration_learner__name"),
            learner_email=F("user__integration_learner__email"),
            course=F("quiz__lesson__course__slug"),
            quiz_slug=F("quiz__slug"),
            quiz_title=F("quiz__title"),
        )
        .annotate(
            attempts=Count("id"),
            submitted_attempts=Count("id", filter=submitted),
            best_score=Max("score", filter=submitted),
            out_of=Max("max_score"),
            last_submitted_at=Max("submitted_at"),
            changed_at=Max("updated_at"),
        )
    )
    if since is not None:
        rows = rows.filter(changed_at__gte=since)
    return rows


def variant_prompt(*, variant: Variant, problem: Problem) -> str:
    """What the learner reads: the problem's context, then the numbers of this variant."""
    generated = engine.get_family(variant.family).prompt(variant.givens)
    return "\n\n".join(part for part in (problem.prompt.strip(), generated) if part)


def variant_answer_shape(*, variant: Variant) -> list[int]:
    return list(engine.get_family(variant.family).answer_shape(variant.givens))


def variant_answer_text(*, variant: Variant) -> str:
    """The correct answer, for when the policy has released it."""
    family = engine.get_family(variant.family)
    return engine.format_answer(family.solve(variant.givens, variant.grading_key).answer)


def markup_html(text: str) -> str | None:
    """Markdown + LaTeX as HTML with MathML, or None when a formula cannot be rendered."""
    try:
        return str(render_markup(text))
    except MarkupError:
        return None
