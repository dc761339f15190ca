"""Generic diagnosis of a wrong value when it matches no named mistake of its family.

Each slip (sign, power of ten, a stray factor of √d_k or d_k, squaring, rooting) turns the
correct answer into a candidate value; a learner's value that lands on one is diagnosed with
it. The candidates are stacked into one array per variant, so checking one response or many
stored ones costs a single broadcast comparison.

The coincidence rule (decided in `drop_coincidences`, and nowhere else): a slip that relates the
learner's value to the answer by a factor (a power of ten, √d_k or d_k, squaring, rooting) is not
named when every entry of the learner's value is a whole number between −10 and 10. Such a value
is one a learner may type for a reason of their own (a guess, a count, d_k or a σ read off the
prompt), so a factor that happens to link it to the answer is no evidence of the slip. A flipped
sign and coarse rounding are still named: they need the learner's digits to agree with the
answer's, which a guess does not do by chance. Named mistakes of the family are checked before
any slip, so a small whole number that is a listed mistake of the variant keeps its diagnosis.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from grading.engine.answers import format_number
from grading.engine.checks import Tolerance, within_tolerance

FloatArray = npt.NDArray[np.float64]
ROUNDED = "rounded-too-coarsely"
_POWERS_OF_TEN = (1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6)
# The coincidence rule: whole numbers up to this size are what a learner may type by chance.
SMALL_WHOLE = 10
# Slips that relate a value to the answer only through a factor, so a chance value can fit them.
FACTOR_SLIPS = frozenset(
    {"power-of-ten", "factor-sqrt-dk", "factor-dk", "squared", "square-rooted"}
)

SENTENCES = {
    "sign-flipped": "Your value has the wrong sign.",
    "squared": (
        "Your value is the square of the correct one: check whether something was squared "
        "that should not be."
    ),
    "square-rooted": (
        "Your value is the square root of the correct one: check whether a square root "
        "was taken too early, or a square left out."
    ),
    ROUNDED: (
        "Your value is close but rounded too coarsely: keep at least 4 significant figures "
        "in intermediate steps and in the answer."
    ),
}


@dataclass(frozen=True, slots=True)
class Slips:
    """The slips worth naming for one answer: codes, sentences and stacked values (K, *shape)."""

    codes: tuple[str, ...]
    sentences: tuple[str, ...]
    values: FloatArray

    @property
    def by_factor(self) -> npt.NDArray[np.bool_]:
        """Per slip, whether it is a factor slip; one extra False at the end stands for -1."""
        return np.array([code in FACTOR_SLIPS for code in self.codes] + [False])


def drop_coincidences(
    slips: Slips, index: npt.NDArray[np.intp], values: FloatArray
) -> npt.NDArray[np.intp]:
    """The coincidence rule: the slip index of each response (first axis of values), with -1
    where the slip is a factor slip and every entry of the response is a whole number with
    |v| ≤ SMALL_WHOLE, e.g. a typed 4 is not named "d_k = 16 times too large" for 0.25."""
    count = values.shape[0]
    flat = values.reshape(count, -1)
    small_whole = ((flat == np.round(flat)) & (np.abs(flat) <= SMALL_WHOLE)).all(axis=1)
    return np.where(small_whole & slips.by_factor[index], -1, index)


def width_of(givens: Mapping[str, Any]) -> int | None:
    """The head width d_k a variant's givens state or imply (length of q), else None."""
    if "d_k" in givens:
        return int(givens["d_k"])
    if "q" in givens:
        return len(givens["q"])
    return None


def _power_sentence(exponent: int) -> str:
    factor = f"{10 ** abs(exponent):,}"
    direction = "too large" if exponent > 0 else "too small"
    return (
        f"Your value is {direction} by a factor of {factor}: check the decimal point, "
        "percentages and powers of ten."
    )


_POWER_SLIPS = tuple(("power-of-ten", _power_sentence(k), 10.0**k) for k in _POWERS_OF_TEN)


@lru_cache(maxsize=256)
def _width_slips(width: int) -> tuple[tuple[str, str, float], ...]:
    advice = ": check where dₖ enters the formula and whether it is under a root."
    slips = []
    root = math.sqrt(width)
    for code, factor, label in (
        ("factor-sqrt-dk", root, f"√dₖ = {format_number(root, 4)}"),
        ("factor-dk", float(width), f"dₖ = {width}"),
    ):
        slips.append((code, f"Your value is too large by a factor of {label}{advice}", factor))
        slips.append((code, f"Your value is too small by a factor of {label}{advice}", 1 / factor))
    return tuple(slips)


