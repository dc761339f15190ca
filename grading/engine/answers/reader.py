"""parse: a learner's answer text to a float64 array of the expected shape."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from grading.engine.answers.arithmetic import CONSTANTS
from grading.engine.answers.errors import EMPTY_MESSAGE, ParseError
from grading.engine.answers.expressions import evaluate_text
from grading.engine.answers.formatting import format_count
from grading.engine.answers.layout import arrange, layout
from grading.engine.answers.separators import check_thousands_commas, decimal_commas
from grading.engine.answers.text import (
    MAX_LENGTH,
    check_brackets,
    check_characters,
    normalise,
)
from grading.engine.i18n import gettext as _

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


def parse(text: str, shape: tuple[int, ...], decimal: str = ".") -> npt.NDArray[np.float64]:
    """Read a learner's answer as a float64 array of the given shape, e.g. parse('√64', ()) → 8.

    decimal is the page's decimal separator: "." (entries apart with commas) or "," (0,5, and
    entries apart with ;: answers/separators.py); 0.5 reads 0.5 with either."""
    if text is None:
        raise ParseError(EMPTY_MESSAGE)
    if not isinstance(text, str):
        raise ParseError(_("the answer must be text"))
    if len(text) > MAX_LENGTH:
        raise ParseError(
            _("the answer is too long (at most %(count)s characters)")
            % {"count": format_count(MAX_LENGTH, decimal)}
        )
    shape = tuple(shape)
    if decimal != ".":
        # The one place the separator matters: from here on the text is in the point form.
        text = decimal_commas(text)
    fast = _fast_numbers(text, shape)
    if fast is not None:
        return fast
    if not shape and decimal == "." and "," in text:
        check_thousands_commas(text)
    normalised = normalise(text)
    if not normalised.strip():
        raise ParseError(EMPTY_MESSAGE)
    check_characters(normalised)
    check_brackets(normalised)
    if sum(normalised.count(op) for op in "+-*/(") > MAX_OPERATIONS:
        raise ParseError(_("the answer is too complicated; simplify it"))
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
                where = _("entry %(number)s: %(message)s")
                fields = {"number": index + 1, "message": error.message}
            else:
                row, col = divmod(index, shape[1])
                where = _("entry (%(row)s, %(column)s): %(message)s")
                fields = {"row": row + 1, "column": col + 1, "message": error.message}
            raise ParseError(where % fields) from None
    return np.array(values, dtype=np.float64).reshape(shape)
