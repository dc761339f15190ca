"""Reads behind the grading API, each narrowed to what the caller's Scope reaches.

Rows come with their related rows fetched up front, so every endpoint costs a fixed number of
queries whatever the page size; tests/api pins those counts.
"""

from __future__ import annotations

from django.db.models import QuerySet

from api.scope import Scope
from courses.markup import MarkupError, render_markup
from courses.models import Problem, Quiz, QuizItem
from grading import draws, engine
from grading.models import Attempt, PracticeStreak, Variant, counted_attempt


def attempts(*, scope: Scope) -> QuerySet[Attempt]:
    """The attempts the caller may see, with quiz, course and learner. An instructor's
    previews are a page of theirs, never in the API (grading.services.previews)."""
    rows = Attempt.objects.counted().select_related(
        "quiz__lesson__course", "user__integration_learner"
    )
    return scope.courses(scope.owned(rows), "quiz__lesson__course")


def attempt_to_answer(*, scope: Scope, attempt_id: int) -> Attempt | None:
    """One attempt with what answering needs: its quiz (the learner is used by id)."""
    rows = scope.courses(
        scope.owned(Attempt.objects.counted().select_related("quiz")), "quiz__lesson__course"
    )
    return next(iter(rows.filter(pk=attempt_id).order_by()[:1]), None)


def variant_to_answer(*, scope: Scope, attempt_id: int, item_id: int) -> Variant | None:
    """The attempt's variant of a problem item, with its attempt, quiz and item: one query.

    Narrowed to the caller's scope through the attempt, like attempt_to_answer, so a variant
    found here is one the caller may answer. None for a question item (it has no variant) and
    for an attempt out of reach; the caller then asks attempt_to_answer and item_to_answer.
    """
    rows = scope.courses(
        scope.owned(Variant.objects.select_related("attempt__quiz", "quiz_item"), "attempt__user"),
        "attempt__quiz__lesson__course",
    )
    rows = rows.filter(counted_attempt("attempt"), attempt_id=attempt_id, quiz_item_id=item_id)
    variant = next(iter(rows.order_by()[:1]), None)
    if variant is not None and variant.quiz_item.pool_id:
        # A pool item drew the variant's problem (grading/draws.py): the item shows it.
        variant.quiz_item.problem_id = variant.problem_id
    return variant


def item_to_answer(*, attempt: Attempt, item_id: int) -> QuizItem | None:
    """The item of the attempt's quiz, with its question or problem (a pool item's as the
    attempt drew it)."""
    rows = QuizItem.objects.select_related("question", "problem").filter(
        quiz_id=attempt.quiz_id, pk=item_id
    )
    found = list(rows.order_by()[:1])
    return draws.items_as_drawn(attempt=attempt, items=found)[0] if found else None


def quiz_to_start(*, scope: Scope, slug: str) -> Quiz | None:
    return scope.courses(Quiz.objects.for_learners(), "lesson__course").filter(slug=slug).first()


def problem_to_practise(*, scope: Scope, slug: str) -> Problem | None:
    # An exam-only problem is found, so that practising it is refused with the reason.
    rows = scope.courses(Problem.objects.for_learners().select_related("lesson"), "lesson__course")
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
