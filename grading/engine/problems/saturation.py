"""What unscaled scores do to softmax: near one-hot outputs whose slopes vanish."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from grading.engine.answers.formatting import format_tex
from grading.engine.checks import Tolerance
from grading.engine.i18n import gettext as _
from grading.engine.i18n import gettext_noop
from grading.engine.problems.base import (
    NO_KEY,
    Family,
    ParamSpec,
    Solution,
    check_length_range,
    pick,
)
from grading.engine.problems.scores import vector_tex
from grading.engine.problems.softmax import draw_logits, jacobian, logit_specs, softmax
from grading.engine.problems.variance import scalar


def _scale_spec(default: tuple[float, ...]) -> ParamSpec:
    return ParamSpec(
        "c_choices",
        "float_list",
        default,
        gettext_noop("Factors c that multiply the logits, like the √dₖ growth of unscaled scores."),
        min=0.01,
        max=1000.0,
    )


def _scaled_setting(givens: Mapping[str, Any], decimal: str) -> str:
    return _(
        "The logits $$z = %(z)s$$ are multiplied by $c = %(c)s$, as happens to raw scores of a "
        "wide head that are not divided by $\\sqrt{d_k}$. Let "
        "$p = \\operatorname{softmax}(c\\,z)$."
    ) % {"z": vector_tex(givens["z"], decimal), "c": format_tex(givens["c"], decimal=decimal)}


# A near tie for the largest logit keeps softmax(c z) split between two keys however large c
# is, hiding the saturation these problems are about.
MIN_TOP_GAP = 0.5


class _ScaledLogits(Family):
    """Families whose givens are logits z and a factor c."""

    def discriminates(
        self, givens: Mapping[str, Any], grading_key: Mapping[str, Any] = NO_KEY
    ) -> bool:
        """Also require one clearly largest logit, so that scaling saturates the softmax."""
        second, first = sorted(givens["z"])[-2:]
        return first - second >= MIN_TOP_GAP and super().discriminates(givens, grading_key)

    def check_params(self, params: dict[str, Any]) -> dict[str, str]:
        """min_length ≤ max_length."""
        return check_length_range(params)

    def draw(self, rng: np.random.Generator, params: dict[str, Any]) -> dict[str, Any]:
        """Draw the logits and the factor c."""
        return {"z": draw_logits(rng, params), "c": pick(rng, params["c_choices"])}

    def answer_shape(self, givens: Mapping[str, Any]) -> tuple[int, ...]:
        """A single number."""
        return ()


class SaturationMaxProb(_ScaledLogits):
    """max softmax(c z): how close to one-hot the scaled softmax is."""

    key = "saturation-max-prob"
    answer_kind = "largest-probability"
    version = 2
    title = gettext_noop("Largest probability after rescaling")
    param_specs = (*logit_specs(3, 5, 2.0), _scale_spec((2.0, 4.0, 8.0, 16.0)))
    default_tolerance = Tolerance(atol=0.002, rtol=0.002)
    mistakes = {
        "scale-ignored": (
            gettext_noop(
                "That is the largest probability of softmax(z): multiplying the logits by c "
                "changes the softmax and pushes it towards one-hot."
            )
        ),
        "scale-direction": (
            gettext_noop(
                "That is the largest probability of softmax(z / c): the logits are multiplied "
                "by c, not divided, which sharpens the softmax instead of flattening it."
            )
        ),
    }

    def solve(self, givens: Mapping[str, Any], grading_key: Mapping[str, Any] = NO_KEY) -> Solution:
        """max softmax(c z), with the unscaled and divided mistakes."""
        z = np.asarray(givens["z"], dtype=np.float64)
        c = float(givens["c"])
        return Solution(
            answer=scalar(softmax(c * z).max()),
            mistakes={
                "scale-ignored": scalar(softmax(z).max()),
                "scale-direction": scalar(softmax(z / c).max()),
            },
        )

    def prompt(self, givens: Mapping[str, Any], decimal: str = ".") -> str:
        """Ask for the largest entry of p."""
        question = _("What is the largest entry of $p$?")
        return f"{_scaled_setting(givens, decimal)}\n\n{question}"


class SaturatedSlope(_ScaledLogits):
    """max |J_ij| for the softmax of c z: how much gradient a saturated softmax passes on."""

    key = "saturated-slope"
    answer_kind = "largest-slope"
    version = 2
    title = gettext_noop("Slope of a saturated softmax")
    param_specs = (*logit_specs(3, 5, 2.0), _scale_spec((2.0, 4.0, 8.0)))
    # Saturated slopes are tiny; an absolute floor of 1e-6 still tells them apart from 0.
    default_tolerance = Tolerance(atol=1e-6, rtol=0.01)
    mistakes = {
        "scale-ignored": (
            gettext_noop(
                "That is the largest slope of softmax(z): compute the Jacobian of softmax(c·z), "
                "with the scaled logits."
            )
        ),
        "probability-not-slope": (
            gettext_noop(
                "That is the largest probability of softmax(c·z), not a slope: the slopes are "
                "the entries pᵢ(δᵢⱼ − pⱼ) of its Jacobian."
            )
        ),
    }

    def solve(self, givens: Mapping[str, Any], grading_key: Mapping[str, Any] = NO_KEY) -> Solution:
        """max |J_ij| of softmax(c z), with the unscaled and probability mistakes."""
        z = np.asarray(givens["z"], dtype=np.float64)
        c = float(givens["c"])
        p = softmax(c * z)
        return Solution(
            answer=scalar(np.abs(jacobian(p)).max()),
            mistakes={
                "scale-ignored": scalar(np.abs(jacobian(softmax(z))).max()),
                "probability-not-slope": scalar(p.max()),
            },
        )

    def prompt(self, givens: Mapping[str, Any], decimal: str = ".") -> str:
        """Ask for the largest slope magnitude."""
        question = _(
            "What is the largest magnitude "
            "$\\max_{i,j} \\left|\\dfrac{\\partial p_i}{\\partial (c z)_j}\\right|$ among the "
            "entries of the softmax Jacobian $\\operatorname{diag}(p) - p p^{\\top}$?"
        )
        return f"{_scaled_setting(givens, decimal)}\n\n{question}"
