"""Worked solutions for the spread of q·k and the divisor that undoes it (problems/variance.py).

Every writer takes the page's decimal separator (decimal) for its numbers; its sentences are
translated when it runs."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from grading.engine.i18n import gettext as _
from grading.engine.i18n import gettext_noop
from grading.engine.solutions.writing import ANSWER_DIGITS, tex

WHY_SQRT_D_K = gettext_noop(
    "This is why attention divides its scores by $\\sqrt{d_k}$: the spread of $q \\cdot k$ "
    "grows like $\\sqrt{d_k}$, and a softmax fed widely spread scores puts almost all its "
    "weight on one key, so its slopes, and the gradient that flows back through it, nearly "
    "vanish. Dividing by the standard deviation keeps the spread at 1 however wide the head is."
)


def _sum_of_products(d_k: int) -> str:
    return _(
        "The score $q \\cdot k = \\sum_{i=1}^{d_k} q_i k_i$ adds up $d_k = %(d_k)s$ products, one "
        "per component."
    ) % {"d_k": d_k}


def _one_product(sq: float, sk: float, decimal: str) -> str:
    return _(
        "Each product $q_i k_i$ has mean 0, because $q_i$ and $k_i$ are independent and each has "
        "mean 0. Its variance is therefore its mean square, "
        "$\\operatorname{E}[q_i^2]\\,\\operatorname{E}[k_i^2] = \\sigma_q^2 \\sigma_k^2 = "
        "%(sq)s^2 \\cdot %(sk)s^2 = %(product)s$."
    ) % {
        "sq": tex(sq, decimal=decimal),
        "sk": tex(sk, decimal=decimal),
        "product": tex(sq**2 * sk**2, decimal=decimal),
    }


def _variances_add(d_k: int, sq: float, sk: float, decimal: str) -> str:
    return _(
        "The products are independent of one another, and variances of independent terms add: "
        "$\\operatorname{Var}(q \\cdot k) = d_k\\,\\sigma_q^2 \\sigma_k^2 = "
        "%(d_k)s \\cdot %(product)s = %(variance)s$."
    ) % {
        "d_k": d_k,
        "product": tex(sq**2 * sk**2, decimal=decimal),
        "variance": tex(d_k * sq**2 * sk**2, ANSWER_DIGITS, decimal),
    }


def _square_root(d_k: int, sq: float, sk: float, decimal: str) -> str:
    std = math.sqrt(d_k) * sq * sk
    return _(
        "The standard deviation is the square root of the variance: "
        "$\\sqrt{d_k}\\,\\sigma_q \\sigma_k = \\sqrt{%(d_k)s} \\cdot %(sq)s \\cdot %(sk)s "
        "= %(std)s$."
    ) % {
        "d_k": d_k,
        "sq": tex(sq, decimal=decimal),
        "sk": tex(sk, decimal=decimal),
        "std": tex(std, ANSWER_DIGITS, decimal),
    }


def _sigmas(givens: Mapping[str, Any]) -> tuple[int, float, float]:
    return int(givens["d_k"]), float(givens["sigma_q"]), float(givens["sigma_k"])


def dot_variance(givens: Mapping[str, Any], decimal: str = ".") -> tuple[str, ...]:
    """Var(q·k) = d_k σq² σk², one product at a time."""
    d_k, sq, sk = _sigmas(givens)
    return (
        _sum_of_products(d_k),
        _one_product(sq, sk, decimal),
        _variances_add(d_k, sq, sk, decimal),
    )


def dot_std(givens: Mapping[str, Any], decimal: str = ".") -> tuple[str, ...]:
    """The variance first, then its square root."""
    return (*dot_variance(givens, decimal), _square_root(*_sigmas(givens), decimal))


def scale_for_unit_variance(givens: Mapping[str, Any], decimal: str = ".") -> tuple[str, ...]:
    """The standard deviation of q·k is the divisor, and why."""
    d_k, sq, sk = _sigmas(givens)
    std = math.sqrt(d_k) * sq * sk
    return (
        *dot_std(givens, decimal)[:-1],
        _(
            "Dividing a random quantity by a positive $s$ divides its variance by $s^2$: "
            "$\\operatorname{Var}\\left(\\frac{q \\cdot k}{s}\\right) = "
            "\\frac{\\operatorname{Var}(q \\cdot k)}{s^2}$. This equals 1 exactly when "
            "$s^2 = \\operatorname{Var}(q \\cdot k)$, so $s$ is the standard deviation of "
            "$q \\cdot k$: $s = \\sqrt{%(d_k)s} \\cdot %(sq)s \\cdot %(sk)s = %(std)s$."
        )
        % {
            "d_k": d_k,
            "sq": tex(sq, decimal=decimal),
            "sk": tex(sk, decimal=decimal),
            "std": tex(std, ANSWER_DIGITS, decimal),
        },
        _(WHY_SQRT_D_K),
    )


def scaled_variance(givens: Mapping[str, Any], decimal: str = ".") -> tuple[str, ...]:
    """Var(q·k) = d_k for unit-variance components, then divided by s²."""
    d_k, divisor = int(givens["d_k"]), float(givens["divisor"])
    return (
        _sum_of_products(d_k),
        _(
            "With mean 0 and variance 1 in every component, each product $q_i k_i$ has variance "
            "$1 \\cdot 1 = 1$, and the independent products' variances add: "
            "$\\operatorname{Var}(q \\cdot k) = d_k = %(d_k)s$."
        )
        % {"d_k": d_k},
        _(
            "Dividing by $s$ divides every value by $s$ and so the variance by $s^2$: "
            "$\\operatorname{Var}\\left(\\frac{q \\cdot k}{s}\\right) = \\frac{d_k}{s^2} = "
            "\\frac{%(d_k)s}{%(s)s^2} = %(variance)s$."
        )
        % {
            "d_k": d_k,
            "s": tex(divisor, decimal=decimal),
            "variance": tex(d_k / divisor**2, ANSWER_DIGITS, decimal),
        },
    )


def width_for_std(givens: Mapping[str, Any], decimal: str = ".") -> tuple[str, ...]:
    """Std(q·k) = √d_k for unit-variance components, solved for d_k."""
    target = float(givens["target_std"])
    return (
        _(
            "With mean 0 and variance 1 in every component, each of the $d_k$ products "
            "$q_i k_i$ has variance 1 and their variances add, so "
            "$\\operatorname{Var}(q \\cdot k) = d_k$ and the standard deviation is $\\sqrt{d_k}$."
        ),
        _(
            "Setting $\\sqrt{d_k} = %(target)s$ and squaring both sides gives "
            "$d_k = %(target)s^2 = %(d_k)s$."
        )
        % {
            "target": tex(target, decimal=decimal),
            "d_k": tex(target**2, ANSWER_DIGITS, decimal),
        },
    )
