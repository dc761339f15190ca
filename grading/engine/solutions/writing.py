"""How worked solutions write numbers, vectors and matrices in LaTeX."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from grading.engine.answers import format_number
from grading.engine.answers.formatting import entry_separator

# Intermediate values keep four significant digits, enough to follow each step by hand; the
# final value keeps six, like the answers the site shows once they are released.
STEP_DIGITS = 4
ANSWER_DIGITS = 6


def tex(value: float, sig: int = STEP_DIGITS, decimal: str = ".") -> str:
    """A number in LaTeX: 0.25, or 1.2 \\times 10^{-5} where Python would write 1.2e-05; with a
    decimal comma 0{,}25."""
    text = format_number(value, sig)
    if "e" in text:
        mantissa, exponent = text.split("e")
        power = f"10^{{{int(exponent)}}}"
        text = power if mantissa == "1" else f"{mantissa} \\times {power}"
    return text if decimal == "." else text.replace(".", "{" + decimal + "}")


def factor(value: float, sig: int = STEP_DIGITS, decimal: str = ".") -> str:
    """A number as a factor of a product: negative ones in parentheses, e.g. (-1.2)."""
    text = tex(value, sig, decimal)
    return f"({text})" if float(value) < 0 else text


def vector(values: Iterable[float], sig: int = STEP_DIGITS, decimal: str = ".") -> str:
    """A row vector in LaTeX, e.g. (0.3, -1.2, 0.8), or (0{,}3; -1{,}2; 0{,}8)."""
    between = entry_separator(decimal) + "\\ "
    return "(" + between.join(tex(x, sig, decimal) for x in values) + ")"


def matrix(values: npt.ArrayLike, sig: int = STEP_DIGITS, decimal: str = ".") -> str:
    """A matrix in LaTeX, as a pmatrix."""
    rows = np.asarray(values, dtype=np.float64).tolist()
    body = " \\\\ ".join(" & ".join(tex(x, sig, decimal) for x in row) for row in rows)
    return f"\\begin{{pmatrix}} {body} \\end{{pmatrix}}"
