"""Worked solution for the scaled score of explicit q and k (problems/scores.py)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from grading.engine.i18n import gettext as _
from grading.engine.solutions.variance import WHY_SQRT_D_K
from grading.engine.solutions.writing import ANSWER_DIGITS, factor, tex


def scaled_dot(givens: Mapping[str, Any], decimal: str = ".") -> tuple[str, ...]:
    """Multiply entry by entry, add, divide by √d_k."""
    q = [float(x) for x in givens["q"]]
    k = [float(x) for x in givens["k"]]
    d_k = len(q)
    products = [a * b for a, b in zip(q, k, strict=True)]
    dot = sum(products)
    written = " + ".join(
        f"{factor(a, decimal=decimal)} \\cdot {factor(b, decimal=decimal)}"
        for a, b in zip(q, k, strict=True)
    )
    return (
        _(
            "Multiply $q$ and $k$ entry by entry and add the products: "
            "$$q \\cdot k = %(written)s = %(dot)s$$"
        )
        % {"written": written, "dot": tex(dot, decimal=decimal)},
        _(
            "Both vectors have $d_k = %(d_k)s$ entries, so $\\sqrt{d_k} = \\sqrt{%(d_k)s} "
            "\\approx %(root)s$."
        )
        % {"d_k": d_k, "root": tex(math.sqrt(d_k), decimal=decimal)},
        _(
            "Divide the dot product by it: "
            "$\\frac{q \\cdot k}{\\sqrt{d_k}} = \\frac{%(dot)s}{\\sqrt{%(d_k)s}} = %(score)s$."
        )
        % {
            "dot": tex(dot, decimal=decimal),
            "d_k": d_k,
            "score": tex(dot / math.sqrt(d_k), ANSWER_DIGITS, decimal),
        },
        _(WHY_SQRT_D_K),
    )
