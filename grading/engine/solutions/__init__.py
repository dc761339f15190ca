"""Worked solutions: for one variant's givens, the steps from the question to its answer, with the
variant's own numbers, as Markdown with $LaTeX$ math. One writer per problem family, each in the
module named like the family's own (problems/variance.py → solutions/variance.py).

Pure: no Django. Who may read a solution, and when, is grading.policy's decision.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from grading.engine.problems.base import NO_KEY
from grading.engine.problems.formula import FORMULA_FAMILY
from grading.engine.solutions.formula import formula_solution
from grading.engine.solutions.scores import scaled_dot
from grading.engine.solutions.softmax import (
    saturated_slope,
    saturation_max_prob,
    softmax_jacobian,
    softmax_probabilities,
    softmax_slope,
)
from grading.engine.solutions.variance import (
    dot_std,
    dot_variance,
    scale_for_unit_variance,
    scaled_variance,
    width_for_std,
)

Steps = tuple[str, ...]

_FROM_GIVENS: dict[str, Callable[[Mapping[str, Any], str], Steps]] = {
    "dot-variance": dot_variance,
    "dot-std": dot_std,
    "scaled-variance": scaled_variance,
    "scale-for-unit-variance": scale_for_unit_variance,
    "width-for-std": width_for_std,
    "scaled-dot": scaled_dot,
    "softmax": softmax_probabilities,
    "softmax-slope": softmax_slope,
    "softmax-jacobian": softmax_jacobian,
    "saturation-max-prob": saturation_max_prob,
    "saturated-slope": saturated_slope,
}

SOLVED_FAMILIES = frozenset({*_FROM_GIVENS, FORMULA_FAMILY})


def worked_solution(
    family_key: str,
    givens: Mapping[str, Any],
    grading_key: Mapping[str, Any] = NO_KEY,
    decimal: str = ".",
) -> Steps:
    """The ordered steps of a variant's solution, e.g. worked_solution('dot-variance',
    {'d_k': 32, 'sigma_q': 2.0, 'sigma_k': 0.5}) ends with '… = 32 \\cdot 1 = 32$.'.

    The steps are in the active language, their numbers written with the page's decimal
    separator (decimal). Raises KeyError for a family without a writer (tests check every family
    has one)."""
    if family_key == FORMULA_FAMILY:
        return formula_solution(givens, grading_key, decimal)
    return _FROM_GIVENS[family_key](givens, decimal)


__all__ = ["SOLVED_FAMILIES", "Steps", "worked_solution"]
