"""Worked solutions for the spread of q·k and the divisor that undoes it (problems/variance.py)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from grading.engine.solutions.writing import ANSWER_DIGITS, tex

WHY_SQRT_D_K = (
    "This is why attention divides its scores by $\\sqrt{d_k}$: the spread of $q \\cdot k$ "
    "grows like $\\sqrt{d_k}$, and a softmax fed widely spread scores puts almost all its "
    "weight on one key, so its slopes, and the gradient that flows back through it, nearly "
    "vanish. Dividing by the standard deviation keeps the spread at 1 however wide the head is."
)


def _sum_of_products(d_k: int) -> str:
    return (
        f"The score $q \\cdot k = \\sum_{{i=1}}^{{d_k}} q_i k_i$ adds up $d_k = {d_k}$ "
        "products, one per component."
    )


def _one_product(sq: float, sk: float) -> str:
    return (
        "Each product $q_i k_i$ has mean 0, because $q_i$ and $k_i$ are independent and each has "
        "mean 0. Its variance is therefore its mean square, "
        "$\\operatorname{E}[q_i^2]\\,\\operatorname{E}[k_i^2] = \\sigma_q^2 \\sigma_k^2 = "
        f"{tex(sq)}^2 \\cdot {tex(sk)}^2 = {tex(sq**2 * sk**2)}$."
    )


def _variances_add(d_k: int, sq: float, sk: float) -> str:
    return (
        "The products are independent of one another, and variances of independent terms add: "
        "$\\operatorname{Var}(q \\cdot k) = d_k\\,\\sigma_q^2 \\sigma_k^2 = "
        f"{d_k} \\cdot {tex(sq**2 * sk**2)} = {tex(d_k * sq**2 * sk**2, ANSWER_DIGITS)}$."
    )


def _square_root(d_k: int, sq: float, sk: float) -> str:
    std = math.sqrt(d_k) * sq * sk
    return (
        "The standard deviation is the square root of the variance: "
        f"$\\sqrt{{d_k}}\\,\\sigma_q \\sigma_k = \\sqrt{{{d_k}}} \\cdot {tex(sq)} \\cdot {tex(sk)} "
        f"= {tex(std, ANSWER_DIGITS)}$."
    )


def _sigmas(givens: Mapping[str, Any]) -> tuple[int, float, float]:
    return int(givens["d_k"]), float(givens["sigma_q"]), float(givens["sigma_k"])


def dot_variance(givens: Mapping[str, Any]) -> tuple[str, ...]:
    """Var(q·k) = d_k σq² σk², one product at a time."""
    d_k, sq, sk = _sigmas(givens)
    return (_sum_of_products(d_k), _one_product(sq, sk), _variances_add(d_k, sq, sk))


def dot_std(givens: Mapping[str, Any]) -> tuple[str, ...]:
    """The variance first, then its square root."""
    return (*dot_variance(givens), _square_root(*_sigmas(givens)))


def scale_for_unit_variance(givens: Mapping[str, Any]) -> tuple[str, ...]:
    """The standard deviation of q·k is the divisor, and why."""
    d_k, sq, sk = _sigmas(givens)
    std = math.sqrt(d_k) * sq * sk
    return (
        *dot_std(givens)[:-1],
        "Dividing a random quantity by a positive $s$ divides its variance by $s^2$: "
        "$\\operatorname{Var}\\left(\\frac{q \\cdot k}{s}\\right) = "
        "\\frac{\\operatorname{Var}(q \\cdot k)}{s^2}$. This equals 1 exactly when "
        "$s^2 = \\operatorname{Var}(q \\cdot k)$, so $s$ is the standard deviation of "
        f"$q \\cdot k$: $s = \\sqrt{{{d_k}}} \\cdot {tex(sq)} \\cdot {tex(sk)} = "
        f"{tex(std, ANSWER_DIGITS)}$.",
        WHY_SQRT_D_K,
    )


def scaled_variance(givens: Mapping[str, Any]) -> tuple[str, ...]:
    """Var(q·k) = d_k for unit-variance components, then divided by s²."""
    d_k, divisor = int(givens["d_k"]), float(givens["divisor"])
    return (
        _sum_of_products(d_k),
        "With mean 0 and variance 1 in every component, each product $q_i k_i$ has variance "
        "$1 \\cdot 1 = 1$, and the independent products' variances add: "
        f"$\\operatorname{{Var}}(q \\cdot k) = d_k = {d_k}$.",
        "Dividing by $s$ divides every value by $s$ and so the variance by $s^2$: "
        "$\\operatorname{Var}\\left(\\frac{q \\cdot k}{s}\\right) = \\frac{d_k}{s^2} = "
        f"\\frac{{{d_k}}}{{{tex(divisor)}^2}} = {tex(d_k / divisor**2, ANSWER_DIGITS)}$.",
    )


def width_for_std(givens: Mapping[str, Any]) -> tuple[str, ...]:
    """Std(q·k) = √d_k for unit-variance components, solved for d_k."""
    target = float(givens["target_std"])
    return (
        "With mean 0 and variance 1 in every component, each of the $d_k$ products "
        "$q_i k_i$ has variance 1 and their variances add, so "
        "$\\operatorname{Var}(q \\cdot k) = d_k$ and the standard deviation is $\\sqrt{d_k}$.",
        f"Setting $\\sqrt{{d_k}} = {tex(target)}$ and squaring both sides gives "
        f"$d_k = {tex(target)}^2 = {tex(target**2, ANSWER_DIGITS)}$.",
    )
