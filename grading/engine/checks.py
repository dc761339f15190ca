"""Tolerance checks shared by grading, variant generation and formula validation."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from grading.engine.i18n import gettext as _


@dataclass(frozen=True, slots=True)
class Tolerance:
    """How far a learner's value may be from the correct one: max(atol, rtol·|target|)."""

    atol: float
    rtol: float

    def __post_init__(self) -> None:
        for name in ("atol", "rtol"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(f"{name} must be a number, got {type(value).__name__}")
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
            # Normalise ints so equal tolerances compare and hash the same.
            object.__setattr__(self, name, float(value))

    def widened(self, factor: float) -> Tolerance:
        """Return this tolerance scaled by factor, e.g. Tolerance(0.01, 0.01).widened(2)."""
        return Tolerance(self.atol * factor, self.rtol * factor)


def within_tolerance(
    value: npt.ArrayLike, target: npt.ArrayLike, tol: Tolerance
) -> npt.NDArray[np.bool_]:
    """Element-wise |value − target| ≤ max(atol, rtol·|target|); NaN and inf never pass."""
    value_arr = np.asarray(value, dtype=np.float64)
    target_arr = np.asarray(target, dtype=np.float64)
    # inf − inf is NaN, and NaN compares False: exactly the verdict we want, minus the warning.
    with np.errstate(invalid="ignore", over="ignore"):
        allowed = np.maximum(tol.atol, tol.rtol * np.abs(target_arr))
        return np.abs(value_arr - target_arr) <= allowed


def _plain_number(x: float) -> str:
    text = f"{x:.6g}"
    if "e" in text:
        # Learners read 0.0001 more easily than 1e-04; expand while it stays short.
        expanded = np.format_float_positional(x, trim="-")
        if len(expanded) <= 12:
            return expanded
    return text


@lru_cache(maxsize=256)
def _tolerance_numbers(tol: Tolerance) -> tuple[str, str]:
    # Only the numbers are cached: the sentence is translated for each reader.
    return _plain_number(tol.atol), _plain_number(tol.rtol * 100)


def describe_tolerance(tol: Tolerance, decimal: str = ".") -> str:
    """Human sentence, e.g. 'within 0.01 or 1% of the correct value, whichever is larger';
    decimal: the page's decimal separator (0,01 with a decimal comma)."""
    absolute, percent = _tolerance_numbers(tol)
    if decimal != ".":
        absolute, percent = absolute.replace(".", decimal), percent.replace(".", decimal)
    fields = {"absolute": absolute, "relative": _("%(percent)s%%") % {"percent": percent}}
    if tol.atol == 0 and tol.rtol == 0:
        return _("exactly equal to the correct value")
    if tol.rtol == 0:
        return _("within %(absolute)s of the correct value") % fields
    if tol.atol == 0:
        return _("within %(relative)s of the correct value") % fields
    return (
        _("within %(absolute)s or %(relative)s of the correct value, whichever is larger") % fields
    )
