"""Worked solutions for softmax, its slopes and its saturation (problems/softmax.py and
problems/saturation.py). Every writer takes the page's decimal separator (decimal)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from grading.engine.i18n import gettext as _
from grading.engine.i18n import gettext_noop
from grading.engine.problems.softmax import jacobian, softmax
from grading.engine.solutions.writing import ANSWER_DIGITS, factor, matrix, tex, vector

SLOPE_FORMULA = gettext_noop(
    "Differentiating $p_i = e^{z_i} / \\sum_m e^{z_m}$ with the quotient rule gives "
    "$\\dfrac{\\partial p_i}{\\partial z_j} = p_i(\\delta_{ij} - p_j)$, where "
    "$\\delta_{ij}$ is 1 when $i = j$ and 0 otherwise: raising $z_i$ raises $p_i$ at the "
    "expense of the others, and raising another logit $z_j$ takes share away from $p_i$."
)


def _probabilities(
    z: list[float], decimal: str, name: str = "z", entry: str = "z_m"
) -> tuple[str, str]:
    """Two steps: exponentials and their sum, then the division."""
    weights = np.exp(np.asarray(z, dtype=np.float64))
    total = float(weights.sum())
    p = weights / total
    return (
        _(
            "Exponentiate every entry of $%(name)s$: $e^{%(name)s} = %(weights)s$, whose sum is "
            "$\\sum_m e^{%(entry)s} = %(total)s$."
        )
        % {
            "name": name,
            "weights": vector(weights, decimal=decimal),
            "entry": entry,
            "total": tex(total, decimal=decimal),
        },
        _(
            "Divide each exponential by that sum, so that the results are positive and add up "
            "to 1: $p = %(p)s$."
        )
        % {"p": vector(p, decimal=decimal)},
    )


def softmax_probabilities(givens: Mapping[str, Any], decimal: str = ".") -> tuple[str, ...]:
    """Exponentiate, add up, divide."""
    z = [float(x) for x in givens["z"]]
    p = softmax(z)
    return (
        *_probabilities(z, decimal),
        _(
            "As a check, the entries add up to 1 and the largest logit has the largest "
            "probability. To six significant digits, $p = %(p)s$."
        )
        % {"p": vector(p, ANSWER_DIGITS, decimal)},
    )


def softmax_slope(givens: Mapping[str, Any], decimal: str = ".") -> tuple[str, ...]:
    """The probabilities, the slope formula, and the one entry asked for."""
    z = [float(x) for x in givens["z"]]
    i, j = int(givens["i"]), int(givens["j"])
    p = softmax(z)
    slope = float(jacobian(p)[i, j])
    # Indices are 0-based in the givens and 1-based wherever a learner reads them.
    fields = {
        "a": i + 1,
        "b": j + 1,
        "pa": tex(p[i], decimal=decimal),
        "pb": tex(p[j], decimal=decimal),
        "slope": tex(slope, ANSWER_DIGITS, decimal),
    }
    if i == j:
        last = (
            _(
                "Here $i = j = %(a)s$, so $\\delta_{ij} = 1$ and the slope is "
                "$p_{%(a)s}(1 - p_{%(a)s}) = %(pa)s \\cdot (1 - %(pa)s) = %(slope)s$."
            )
            % fields
        )
    else:
        last = (
            _(
                "Here $i = %(a)s$ and $j = %(b)s$ differ, so $\\delta_{ij} = 0$ and the slope is "
                "$-p_{%(a)s}\\,p_{%(b)s} = -%(pa)s \\cdot %(pb)s = %(slope)s$."
            )
            % fields
        )
    return (*_probabilities(z, decimal), _(SLOPE_FORMULA), last)


def softmax_jacobian(givens: Mapping[str, Any], decimal: str = ".") -> tuple[str, ...]:
    """The probabilities, then diag(p) − p pᵀ entry by entry."""
    z = [float(x) for x in givens["z"]]
    p = softmax(z)

    def t(x: float) -> str:
        return tex(x, decimal=decimal)

    diagonal = ", ".join(
        f"$J_{{{n}{n}}} = {t(x)}(1 - {t(x)}) = {t(x * (1 - x))}$"
        for n, x in enumerate(p.tolist(), start=1)
    )
    return (
        *_probabilities(z, decimal),
        _(SLOPE_FORMULA)
        + " "
        + _("Written for all entries at once, $J = \\operatorname{diag}(p) - p\\,p^{\\top}$."),
        _("On the diagonal $\\delta_{ii} = 1$: %(diagonal)s.") % {"diagonal": diagonal},
        _(
            "Off the diagonal $J_{ij} = -p_i\\,p_j$, for example "
            "$J_{12} = J_{21} = -%(p1)s \\cdot %(p2)s = %(j12)s$. So the matrix is symmetric, "
            "positive on its diagonal, negative elsewhere, and every row adds up to 0 (the "
            "probabilities always add up to 1):$$J = %(matrix)s$$"
        )
        % {
            "p1": t(p[0]),
            "p2": t(p[1]),
            "j12": t(-p[0] * p[1]),
            "matrix": matrix(jacobian(p), decimal=decimal),
        },
    )


def _scaled(givens: Mapping[str, Any]) -> tuple[list[float], float, list[float]]:
    z = [float(x) for x in givens["z"]]
    c = float(givens["c"])
    return z, c, [c * x for x in z]


def _multiply(z: list[float], c: float, scaled: list[float], decimal: str) -> str:
    return _(
        "Multiply every logit by $c = %(c)s$: $c\\,z = %(factor)s \\cdot %(z)s = %(scaled)s$. "
        "The gaps between logits grow %(c)s-fold, and the softmax only sees those gaps."
    ) % {
        "c": tex(c, decimal=decimal),
        "factor": factor(c, decimal=decimal),
        "z": vector(z, decimal=decimal),
        "scaled": vector(scaled, decimal=decimal),
    }


def saturation_max_prob(givens: Mapping[str, Any], decimal: str = ".") -> tuple[str, ...]:
    """softmax(c z), its largest entry, compared with softmax(z)."""
    z, c, scaled = _scaled(givens)
    p = softmax(scaled)
    largest = float(p.max())
    rest = float(p.sum() - largest)
    return (
        _multiply(z, c, scaled, decimal),
        *_probabilities(scaled, decimal, name="c\\,z", entry="c\\,z_m")[:1],
        _(
            "Divide by that sum: $p = %(p)s$. The largest entry is what the others leave of 1: "
            "$\\max_i p_i = 1 - %(rest)s \\approx %(largest)s$."
        )
        % {
            "p": vector(p, decimal=decimal),
            "rest": tex(rest, decimal=decimal),
            "largest": tex(largest, ANSWER_DIGITS, decimal),
        },
        _(
            "Without the factor the largest probability would be only $%(unscaled)s$: the "
            "larger $c$, the closer the softmax comes to putting all its weight on the largest "
            "logit. Unscaled scores of a wide head do the same, which is why they are divided "
            "by $\\sqrt{d_k}$."
        )
        % {"unscaled": tex(float(softmax(z).max()), decimal=decimal)},
    )


def saturated_slope(givens: Mapping[str, Any], decimal: str = ".") -> tuple[str, ...]:
    """softmax(c z), its Jacobian, the largest magnitude, and why it is small."""
    z, c, scaled = _scaled(givens)
    p = softmax(scaled)
    slopes = jacobian(p)
    row, column = np.unravel_index(int(np.abs(slopes).argmax()), slopes.shape)
    largest = float(abs(slopes[row, column]))
    return (
        _multiply(z, c, scaled, decimal),
        _("Its softmax is $p = \\operatorname{softmax}(c\\,z) = %(p)s$.")
        % {"p": vector(p, decimal=decimal)},
        _(SLOPE_FORMULA)
        + " "
        + _(
            "So $J = \\operatorname{diag}(p) - p\\,p^{\\top}$, with $p_i(1 - p_i)$ on the "
            "diagonal and $-p_i\\,p_j$ off it:$$J = %(matrix)s$$"
        )
        % {"matrix": matrix(slopes, decimal=decimal)},
        _(
            "The entry of largest magnitude is $J_{%(row)s%(column)s}$, so "
            "$\\max_{i,j} |J_{ij}| = %(largest)s$."
        )
        % {"row": row + 1, "column": column + 1, "largest": tex(largest, ANSWER_DIGITS, decimal)},
        _(
            "When one probability is close to 1 and the others close to 0, every "
            "$p_i(1 - p_i)$ and every $p_i\\,p_j$ is close to 0: a saturated softmax passes "
            "almost no gradient back to its scores. Dividing raw scores by $\\sqrt{d_k}$ keeps "
            "attention out of this regime."
        ),
    )
