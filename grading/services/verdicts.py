"""Grading an answer without touching the database: a typed answer against a stored variant
(the engine), or the choices picked for a question. Both give the engine's Verdict."""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.utils.translation import get_language, gettext, ngettext

from courses.models import Question, Quiz
from grading import engine, scores
from grading.models import Variant


def variant_grade(*, variant: Variant, text: str, decimal: str = ".") -> engine.Verdict:
    """Grade typed text against a stored variant: its givens, grading key and tolerance, never
    regenerated. decimal: the separator of the page the text was typed on (a page passes
    grading.locale_numbers.decimal_separator(); the API keeps "."); a verdict read with ","
    says so in its detail, so a regrade reads the stored text alike."""
    family = engine.get_family(variant.family)
    return engine.grade(
        family,
        variant.givens,
        text,
        tolerance=engine.Tolerance(variant.atol, variant.rtol),
        grading_key=variant.grading_key,
        decimal=decimal,
    )


def question_grade(*, question: Question, choice_ids: Iterable[int]) -> engine.Verdict:
    """Grade chosen choices; the first wrong pick names its misconception; none picked: invalid."""
    choices = list(question.choices.all())
    by_id = {choice.id: choice for choice in choices}
    picked_ids = sorted(set(choice_ids))
    if not picked_ids:
        return engine.Verdict("invalid", 0.0, None, gettext("Choose an answer."), {})
    if any(choice_id not in by_id for choice_id in picked_ids):
        message = gettext("That choice is not part of this question.")
        return engine.Verdict("invalid", 0.0, None, message, {})
    if question.kind != Question.Kind.MULTIPLE and len(picked_ids) > 1:
        return engine.Verdict("invalid", 0.0, None, gettext("Choose exactly one answer."), {})
    picked = [by_id[i] for i in picked_ids]
    correct_ids = {c.id for c in choices if c.is_correct}
    detail = {"picked": picked_ids}
    if set(picked_ids) == correct_ids:
        feedback = " ".join(c.feedback for c in picked if c.feedback) or gettext("Correct.")
        return engine.Verdict("correct", 1.0, None, feedback, detail)
    wrong = [c for c in picked if not c.is_correct]
    if wrong:
        first = wrong[0]
        code = first.misconception.code if first.misconception else None
        feedback = first.feedback or gettext("Not quite.")
        return engine.Verdict("incorrect", 0.0, code, feedback, detail)
    missing = len(correct_ids) - len(picked_ids)
    return engine.Verdict(
        "incorrect",
        0.0,
        None,
        ngettext(
            "Every choice you picked is right, but %(count)d more is right too.",
            "Every choice you picked is right, but %(count)d more are right too.",
            missing,
        )
        % {"count": missing},
        detail,
    )


def verdict_fields(graded: engine.Verdict, *, quiz: Quiz | None) -> dict:
    """A Response's verdict columns for an answer in a quiz (None: practice); invalid input is
    kept but never counts as a try, nor a near miss the quiz gives back (scores.try_counts).

    The feedback is written in the active language (the learner's page's); a verdict written
    in another language than the default says which in its detail, so a regrade writes it
    again in the learner's language, not the instructor's (grading.regrade_graders)."""
    detail = graded.detail
    language = get_language() or settings.LANGUAGE_CODE
    if language != settings.LANGUAGE_CODE and isinstance(detail, dict):
        detail = {**detail, "language": language}
    return {
        "status": graded.status,
        "score": graded.score,
        "counts_as_try": scores.try_counts(verdict=graded, quiz=quiz),
        "misconception": graded.misconception or "",
        "feedback": graded.feedback,
        "detail": detail,
    }
