"""Writing numbers back as text a learner could type: givens, correct answers, feedback."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def format_number(value: float, sig: int = 6) -> str:
    """Shortest text for value with sig significant digits, e.g. format_number(1/3) → '0.333333'."""
    text = f"{float(value):.{sig}g}"
    return "0" if text == "-0" else text


def format_answer(value: npt.ArrayLike, sig: int = 6) -> str:
    """Text a learner could type for value, e.g. '0.123457', '[0.1, 0.2]' or '[[1, 2], [3, 4]]'."""
    array = np.asarray(value, dtype=np.float64)
    if array.ndim == 0:
        return format_number(float(array), sig)
    if array.ndim == 1:
        return "[" + ", ".join(format_number(x, sig) for x in array.tolist()) + "]"
    if array.ndim == 2:
        rows = ("[" + ", ".join(format_number(x, sig) for x in row) + "]" for row in array.tolist())
        return "[" + ", ".join(rows) + "]"
    raise ValueError(f"cannot format an array with {array.ndim} dimensions")
