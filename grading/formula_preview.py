"""What an instructor sees beside the formula form: variants with their givens, answer and the
value of every mistake, each marked offered or withheld (equal to the answer for that seed)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from courses.markup import MarkupError, render_markup
from grading import engine
from grading.engine.problems.formula_properties import right_answer_results
from grading.families import problem_tolerance_from
from grading.locale_numbers import decimal_separator

PREVIEW_SEEDS = (1, 2, 3)


@dataclass(frozen=True, slots=True)
class FieldProblem:
    """An error of the form the live preview names, tied to its field by the field's id: the
    script marks that field (aria-invalid, a visible marker, the message by aria-describedby)."""

    field_id: str
    label: str
    message: str


def field_problems(forms_: list[tuple[str, Any]]) -> list[FieldProblem]:
    """Every field error of the given (heading, form) pairs, in the order of the page; a form's
    errors not about one field are named by the heading alone (no field to mark)."""
    found = []
    for heading, form in forms_:
        for name, errors in form.errors.items():
            if name == "__all__" or name not in form.fields:
                found += [FieldProblem("", heading, str(e)) for e in errors]
                continue
            bound = form[name]
            label = f"{heading}: {bound.label}" if heading else str(bound.label)
            found += [FieldProblem(bound.auto_id, label, str(e)) for e in errors]
    return found


@dataclass(frozen=True, slots=True)
class PreviewMistake:
    code: str
    value: str
    offered: bool


@dataclass(frozen=True, slots=True)
class PreviewCheck:
    """One property check on this seed's right answer: holds, fails or cannot be evaluated."""

    number: int
    check: str
    holds: bool
    result: str


@dataclass(frozen=True, slots=True)
class PreviewVariant:
    """One seed's variant as the instructor checks it; prompt is rendered as learners see it."""

    seed: int
    prompt: SafeString | str
    values: list[tuple[str, str, bool]]  # name, value, shown in the prompt
    answer: str
    mistakes: list[PreviewMistake]
    error: str = ""
    checks: list[PreviewCheck] = field(default_factory=list)


def formula_preview(
    params: dict[str, Any], atol: float | None, rtol: float | None, seeds: tuple[int, ...]
) -> list[PreviewVariant]:
    """The variants of these (already checked) params for each seed."""
    family = engine.get_family(engine.FORMULA_FAMILY)
    tolerance = problem_tolerance_from(family, atol, rtol)
    variants = []
    for seed in seeds:
        data = engine.make_variant(family, params, seed, tolerance=tolerance)
        try:
            # As the learner reads it on a page in this language (the values below stay in the
            # formula reader's numbers, with a point).
            prompt: SafeString | str = render_markup(
                family.prompt(data.givens, decimal_separator())
            )
        except MarkupError as exc:
            prompt = _("The prompt cannot render: %(error)s") % {"error": exc}
        shown = data.givens["values"]
        hidden = data.grading_key.get("hidden_values", {})
        values = [
            (name, engine.format_answer(value), name in shown)
            for name, value in sorted({**shown, **hidden}.items())
        ]
        every = family.solve(data.givens, data.grading_key).mistakes
        mistakes = [
            PreviewMistake(code, engine.format_answer(value), code in data.mistakes)
            for code, value in every.items()
        ]
        properties = data.grading_key.get("properties", [])
        results = right_answer_results(properties, data.answer, {**shown, **hidden}, tolerance)
        checks = [
            PreviewCheck(number, entry["check"], holds, result)
            for number, (entry, (holds, result)) in enumerate(
                zip(properties, results, strict=True), start=1
            )
        ]
        answer = engine.format_answer(data.answer)
        variants.append(PreviewVariant(seed, prompt, values, answer, mistakes, checks=checks))
    return variants
