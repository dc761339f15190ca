"""Worked solution for the scaled score of explicit q and k (problems/scores.py)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from grading.engine.solutions.variance import WHY_SQRT_D_K
from grading.engine.solutions.writing import ANSWER_DIGITS, factor, tex


def scaled_dot(givens: Mapping[str, Any]) -> tuple[str, ...]:
    """Multiply entry by entry, add, divide by √d_k."""
    q = [float(x) for x in givens["q"]]
    k = [float(x) for x in givens["k"]]
    d_k = len(q)
    products = [a * b for a, b in zip(q, k, strict=True)]
    dot = sum(products)
    written = " + ".join(f"{factor(a)} \\cdot {factor(b)}" for a, b in zip(q, k, strict=True))
    return (
        "Multiply $q$ and $k$ entry by entry and add the products: "
        f"$$q \\cdot k = {written} = {tex(dot)}$$",
        f"Both vectors have $d_k = {d_k}$ entries, so $\\sqrt{{d_k}} = \\sqrt{{{d_k}}} "
        f"\\approx {tex(math.sqrt(d_k))}$.",
        "Divide the dot product by it: "
        f"$\\frac{{q \\cdot k}}{{\\sqrt{{d_k}}}} = \\frac{{{tex(dot)}}}{{\\sqrt{{{d_k}}}}} = "
        f"{tex(dot / math.sqrt(d_k), ANSWER_DIGITS)}$.",
        WHY_SQRT_D_K,
    )
