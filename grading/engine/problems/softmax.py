"""Softmax probabilities and their slopes, the Jacobian diag(p) − p pᵀ."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from grading.engine.answers.formatting import format_answer
from grading.engine.checks import Tolerance
from grading.engine.i18n import gettext as _
from grading.engine.i18n import gettext_noop
from grading.engine.problems.base import (
    NO_KEY,
    Family,
    ParamSpec,
    Solution,
    check_length_range,
    round_logits,
)
from grading.engine.problems.scores import vector_tex
from grading.engine.problems.variance import scalar

FloatArray = npt.NDArray[np.float64]
SLOPE_TOLERANCE = Tolerance(atol=0.001, rtol=0.01)


def softmax(z: npt.ArrayLike) -> FloatArray:
    """exp(z) / Σ exp(z), shifted by max(z) so large logits cannot overflow."""
    logits = np.asarray(z, dtype=np.float64)
    weights = np.exp(logits - logits.max())
    return weights / weights.sum()


def jacobian(p: FloatArray) -> FloatArray:
    """J_ij = ∂pᵢ/∂zⱼ = p_i(δ_ij − p_j), i.e. diag(p) − p pᵀ."""
    return np.diag(p) - np.outer(p, p)


def logit_specs(min_length: int, max_length: int, logit_max: float) -> tuple[ParamSpec, ...]:
    """Parameters shared by the families that draw a logit vector z."""
    return (
        ParamSpec(
            "min_length", "int", min_length, gettext_noop("Fewest logits in z."), min=2, max=12
        ),
        ParamSpec(
            "max_length", "int", max_length, gettext_noop("Most logits in z."), min=2, max=12
        ),
        ParamSpec(
            "logit_max",
            "float",
            logit_max,
            gettext_noop(
                "Logits are drawn from [-logit_max, logit_max] and rounded to one decimal."
            ),
            min=0.1,
            max=20.0,
        ),
    )


def draw_logits(rng: np.random.Generator, params: Mapping[str, Any]) -> list[float]:
    """A logit vector of drawn length with one-decimal entries, as the prompt shows them."""
    length = int(rng.integers(params["min_length"], params["max_length"] + 1))
    bound = params["logit_max"]
    return round_logits(rng.uniform(-bound, bound, length))


class _Logits(Family):
    """Families whose givens start with a logit vector z."""

    def check_params(self, params: dict[str, Any]) -> dict[str, str]:
        """min_length ≤ max_length."""
        return check_length_range(params)


class Softmax(_Logits):
    """p = softmax(z)."""

    key = "softmax"
    answer_kind = "probabilities"
    version = 1
    title = gettext_noop("Softmax probabilities")
    param_specs = logit_specs(3, 6, 3.0)
    default_tolerance = Tolerance(atol=0.002, rtol=0.01)
    mistakes = {
        "no-normalisation": (
            gettext_noop(
                "Those are exp(zᵢ) before normalising: divide each by the sum of the "
                "exponentials so that the probabilities add up to 1."
            )
        ),
        "linear-normalisation": (
            gettext_noop(
                "You divided the logits by their sum; softmax exponentiates first, then divides "
                "by the sum of the exponentials."
            )
        ),
    }

    def draw(self, rng: np.random.Generator, params: dict[str, Any]) -> dict[str, Any]:
        """Draw the logits."""
        return {"z": draw_logits(rng, params)}

    def solve(self, givens: Mapping[str, Any], grading_key: Mapping[str, Any] = NO_KEY) -> Solution:
        """softmax(z), with the unnormalised and linear-normalisation mistakes."""
        z = np.asarray(givens["z"], dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            # A zero sum makes this mistake non-finite; it is then simply not offered.
            linear = z / z.sum()
        return Solution(
            answer=softmax(z),
            mistakes={"no-normalisation": np.exp(z), "linear-normalisation": linear},
        )

    def answer_shape(self, givens: Mapping[str, Any]) -> tuple[int, ...]:
        """One probability per logit."""
        return (len(givens["z"]),)

    def prompt(self, givens: Mapping[str, Any], decimal: str = ".") -> str:
        """Show z and ask for every probability."""
        n = len(givens["z"])
        return _(
            "The logits are $$z = %(z)s$$\n\nCompute $p = \\operatorname{softmax}(z)$, all "
            "%(n)s entries, as a list such as `%(example)s`."
        ) % {
            "z": vector_tex(givens["z"], decimal),
            "n": n,
            "example": format_answer([0.1, 0.2, 0.7], decimal=decimal),
        }


class SoftmaxSlope(_Logits):
    """One entry ∂pᵢ/∂zⱼ = p_i(δ_ij − p_j) of the softmax Jacobian."""

    key = "softmax-slope"
    answer_kind = "slope"
    version = 1
    title = gettext_noop("Slope of one softmax output")
    param_specs = (
        *logit_specs(3, 5, 2.0),
        ParamSpec(
            "same_index_probability",
            "float",
            0.5,
            gettext_noop("Chance that the question asks for a diagonal slope (i = j)."),
            min=0.0,
            max=1.0,
        ),
    )
    default_tolerance = SLOPE_TOLERANCE
    mistakes = {
        "kronecker-dropped": (
            gettext_noop(
                "You dropped the Kronecker delta: for i = j the slope is pᵢ(1 − pᵢ), not −pᵢ pⱼ."
            )
        ),
        "sign-flipped": gettext_noop("The sign is flipped: ∂pᵢ/∂zⱼ = pᵢ(δᵢⱼ − pⱼ)."),
        "diagonal-formula": (
            gettext_noop("pᵢ(1 − pᵢ) is the slope only for i = j; for i ≠ j it is −pᵢ pⱼ.")
        ),
        "probability-not-slope": (
            gettext_noop("That is the probability pᵢ itself, not its slope ∂pᵢ/∂zⱼ.")
        ),
    }

    def draw(self, rng: np.random.Generator, params: dict[str, Any]) -> dict[str, Any]:
        """Draw z and a pair of indices, diagonal with the configured probability."""
        z = draw_logits(rng, params)
        n = len(z)
        # i and j are 0-based here; prompts show them 1-based, as learners count.
        i = int(rng.integers(n))
        if rng.random() < params["same_index_probability"]:
            j = i
        else:
            j = (i + 1 + int(rng.integers(n - 1))) % n
        return {"z": z, "i": i, "j": j}

    def solve(self, givens: Mapping[str, Any], grading_key: Mapping[str, Any] = NO_KEY) -> Solution:
        """p_i(δ_ij − p_j); mistakes that coincide with the answer for this (i, j) are left out."""
        p = softmax(givens["z"])
        i, j = int(givens["i"]), int(givens["j"])
        answer = float(jacobian(p)[i, j])
        mistakes = {
            "sign-flipped": scalar(-answer),
            "probability-not-slope": scalar(p[i]),
        }
        # Without the delta the diagonal slope becomes −p_i²; off the diagonal the same
        # mistake changes nothing, while the diagonal formula is the mistake there.
        if i == j:
            mistakes["kronecker-dropped"] = scalar(-p[i] * p[j])
        else:
            mistakes["diagonal-formula"] = scalar(p[i] * (1 - p[i]))
        return Solution(answer=scalar(answer), mistakes=mistakes)

    def answer_shape(self, givens: Mapping[str, Any]) -> tuple[int, ...]:
        """A single number."""
        return ()

    def prompt(self, givens: Mapping[str, Any], decimal: str = ".") -> str:
        """Show z and ask for one slope, with 1-based indices."""
        i, j = int(givens["i"]) + 1, int(givens["j"]) + 1
        return _(
            "The logits are $$z = %(z)s$$ and $p = \\operatorname{softmax}(z)$, with entries "
            "counted from 1.\n\nWhat is $\\dfrac{\\partial p_{%(i)s}}{\\partial z_{%(j)s}}$?"
        ) % {"z": vector_tex(givens["z"], decimal), "i": i, "j": j}


class SoftmaxJacobian(_Logits):
    """The full Jacobian diag(p) − p pᵀ of a small softmax."""

    key = "softmax-jacobian"
    answer_kind = "jacobian"
    version = 2
    title = gettext_noop("The softmax Jacobian")
    param_specs = logit_specs(3, 4, 2.0)
    default_tolerance = SLOPE_TOLERANCE
    mistakes = {
        "diagonal-dropped": (
            gettext_noop(
                "You left out diag(p): the Jacobian is diag(p) − p pᵀ, so each diagonal entry "
                "is pᵢ(1 − pᵢ)."
            )
        ),
        "sign-flipped": (
            gettext_noop(
                "The signs are flipped: the Jacobian is diag(p) − p pᵀ, positive on the diagonal "
                "and negative off it."
            )
        ),
        "off-diagonal-sign": (
            gettext_noop(
                "The diagonal is right, but the off-diagonal signs are flipped: raising zⱼ takes "
                "probability away from every other entry, so ∂pᵢ/∂zⱼ = −pᵢ pⱼ < 0 for i ≠ j."
            )
        ),
        "cross-slopes-ignored": (
            gettext_noop(
                "The off-diagonal slopes are not 0: every pᵢ shares the normalising sum with "
                "all the logits, so it moves when any zⱼ moves, with slope −pᵢ pⱼ."
            )
        ),
        "kronecker-dropped": (
            gettext_noop(
                "Off the diagonal the entries are −pᵢ pⱼ: the Kronecker delta in "
                "pᵢ(δᵢⱼ − pⱼ) is 1 only for i = j."
            )
        ),
    }

    def draw(self, rng: np.random.Generator, params: dict[str, Any]) -> dict[str, Any]:
        """Draw the logits."""
        return {"z": draw_logits(rng, params)}

    def solve(self, givens: Mapping[str, Any], grading_key: Mapping[str, Any] = NO_KEY) -> Solution:
        """diag(p) − p pᵀ, with the sign, diagonal and off-diagonal mistakes.

        No transposed mistake: the Jacobian of softmax is symmetric, so Jᵀ is the answer.
        """
        p = softmax(givens["z"])
        answer = jacobian(p)
        diagonal = np.diag(np.diag(answer))
        return Solution(
            answer=answer,
            mistakes={
                "diagonal-dropped": -np.outer(p, p),
                "sign-flipped": -answer,
                "off-diagonal-sign": 2 * diagonal - answer,
                "cross-slopes-ignored": diagonal,
                "kronecker-dropped": np.outer(p, 1 - p),
            },
        )

    def answer_shape(self, givens: Mapping[str, Any]) -> tuple[int, ...]:
        """An n×n matrix for n logits."""
        n = len(givens["z"])
        return (n, n)

    def prompt(self, givens: Mapping[str, Any], decimal: str = ".") -> str:
        """Show z and ask for the whole Jacobian, explaining how to type a matrix."""
        n = len(givens["z"])
        fields = {"z": vector_tex(givens["z"], decimal), "n": n}
        if decimal == ".":
            return (
                _(
                    "The logits are $$z = %(z)s$$ and $p = \\operatorname{softmax}(z)$.\n\n"
                    "Compute the %(n)s×%(n)s Jacobian $J$ with entries "
                    "$J_{ij} = \\dfrac{\\partial p_i}{\\partial z_j}$. Type it row by row, "
                    "e.g. `[[a, b], [c, d]]`, or with rows separated by `;` or new lines."
                )
                % fields
            )
        # With a decimal comma, ; separates entries (answers/separators.py): rows go on lines.
        return (
            _(
                "The logits are $$z = %(z)s$$ and $p = \\operatorname{softmax}(z)$.\n\n"
                "Compute the %(n)s×%(n)s Jacobian $J$ with entries "
                "$J_{ij} = \\dfrac{\\partial p_i}{\\partial z_j}$. Type it row by row, "
                "e.g. `[[a; b]; [c; d]]`, or one row per line with `;` between its entries."
            )
            % fields
        )
