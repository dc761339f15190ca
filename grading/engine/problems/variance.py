"""How the spread of q·k grows with the head width d_k, and the divisor that undoes it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from grading.engine.answers.formatting import format_number, format_tex
from grading.engine.checks import Tolerance
from grading.engine.i18n import gettext as _
from grading.engine.i18n import gettext_noop
from grading.engine.problems.base import NO_KEY, Family, ParamSpec, Solution, pick

D_K_CHOICES = ParamSpec(
    "d_k_choices",
    "int_list",
    (16, 32, 64, 128, 256, 512),
    gettext_noop("Head widths dₖ to draw from."),
    min=1,
    max=1_000_000,
)
SIGMA_CHOICES = ParamSpec(
    "sigma_choices",
    "float_list",
    (0.5, 1.0, 1.5, 2.0, 3.0),
    gettext_noop("Standard deviations to draw σ_q and σ_k from (each drawn on its own)."),
    min=0.01,
    max=100.0,
)
RELATIVE_1_PERCENT = Tolerance(atol=0.0, rtol=0.01)


def scalar(value: float) -> np.ndarray:
    """A 0-d float64 array, the shape every scalar answer and mistake has."""
    return np.array(float(value), dtype=np.float64)


def _setting(givens: Mapping[str, Any], decimal: str) -> str:
    return _(
        "A query $q$ and a key $k$ in $\\mathbb{R}^{d_k}$ with $d_k = %(d_k)s$ have independent "
        "components with mean 0. Each component of $q$ has standard deviation "
        "$\\sigma_q = %(sigma_q)s$ and each component of $k$ has standard deviation "
        "$\\sigma_k = %(sigma_k)s$."
    ) % {
        "d_k": givens["d_k"],
        "sigma_q": format_tex(givens["sigma_q"], decimal=decimal),
        "sigma_k": format_tex(givens["sigma_k"], decimal=decimal),
    }


class _WidthAndSigmas(Family):
    """Families whose givens are d_k, sigma_q and sigma_k."""

    param_specs = (D_K_CHOICES, SIGMA_CHOICES)
    default_tolerance = RELATIVE_1_PERCENT

    def draw(self, rng: np.random.Generator, params: dict[str, Any]) -> dict[str, Any]:
        """Draw d_k and the two standard deviations from the instructor's choice lists."""
        return {
            "d_k": pick(rng, params["d_k_choices"]),
            "sigma_q": pick(rng, params["sigma_choices"]),
            "sigma_k": pick(rng, params["sigma_choices"]),
        }

    def answer_shape(self, givens: Mapping[str, Any]) -> tuple[int, ...]:
        """A single number."""
        return ()


class DotVariance(_WidthAndSigmas):
    """Var(q·k) = d_k σq² σk²."""

    key = "dot-variance"
    answer_kind = "variance"
    version = 2
    title = gettext_noop("Variance of a dot product")
    mistakes = {
        "std-for-variance": gettext_noop(
            "That is the standard deviation of q·k, not its variance: square it."
        ),
        "width-ignored": (
            gettext_noop(
                "That is the variance of one product qᵢkᵢ: q·k adds up dₖ of them, "
                "and the variances of independent terms add."
            )
        ),
        "width-squared": (
            gettext_noop(
                "The variances of the dₖ independent terms add, giving a factor dₖ, not dₖ²."
            )
        ),
        "variances-added": (
            gettext_noop(
                "The variance of a product of independent zero-mean factors is the product "
                "of their variances, σq²σk², not their sum."
            )
        ),
        "sigma-not-squared": (
            gettext_noop(
                "Each σ is a standard deviation: the variance of a component is σ², so every "
                "product qᵢkᵢ has variance σq²σk², not σqσk."
            )
        ),
        "unit-variance-assumed": (
            gettext_noop(
                "That would be the variance if every component had variance 1; here the "
                "components have the standard deviations σq and σk, and they enter squared."
            )
        ),
        "root-width-for-width": (
            gettext_noop(
                "√dₖ is how the standard deviation of q·k grows when the components have "
                "variance 1; the variance grows like dₖ itself, and with these scales it is "
                "dₖ σq²σk²."
            )
        ),
    }

    def solve(self, givens: Mapping[str, Any], grading_key: Mapping[str, Any] = NO_KEY) -> Solution:
        """d_k σq² σk², with the standard deviation, width and scale mistakes."""
        d_k, sq, sk = float(givens["d_k"]), float(givens["sigma_q"]), float(givens["sigma_k"])
        mistakes = {
            "std-for-variance": scalar(math.sqrt(d_k) * sq * sk),
            "width-ignored": scalar(sq**2 * sk**2),
            "width-squared": scalar(d_k**2 * sq**2 * sk**2),
            "variances-added": scalar(d_k * (sq**2 + sk**2)),
        }
        # With σqσk = 1 leaving σ unsquared or out changes nothing, and √d_k is then the
        # standard deviation itself, which std-for-variance already names.
        if sq * sk != 1.0:
            mistakes["sigma-not-squared"] = scalar(d_k * sq * sk)
            mistakes["unit-variance-assumed"] = scalar(d_k)
            mistakes["root-width-for-width"] = scalar(math.sqrt(d_k))
        return Solution(answer=scalar(d_k * sq**2 * sk**2), mistakes=mistakes)

    def prompt(self, givens: Mapping[str, Any], decimal: str = ".") -> str:
        """Ask for Var(q·k)."""
        question = _("What is $\\operatorname{Var}(q \\cdot k)$?")
        return f"{_setting(givens, decimal)}\n\n{question}"