def slips_for(answer: FloatArray, tol: Tolerance, width: int | None) -> Slips:
    """Every slip whose value can be told apart from both the answer and from 0."""
    answer = np.asarray(answer, dtype=np.float64)
    return _slips_cached(answer.tobytes(), answer.shape, tol, width)


@lru_cache(maxsize=1024)
def _slips_cached(
    answer_bytes: bytes, shape: tuple[int, ...], tol: Tolerance, width: int | None
) -> Slips:
    # Keyed by the answer's bytes: learners retry the same variant, and a regrade asks once.
    answer = np.frombuffer(answer_bytes, dtype=np.float64).reshape(shape)
    scaled: list[tuple[str, str, float]] = [("sign-flipped", SENTENCES["sign-flipped"], -1.0)]
    if width is not None and width > 1:
        scaled += _width_slips(width)
    factors = np.array([factor for *_, factor in scaled + list(_POWER_SLIPS)])
    with np.errstate(all="ignore"):
        by_factor = factors.reshape(-1, *([1] * answer.ndim)) * answer
        others = [answer**2]
        labels = [*scaled, ("squared", SENTENCES["squared"], 0.0)]
        if (answer >= 0).all():
            others.append(np.sqrt(answer))
            labels.append(("square-rooted", SENTENCES["square-rooted"], 0.0))
        labels += _POWER_SLIPS
        values = np.concatenate(
            [by_factor[: len(scaled)], np.stack(others), by_factor[len(scaled) :]]
        )
    count = len(labels)
    finite = np.isfinite(values).reshape(count, -1).all(axis=1)
    # A slip that leaves the answer unchanged (squaring 1), or that shrinks it to about 0,
    # would misname a correct value or a plain 0.
    same = within_tolerance(values, answer, tol).reshape(count, -1).all(axis=1)
    zero = within_tolerance(0.0, values, tol).reshape(count, -1).all(axis=1)
    keep = np.flatnonzero(finite & ~same & ~zero).tolist()
    kept = values[keep]
    kept.flags.writeable = False  # shared through the cache
    return Slips(
        codes=tuple(labels[i][0] for i in keep),
        sentences=tuple(labels[i][1] for i in keep),
        values=kept,
    )


def coarse_half_unit(answer: FloatArray) -> FloatArray:
    """Half a unit in the 2nd significant figure of each answer entry (NaN where it is 0)."""
    magnitude = np.abs(answer)
    with np.errstate(divide="ignore", invalid="ignore"):
        half = 0.5 * 10.0 ** (np.floor(np.log10(magnitude)) - 1)
    # The tiny slack lets a value typed as the exact 2-figure rounding count as agreeing.
    return np.where(magnitude > 0, half * (1 + 1e-9), np.nan)


def rounded_too_coarsely(
    values: FloatArray, answer: FloatArray, tol: Tolerance
) -> npt.NDArray[np.bool_]:
    """Per response (first axis): every entry is within tolerance or agrees to 2 sig figs."""
    count = values.shape[0]
    fine = within_tolerance(values, answer, tol) | (
        np.abs(values - answer) <= coarse_half_unit(answer)
    )
    return fine.reshape(count, -1).all(axis=1)


def _join(items: Sequence[str]) -> str:
    if len(items) == 1:
        return items[0]
    return f"{', '.join(items[:-1])} and {items[-1]}"


def describe_entries(wrong: Sequence[int | Sequence[int]], limit: int = 8) -> str:
    """Which 1-based entries are off, e.g. 'entries 2 and 3 are off' or 'entry (1, 2) is off'."""
    labels = [
        str(entry) if isinstance(entry, int) else f"({entry[0]}, {entry[1]})" for entry in wrong
    ]
    if len(labels) == 1:
        return f"entry {labels[0]} is off"
    if len(labels) > limit:
        shown = labels[: limit - 1]
        return f"entries {', '.join(shown)} and {len(labels) - len(shown)} more are off"
    return f"entries {_join(labels)} are off"
