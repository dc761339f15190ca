"""parse: a learner's answer text to a float64 array of the expected shape."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from grading.engine.answers.arithmetic import CONSTANTS
from grading.engine.answers.errors import EMPTY_MESSAGE, ParseError
from grading.engine.answers.expressions import evaluate_text
from grading.engine.answers.layout import arrange, layout
from grading.engine.answers.text import (
    MAX_LENGTH,
    check_brackets,
    check_characters,
    normalise,
)

MAX_OPERATIONS = 200  # a bound that keeps hostile input cheap


def _fast_numbers(text: str, shape: tuple[int, ...]) -> npt.NDArray[np.float64] | None:
    """Plain numbers without any expression: skip the full reader (a large share of answers)."""
    if not text.isascii() or "_" in text:
        return None  # float() accepts '1_0' and non-ASCII digits; the full reader does not
    try:
        if not shape:
            value = float(text)
            return np.array(value) if math.isfinite(value) else None
        if len(shape) != 1:
            return None
        body = text.strip()
        if body[:1] == "[" and body[-1:] == "]":
            body = body[1:-1]
        parts = body.split(",")
        if len(parts) != shape[0]:
            return None
        values = np.array([float(part) for part in parts])
    except ValueError:
        return None
    return values if np.isfinite(values).all() else None


def parse(text: str, shape: tuple[int, ...]) -> npt.NDArray[np.float64]:
    """Read a learner's answer as a float64 array of the given shape, e.g. parse('√64', ()) → 8."""
    if text is None:
        raise ParseError(EMPTY_MESSAGE)
    if not isinstance(text, str):
        raise ParseError("the answer must be text")
    if len(text) > MAX_LENGTH:
        raise ParseError(f"the answer is too long (at most {MAX_LENGTH:,} characters)")
    shape = tuple(shape)
    fast = _fast_numbers(text, shape)
    if fast is not None:
        return fast
    normalised = normalise(text)
    if not normalised.strip():
        raise ParseError(EMPTY_MESSAGE)
    check_characters(normalised)
    check_brackets(normalised)
    if sum(normalised.count(op) for op in "+-*/(") > MAX_OPERATIONS:
        raise ParseError("the answer is too complicated; simplify it")
    if not shape and not any(mark in normalised for mark in ",;\n["):
        entries = [normalised]  # one expression: no layout to work out
    else:
        entries = arrange(layout(normalised, spaces_separate=bool(shape)), shape, normalised)
    values: list[float] = []
    for index, entry in enumerate(entries):
        try:
            values.append(evaluate_text(entry, CONSTANTS))
        except ParseError as error:
            if not shape:
                raise
            if len(shape) == 1:
                where = f"entry {index + 1}"
            else:
                row, col = divmod(index, shape[1])
                where = f"entry ({row + 1}, {col + 1})"
            raise ParseError(f"{where}: {error.message}") from None
    return np.array(values, dtype=np.float64).reshape(shape)