class DotStd(_WidthAndSigmas):
    """Std(q·k) = √d_k σq σk."""

    key = "dot-std"
    answer_kind = "standard-deviation"
    version = 2
    title = gettext_noop("Standard deviation of a dot product")
    mistakes = {
        "variance-for-std": (
            gettext_noop(
                "That is the variance of q·k, not its standard deviation: take the square root."
            )
        ),
        "width-ignored": (
            gettext_noop(
                "That is the standard deviation of one product qᵢkᵢ: q·k adds up dₖ of them, "
                "so its standard deviation carries a factor √dₖ."
            )
        ),
        "width-for-root-width": (
            gettext_noop(
                "The variance of q·k grows like dₖ, so its standard deviation grows like √dₖ: "
                "the factor for the width is √dₖ, not dₖ."
            )
        ),
        "unit-variance-assumed": (
            gettext_noop(
                "√dₖ is the standard deviation only when every component has variance 1; "
                "here it is scaled by σq and σk."
            )
        ),
        "sigma-squared-in-std": (
            gettext_noop(
                "The standard deviation of one product qᵢkᵢ is σqσk: the squares belong "
                "in its variance, not in its standard deviation."
            )
        ),
    }

    def solve(self, givens: Mapping[str, Any], grading_key: Mapping[str, Any] = NO_KEY) -> Solution:
        """√d_k σq σk, with the variance, width and scale mistakes."""
        d_k, sq, sk = float(givens["d_k"]), float(givens["sigma_q"]), float(givens["sigma_k"])
        mistakes = {
            "variance-for-std": scalar(d_k * sq**2 * sk**2),
            "width-ignored": scalar(sq * sk),
        }
        # With σqσk = 1 these three are the answer itself or the whole variance, which
        # variance-for-std already names.
        if sq * sk != 1.0:
            mistakes["width-for-root-width"] = scalar(d_k * sq * sk)
            mistakes["unit-variance-assumed"] = scalar(math.sqrt(d_k))
            mistakes["sigma-squared-in-std"] = scalar(math.sqrt(d_k) * sq**2 * sk**2)
        return Solution(answer=scalar(math.sqrt(d_k) * sq * sk), mistakes=mistakes)

    def prompt(self, givens: Mapping[str, Any], decimal: str = ".") -> str:
        """Ask for the standard deviation of q·k."""
        question = _("What is the standard deviation of $q \\cdot k$?")
        return f"{_setting(givens, decimal)}\n\n{question}"


class ScaleForUnitVariance(_WidthAndSigmas):
    """The divisor s = √d_k σq σk that gives q·k / s variance 1."""

    key = "scale-for-unit-variance"
    answer_kind = "divisor"
    version = 2
    title = gettext_noop("A divisor for unit variance")
    mistakes = {
        "variance-as-divisor": (
            gettext_noop(
                "Dividing by the variance overshoots: dividing by s divides the variance by s², "
                "so s must be the standard deviation √dₖ σq σk."
            )
        ),
        "width-only": (
            gettext_noop(
                "√dₖ is the right divisor only when the components have variance 1; "
                "here the standard deviation of q·k is √dₖ σq σk."
            )
        ),
        "width-for-root-width": (
            gettext_noop("The spread of q·k grows like √dₖ, not dₖ: the divisor is √dₖ σq σk.")
        ),
    }

    def solve(self, givens: Mapping[str, Any], grading_key: Mapping[str, Any] = NO_KEY) -> Solution:
        """√d_k σq σk, with the variance, width-only and d_k-for-√d_k mistakes."""
        d_k, sq, sk = float(givens["d_k"]), float(givens["sigma_q"]), float(givens["sigma_k"])
        mistakes = {
            "variance-as-divisor": scalar(d_k * sq**2 * sk**2),
            "width-only": scalar(math.sqrt(d_k)),
        }
        # With σqσk = 1, d_k σqσk is the variance itself, which variance-as-divisor names.
        if sq * sk != 1.0:
            mistakes["width-for-root-width"] = scalar(d_k * sq * sk)
        return Solution(answer=scalar(math.sqrt(d_k) * sq * sk), mistakes=mistakes)

    def prompt(self, givens: Mapping[str, Any], decimal: str = ".") -> str:
        """Ask for the positive divisor s that gives the scaled score variance 1."""
        question = _(
            "The score is divided by a positive number $s$. Which $s$ makes "
            "$\\operatorname{Var}\\left(\\frac{q \\cdot k}{s}\\right) = 1$?"
        )
        return f"{_setting(givens, decimal)}\n\n{question}"


