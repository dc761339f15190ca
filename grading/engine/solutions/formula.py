"""Worked solutions for formula problems (problems/formula.py): the instructor's solution template
with the learner's numbers, or, without one, the answer formula with the numbers substituted."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from grading.engine.answers import format_number
from grading.engine.i18n import gettext as _
from grading.engine.problems.formula import FORMULA
from grading.engine.problems.formula_placeholders import substitute_placeholders
from grading.engine.problems.formula_shape import written
from grading.engine.solutions.writing import ANSWER_DIGITS, matrix, tex, vector

_NAME = re.compile(r"(?<![A-Za-z0-9_.])[A-Za-z][A-Za-z0-9_]*")


def _literal(value: float) -> str:
    # Inside the formula as the instructor typed it (a code span), so always with a point.
    text = format_number(value, 12)
    return f"({text})" if float(value) < 0 else text


def _tex_value(value: Any, decimal: str) -> str:
    array = np.asarray(value, dtype=np.float64)
    if array.ndim == 0:
        return tex(float(array), ANSWER_DIGITS, decimal)
    if array.ndim == 1:
        return vector(array.tolist(), ANSWER_DIGITS, decimal)
    return matrix(array, ANSWER_DIGITS, decimal)


def substituted_formula(formula: str, values: Mapping[str, Any]) -> str:
    """The formula with each variable replaced by its value, e.g. 'd_k * s^2' → '64 * 0.5^2';
    function names (sqrt, ln) and unknown names stay."""

    def _value(match: re.Match[str]) -> str:
        name = match.group(0)
        return _literal(values[name]) if name in values else name

    return _NAME.sub(_value, formula)


def formula_solution(
    givens: Mapping[str, Any], grading_key: Mapping[str, Any], decimal: str = "."
) -> tuple[str, ...]:
    """The template's steps with {@name@} filled in, or the generic steps; then the answer.

    The instructor's template is never translated; the values in it, and the engine's own
    sentences, follow the page (decimal: its separator). The formula and the numbers put into
    it stay as the formula reader reads them (with a point), in code spans."""
    values = {**givens["values"], **grading_key.get("hidden_values", {})}
    results, failures = FORMULA.evaluate(givens, grading_key)
    if "" in failures:
        answer = _("not a finite number for these values.")
    else:
        answer = f"${_tex_value(results[''], decimal)}$."
    template = grading_key.get("solution")
    if template:
        decimals = givens.get("decimals")
        steps = [substitute_placeholders(step, values, decimals, decimal) for step in template]
        return (*steps, _("For your numbers the answer is %(answer)s") % {"answer": answer})
    named = ", ".join(f"`{name} = {format_number(values[name], 12)}`" for name in sorted(values))
    formula = written(grading_key["answer"])
    return (
        _("The answer is given by the formula `%(formula)s`.") % {"formula": formula},
        _("Your variant's numbers are %(named)s.") % {"named": named},
        _("Put them into the formula: `%(substituted)s`, which works out to %(answer)s")
        % {"substituted": substituted_formula(formula, values), "answer": answer},
    )
