"""Worked solutions for softmax, its slopes and its saturation (problems/softmax.py and
problems/saturation.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from grading.engine.problems.softmax import jacobian, softmax
from grading.engine.solutions.writing import ANSWER_DIGITS, factor, matrix, tex, vector

SLOPE_FORMULA = (
    "Differentiating $p_i = e^{z_i} / \\sum_m e^{z_m}$ with the quotient rule gives "
    "$\\dfrac{\\partial p_i}{\\partial z_j} = p_i(\\delta_{ij} - p_j)$, where "
    "$\\delta_{ij}$ is 1 when $i = j$ and 0 otherwise: raising $z_i$ raises $p_i$ at the "
    "expense of the others, and raising another logit $z_j$ takes share away from $p_i$."
)


def _probabilities(z: list[float], name: str = "z", entry: str = "z_m") -> tuple[str, str]:
    """Two steps: exponentials and their sum, then the division."""
    weights = np.exp(np.asarray(z, dtype=np.float64))
    total = float(weights.sum())
    p = weights / total
    return (
        f"Exponentiate every entry of ${name}$: $e^{{{name}}} = {vector(weights)}$, "
        f"whose sum is $\\sum_m e^{{{entry}}} = {tex(total)}$.",
        "Divide each exponential by that sum, so that the results are positive and add up to "
        f"1: $p = {vector(p)}$.",
    )


def softmax_probabilities(givens: Mapping[str, Any]) -> tuple[str, ...]:
    """Exponentiate, add up, divide."""
    z = [float(x) for x in givens["z"]]
    p = softmax(z)
    return (
        *_probabilities(z),
        "As a check, the entries add up to 1 and the largest logit has the largest "
        f"probability. To six significant digits, $p = {vector(p, ANSWER_DIGITS)}$.",
    )


def softmax_slope(givens: Mapping[str, Any]) -> tuple[str, ...]:
    """The probabilities, the slope formula, and the one entry asked for."""
    z = [float(x) for x in givens["z"]]
    i, j = int(givens["i"]), int(givens["j"])
    p = softmax(z)
    slope = float(jacobian(p)[i, j])
    # Indices are 0-based in the givens and 1-based wherever a learner reads them.
    a, b = i + 1, j + 1
    if i == j:
        last = (
            f"Here $i = j = {a}$, so $\\delta_{{ij}} = 1$ and the slope is "
            f"$p_{{{a}}}(1 - p_{{{a}}}) = {tex(p[i])} \\cdot (1 - {tex(p[i])}) = "
            f"{tex(slope, ANSWER_DIGITS)}$."
        )
    else:
        last = (
            f"Here $i = {a}$ and $j = {b}$ differ, so $\\delta_{{ij}} = 0$ and the slope is "
            f"$-p_{{{a}}}\\,p_{{{b}}} = -{tex(p[i])} \\cdot {tex(p[j])} = "
            f"{tex(slope, ANSWER_DIGITS)}$."
        )
    return (*_probabilities(z), SLOPE_FORMULA, last)


def softmax_jacobian(givens: Mapping[str, Any]) -> tuple[str, ...]:
    """The probabilities, then diag(p) − p pᵀ entry by entry."""
    z = [float(x) for x in givens["z"]]
    p = softmax(z)
    diagonal = ", ".join(
        f"$J_{{{n}{n}}} = {tex(x)}(1 - {tex(x)}) = {tex(x * (1 - x))}$"
        for n, x in enumerate(p.tolist(), start=1)
    )
    return (
        *_probabilities(z),
        SLOPE_FORMULA
        + " Written for all entries at once, $J = \\operatorname{diag}(p) - p\\,p^{\\top}$.",
        f"On the diagonal $\\delta_{{ii}} = 1$: {diagonal}.",
        "Off the diagonal $J_{ij} = -p_i\\,p_j$, for example "
        f"$J_{{12}} = J_{{21}} = -{tex(p[0])} \\cdot {tex(p[1])} = {tex(-p[0] * p[1])}$. "
        "So the matrix is symmetric, positive on its diagonal, negative elsewhere, and every "
        "row adds up to 0 (the probabilities always add up to 1):"
        f"$$J = {matrix(jacobian(p))}$$",
    )


def _scaled(givens: Mapping[str, Any]) -> tuple[list[float], float, list[float]]:
    z = [float(x) for x in givens["z"]]
    c = float(givens["c"])
    return z, c, [c * x for x in z]


def _multiply(z: list[float], c: float, scaled: list[float]) -> str:
    return (
        f"Multiply every logit by $c = {tex(c)}$: "
        f"$c\\,z = {factor(c)} \\cdot {vector(z)} = {vector(scaled)}$. The gaps between "
        f"logits grow {tex(c)}-fold, and the softmax only sees those gaps."
    )


def saturation_max_prob(givens: Mapping[str, Any]) -> tuple[str, ...]:
    """softmax(c z), its largest entry, compared with softmax(z)."""
    z, c, scaled = _scaled(givens)
    p = softmax(scaled)
    largest = float(p.max())
    rest = float(p.sum() - largest)
    return (
        _multiply(z, c, scaled),
        *_probabilities(scaled, name="c\\,z", entry="c\\,z_m")[:1],
        f"Divide by that sum: $p = {vector(p)}$. The largest entry is what the others leave "
        f"of 1: $\\max_i p_i = 1 - {tex(rest)} \\approx {tex(largest, ANSWER_DIGITS)}$.",
        "Without the factor the largest probability would be only "
        f"${tex(float(softmax(z).max()))}$: the larger $c$, the closer the softmax comes to "
        "putting all its weight on the largest logit. Unscaled scores of a wide head do the "
        "same, which is why they are divided by $\\sqrt{d_k}$.",
    )


def saturated_slope(givens: Mapping[str, Any]) -> tuple[str, ...]:
    """softmax(c z), its Jacobian, the largest magnitude, and why it is small."""
    z, c, scaled = _scaled(givens)
    p = softmax(scaled)
    slopes = jacobian(p)
    row, column = np.unravel_index(int(np.abs(slopes).argmax()), slopes.shape)
    largest = float(abs(slopes[row, column]))
    return (
        _multiply(z, c, scaled),
        f"Its softmax is $p = \\operatorname{{softmax}}(c\\,z) = {vector(p)}$.",
        SLOPE_FORMULA
        + " So $J = \\operatorname{diag}(p) - p\\,p^{\\top}$, with $p_i(1 - p_i)$ on the "
        f"diagonal and $-p_i\\,p_j$ off it:$$J = {matrix(slopes)}$$",
        f"The entry of largest magnitude is $J_{{{row + 1}{column + 1}}}$, so "
        f"$\\max_{{i,j}} |J_{{ij}}| = {tex(largest, ANSWER_DIGITS)}$.",
        "When one probability is close to 1 and the others close to 0, every "
        "$p_i(1 - p_i)$ and every $p_i\\,p_j$ is close to 0: a saturated softmax passes almost "
        "no gradient back to its scores. Dividing raw scores by $\\sqrt{d_k}$ keeps attention "
        "out of this regime.",
    )