class ScaledVariance(Family):
    """Var(q·k / s) = d_k / s² for unit-variance components."""

    key = "scaled-variance"
    answer_kind = "variance"
    version = 2
    title = gettext_noop("Variance after scaling")
    param_specs = (
        ParamSpec(
            "d_k_choices",
            "int_list",
            (16, 64, 256, 1024),
            gettext_noop("Head widths dₖ to draw from."),
            min=1,
            max=1_000_000,
        ),
        ParamSpec(
            "divisor_choices",
            "float_list",
            (2.0, 4.0, 8.0, 16.0, 32.0),
            gettext_noop("Divisors s to draw from."),
            min=0.01,
            max=1_000_000.0,
        ),
    )
    default_tolerance = RELATIVE_1_PERCENT
    mistakes = {
        "divisor-not-squared": gettext_noop(
            "Dividing a score by s divides its variance by s², not by s."
        ),
        "std-for-variance": (
            gettext_noop(
                "That is the standard deviation of the scaled score, √dₖ / s: the question asks "
                "for its variance, the square of that."
            )
        ),
        "divisor-ignored": (
            gettext_noop(
                "That is the variance of the raw score q·k; dividing the score by s changes it."
            )
        ),
    }

    def draw(self, rng: np.random.Generator, params: dict[str, Any]) -> dict[str, Any]:
        """Draw d_k and the divisor from the instructor's choice lists."""
        return {
            "d_k": pick(rng, params["d_k_choices"]),
            "divisor": pick(rng, params["divisor_choices"]),
        }

    def solve(self, givens: Mapping[str, Any], grading_key: Mapping[str, Any] = NO_KEY) -> Solution:
        """d_k / s², with the unsquared divisor, standard deviation and unscaled mistakes."""
        d_k, divisor = float(givens["d_k"]), float(givens["divisor"])
        return Solution(
            answer=scalar(d_k / divisor**2),
            mistakes={
                "divisor-not-squared": scalar(d_k / divisor),
                "std-for-variance": scalar(math.sqrt(d_k) / divisor),
                "divisor-ignored": scalar(d_k),
            },
        )

    def answer_shape(self, givens: Mapping[str, Any]) -> tuple[int, ...]:
        """A single number."""
        return ()

    def prompt(self, givens: Mapping[str, Any], decimal: str = ".") -> str:
        """Ask for the variance of the score after division."""
        return _(
            "A query $q$ and a key $k$ in $\\mathbb{R}^{d_k}$ with $d_k = %(d_k)s$ have "
            "independent components with mean 0 and variance 1. The score is divided by "
            "$s = %(s)s$.\n\n"
            "What is $\\operatorname{Var}\\left(\\frac{q \\cdot k}{s}\\right)$?"
        ) % {"d_k": givens["d_k"], "s": format_tex(givens["divisor"], decimal=decimal)}


class WidthForStd(Family):
    """The head width d_k at which q·k has a given standard deviation: d_k = target²."""

    key = "width-for-std"
    version = 2
    title = gettext_noop("Head width from a target spread")
    param_specs = (
        ParamSpec(
            "target_std_choices",
            "float_list",
            (2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 16.0),
            gettext_noop("Target standard deviations of q·k to draw from."),
            min=0.01,
            max=1000.0,
        ),
    )
    default_tolerance = RELATIVE_1_PERCENT
    mistakes = {
        "std-for-variance": (
            gettext_noop(
                "The standard deviation of q·k is √dₖ, so dₖ is the square of the target "
                "standard deviation, not the target itself."
            )
        ),
        "doubled-not-squared": (
            gettext_noop(
                "dₖ is the square of the target standard deviation, the target times itself, "
                "not twice the target."
            )
        ),
    }

    def draw(self, rng: np.random.Generator, params: dict[str, Any]) -> dict[str, Any]:
        """Draw the target standard deviation."""
        return {"target_std": pick(rng, params["target_std_choices"])}

    def solve(self, givens: Mapping[str, Any], grading_key: Mapping[str, Any] = NO_KEY) -> Solution:
        """target², with the target-itself and doubled mistakes."""
        target = float(givens["target_std"])
        mistakes = {"std-for-variance": scalar(target)}
        # For a target of 2, twice the target is its square, the answer.
        if target != 2.0:
            mistakes["doubled-not-squared"] = scalar(2 * target)
        return Solution(answer=scalar(target**2), mistakes=mistakes)

    def answer_shape(self, givens: Mapping[str, Any]) -> tuple[int, ...]:
        """A single number."""
        return ()

    def prompt(self, givens: Mapping[str, Any], decimal: str = ".") -> str:
        """Ask for the head width that gives the target spread."""
        return _(
            "A query $q$ and a key $k$ in $\\mathbb{R}^{d_k}$ have independent components "
            "with mean 0 and variance 1.\n\nFor which head width $d_k$ does the raw score "
            "$q \\cdot k$ have standard deviation %(target)s?"
        ) % {"target": format_number(givens["target_std"], decimal=decimal)}
