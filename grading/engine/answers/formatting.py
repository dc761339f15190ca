"""Writing numbers back as text a learner could type: givens, correct answers, feedback.

`decimal` is the page's decimal separator: "." or "," (a comma-decimal language writes the
entries of a vector or matrix apart with ";", as the reader expects them there).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

# A thousands group for a comma-decimal language: a narrow no-break space, which no reader takes
# for a decimal separator (1 000), where "1.000" would be ambiguous (answers/separators.py).
THIN_GROUP = "\u202f"


def entry_separator(decimal: str = ".") -> str:
    """What stands between the entries of a vector or a matrix row: ',' or, with a decimal
    comma, ';'."""
    return "," if decimal == "." else ";"


def format_number(value: float, sig: int = 6, decimal: str = ".") -> str:
    """Shortest text for value with sig significant digits, e.g. format_number(1/3) → '0.333333',
    format_number(1/3, decimal=',') → '0,333333'."""
    text = f"{float(value):.{sig}g}"
    if text == "-0":
        return "0"
    return text if decimal == "." else text.replace(".", decimal)


def format_count(value: int, decimal: str = ".") -> str:
    """A whole number with its thousands grouped, e.g. '1,000', or '1 000' with a decimal comma
    (a narrow no-break space: '1.000' would read as a decimal in English)."""
    text = f"{int(value):,}"
    return text if decimal == "." else text.replace(",", THIN_GROUP)


def format_answer(value: npt.ArrayLike, sig: int = 6, decimal: str = ".") -> str:
    """Text a learner could type for value, e.g. '0.123457', '[0.1, 0.2]' or '[[1, 2], [3, 4]]';
    with decimal=',' e.g. '[0,1; 0,2]'."""
    array = np.asarray(value, dtype=np.float64)
    between = entry_separator(decimal) + " "
    if array.ndim == 0:
        return format_number(float(array), sig, decimal)
    if array.ndim == 1:
        return "[" + between.join(format_number(x, sig, decimal) for x in array.tolist()) + "]"
    if array.ndim == 2:
        rows = (
            "[" + between.join(format_number(x, sig, decimal) for x in row) + "]"
            for row in array.tolist()
        )
        return "[" + between.join(rows) + "]"
    raise ValueError(f"cannot format an array with {array.ndim} dimensions")


def format_tex(value: float, sig: int = 6, decimal: str = ".") -> str:
    """A number inside LaTeX math, e.g. '0.5', or with a decimal comma '0{,}5' (TeX's way of
    keeping the comma from spacing as punctuation)."""
    text = format_number(value, sig, decimal)
    return text if decimal == "." else text.replace(decimal, "{" + decimal + "}")
