"""Turning one query-key dot product into the logit the softmax receives."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from grading.engine.answers.formatting import entry_separator, format_tex
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
from grading.engine.problems.variance import scalar


def vector_tex(values: list[float], decimal: str = ".") -> str:
    """A vector written out for the prompt's LaTeX, e.g. (0.3, -1.2, 0.8), or with a decimal
    comma (0{,}3; -1{,}2; 0{,}8)."""
    between = entry_separator(decimal) + " "
    return "(" + between.join(format_tex(x, decimal=decimal) for x in values) + ")"


class ScaledDot(Family):
    """q·k / √d_k for explicit vectors q and k."""

    key = "scaled-dot"
    answer_kind = "scaled-score"
    version = 2
    title = gettext_noop("Computing a scaled score")
    param_specs = (
        ParamSpec(
            "min_length", "int", 4, gettext_noop("Fewest entries in q and k (dₖ)."), min=2, max=64
        ),
        ParamSpec(
            "max_length", "int", 16, gettext_noop("Most entries in q and k (dₖ)."), min=2, max=64
        ),
        ParamSpec(
            "entry_max",
            "float",
            2.0,
            gettext_noop(
                "Entries are drawn from [-entry_max, entry_max] and rounded to one decimal."
            ),
            min=0.1,
            max=10.0,
        ),
    )
    default_tolerance = Tolerance(atol=0.01, rtol=0.01)
    mistakes = {
        "unscaled": gettext_noop("That is the raw dot product q·k: divide it by √dₖ."),
        "divided-by-width": gettext_noop("You divided by dₖ; the scaling divides q·k by √dₖ."),
        "scale-direction": gettext_noop("You multiplied by √dₖ; the scaling divides q·k by √dₖ."),
    }

    def check_params(self, params: dict[str, Any]) -> dict[str, str]:
        """min_length ≤ max_length."""
        return check_length_range(params)

    def draw(self, rng: np.random.Generator, params: dict[str, Any]) -> dict[str, Any]:
        """Draw the width, then q and k with one-decimal entries."""
        d_k = int(rng.integers(params["min_length"], params["max_length"] + 1))
        bound = params["entry_max"]
        return {
            "q": round_logits(rng.uniform(-bound, bound, d_k)),
            "k": round_logits(rng.uniform(-bound, bound, d_k)),
        }

    def solve(self, givens: Mapping[str, Any], grading_key: Mapping[str, Any] = NO_KEY) -> Solution:
        """q·k / √d_k, with the unscaled, divided-by-d_k and multiplied mistakes."""
        q = np.asarray(givens["q"], dtype=np.float64)
        k = np.asarray(givens["k"], dtype=np.float64)
        dot = float(q @ k)
        d_k = q.size
        return Solution(
            answer=scalar(dot / math.sqrt(d_k)),
            mistakes={
                "unscaled": scalar(dot),
                "divided-by-width": scalar(dot / d_k),
                "scale-direction": scalar(dot * math.sqrt(d_k)),
            },
        )

    def answer_shape(self, givens: Mapping[str, Any]) -> tuple[int, ...]:
        """A single number."""
        return ()

    def prompt(self, givens: Mapping[str, Any], decimal: str = ".") -> str:
        """Show q and k written out and ask for the scaled score."""
        return _(
            "A head of width $d_k = %(d_k)s$ compares the query and key\n\n$$q = %(q)s$$\n\n"
            "$$k = %(k)s$$\n\nWhat is the scaled score $\\frac{q \\cdot k}{\\sqrt{d_k}}$?"
        ) % {
            "d_k": len(givens["q"]),
            "q": vector_tex(givens["q"], decimal),
            "k": vector_tex(givens["k"], decimal),
        }
