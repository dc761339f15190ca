"""Arithmetic with guards: the operators, functions and constants an answer may use.

simpleeval evaluates with these tables only; each operation refuses, with a ParseError, what
would be undefined, complex or too large, before computing it.
"""

from __future__ import annotations

import ast
import math
import threading
from collections.abc import Callable

from simpleeval import SimpleEval

from grading.engine.answers.errors import ParseError
from grading.engine.i18n import gettext as _

LARGEST_POWER_DIGITS = 308  # log10 of the largest finite float64

# Operands arrive as int or float; everything is done in float so that no operation can build
# a huge integer or repeat a sequence.


def _add(a: float, b: float) -> float:
    return float(a) + float(b)


def _sub(a: float, b: float) -> float:
    return float(a) - float(b)


def _mul(a: float, b: float) -> float:
    return float(a) * float(b)


def _div(a: float, b: float) -> float:
    if float(b) == 0.0:
        raise ParseError(_("division by zero"))
    return float(a) / float(b)


def _power(a: float, b: float) -> float:
    base, exponent = float(a), float(b)
    if base == 0.0 and exponent < 0:
        raise ParseError(_("division by zero (0 to a negative power)"))
    if base < 0 and not exponent.is_integer():
        raise ParseError(_("a negative number to a fractional power is not a real number"))
    magnitude = abs(base)
    if magnitude not in (0.0, 1.0):
        digits = abs(exponent) * abs(math.log10(magnitude))
        # Decide from the size of the result before computing it, so 9^9^9 costs nothing.
        if digits > LARGEST_POWER_DIGITS:
            if (magnitude > 1) == (exponent > 0):
                raise ParseError(_("that power is too large to compute"))
            return 0.0
    try:
        return math.pow(base, exponent)
    except OverflowError:
        raise ParseError(_("that power is too large to compute")) from None


def _neg(a: float) -> float:
    return -float(a)


def _pos(a: float) -> float:
    return float(a)


def _sqrt(x: float) -> float:
    value = float(x)
    if value < 0:
        raise ParseError(_("the square root of a negative number is not a real number"))
    return math.sqrt(value)


def _exp(x: float) -> float:
    try:
        return math.exp(float(x))
    except OverflowError:
        raise ParseError(_("exp of that number is too large")) from None


def _ln(x: float) -> float:
    value = float(x)
    if value <= 0:
        raise ParseError(_("the logarithm of zero or a negative number is undefined"))
    return math.log(value)


OPERATORS: dict[type, Callable[..., float]] = {
    ast.Add: _add,
    ast.Sub: _sub,
    ast.Mult: _mul,
    ast.Div: _div,
    ast.Pow: _power,
    ast.USub: _neg,
    ast.UAdd: _pos,
}
FUNCTIONS: dict[str, Callable[[float], float]] = {
    "sqrt": _sqrt,
    "exp": _exp,
    "ln": _ln,
    "log": _ln,  # learners of this lesson mean the natural log
}
CONSTANTS: dict[str, float] = {"e": math.e, "pi": math.pi}
RESERVED_NAMES = frozenset(FUNCTIONS) | frozenset(CONSTANTS)

OPERATOR_SYMBOLS = {
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.MatMult: "@",
    ast.BitXor: "^",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.Invert: "~",
    ast.Not: "not",
}

_local = threading.local()


def thread_evaluator() -> SimpleEval:
    # One evaluator per thread: building one costs more than most evaluations.
    evaluator = getattr(_local, "evaluator", None)
    if evaluator is None:
        evaluator = SimpleEval(
            operators=dict(OPERATORS), functions=dict(FUNCTIONS), names=dict(CONSTANTS)
        )
        _local.evaluator = evaluator
    return evaluator
