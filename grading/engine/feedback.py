"""The near misses of a wrong value that matches no named mistake of its family.

Each slip (sign, power of ten, a percentage, a stray factor of √d_k or d_k, squaring, rooting,
the reciprocal) turns the correct answer into a candidate value; a learner's value that lands
within tolerance of one is named by it. The candidates are stacked into one array per variant,
so checking one response or many stored ones costs a single broadcast comparison. Then come the
near misses that are not one candidate: the right probabilities in the wrong order
(`permuted`) and too few significant figures (`too_few_figures`). Their codes, sentences and
margins live in grading.engine.rules.

The coincidence rule (decided in `drop_coincidences`, and nowhere else): a slip that relates the
learner's value to the answer by a factor or a function (a power of ten or a percentage, √d_k or
d_k, squaring, rooting, the reciprocal) is not named when every entry of the learner's value is
a whole number between −10 and 10. Such a value is one a learner may type for a reason of their
own (a guess, a count, d_k or a σ read off the prompt), so a factor that happens to link it to
the answer is no evidence of the slip. A flipped sign and too few significant figures are still
named: they need the learner's digits to agree with the answer's, which a guess does not do by
chance. Named mistakes of the family are checked before any slip, so a small whole number that
is a listed mistake of the variant keeps its diagnosis.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from grading.engine.checks import Tolerance, within_tolerance
from grading.engine.i18n import gettext as _
from grading.engine.i18n import ngettext
from grading.engine.rules import FRACTION_KINDS, RULES, SIG_FIG_MARGIN, applies
from grading.engine.sentences import sentence
from grading.engine.structure import first_failures

FloatArray = npt.NDArray[np.float64]
ROUNDED = "rounded-too-coarsely"
_POWERS_OF_TEN = (1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6)
# The coincidence rule: whole numbers up to this size are what a learner may type by chance.
SMALL_WHOLE = 10
# Slips that relate a value to the answer only through a factor (or a function: a square, a
# root, a reciprocal), so a chance value can fit them.
FACTOR_SLIPS = frozenset(
    {
        "power-of-ten",
        "percentage-for-fraction",
        "factor-sqrt-dk",
        "factor-dk",
        "squared",
        "square-rooted",
        "standard-deviation-for-variance",
        "variance-for-standard-deviation",
        "reciprocal",
    }
)
# The most significant figures a learner's value is read to, and an answer is asked for.
MAX_FIGURES = 15
_FIGURES = np.arange(1, MAX_FIGURES + 1)


_CHUNK = 4096  # responses per broadcast comparison, so memory stays small on big regrades


class Targets:
    """Stacked values (K, *shape) to recognise, with each one's allowed distance precomputed."""

    def __init__(self, values: FloatArray, tol: Tolerance) -> None:
        self.values = values
        # Precomputing max(atol, rtol·|target|) leaves one subtract, abs and compare per check.
        self.allowed = np.maximum(tol.atol, tol.rtol * np.abs(values))

    def first_match(self, responses: FloatArray) -> npt.NDArray[np.intp]:
        """Index of the first target each response is within tolerance of, or -1."""
        count, kinds = responses.shape[0], self.values.shape[0]
        found = np.full(count, -1, dtype=np.intp)
        if kinds == 0:
            return found
        for start in range(0, count, _CHUNK):
            chunk = responses[start : start + _CHUNK, np.newaxis]
            hits = (np.abs(chunk - self.values) <= self.allowed).reshape(len(chunk), kinds, -1)
            matched = hits.all(axis=2)
            found[start : start + _CHUNK] = np.where(
                matched.any(axis=1), matched.argmax(axis=1), -1
            )
        return found


@dataclass(frozen=True, slots=True)
class Slips:
    """The slips worth naming for one answer: codes, the fields of their sentences and stacked
    values (K, *shape). The sentences are written when one is named, in the reader's language
    (slips are cached across requests, so they keep no text)."""

    codes: tuple[str, ...]
    fields: tuple[Mapping[str, object], ...]
    values: FloatArray

    def sentence(self, index: int, decimal: str = ".") -> str:
        """The learner's sentence for slip `index`, numbers with the page's separator."""
        return sentence(self.codes[index], decimal, **self.fields[index])

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


Fields = dict[str, object]
_NONE: Fields = {}


def _power_slip(exponent: int, answer_kind: str | None) -> tuple[str, Fields, float]:
    if exponent == 2 and answer_kind in FRACTION_KINDS:
        return ("percentage-for-fraction", _NONE, 100.0)
    direction = "large" if exponent > 0 else "small"
    return ("power-of-ten", {"direction": direction, "factor": 10 ** abs(exponent)}, 10.0**exponent)


@lru_cache(maxsize=256)
def _width_slips(width: int) -> tuple[tuple[str, Fields, float], ...]:
    slips = []
    root = math.sqrt(width)
    # d_k is shown as typed (1024, never grouped), √d_k to four significant figures.
    for code, factor, label in (
        ("factor-sqrt-dk", root, root),
        ("factor-dk", float(width), str(width)),
    ):
        for direction, times in (("large", factor), ("small", 1 / factor)):
            slips.append((code, {"direction": direction, "factor": label}, times))
    return tuple(slips)


def slips_for(
    answer: FloatArray, tol: Tolerance, width: int | None, answer_kind: str | None = None
) -> Slips:
    """Every slip whose value can be told apart from both the answer and from 0."""
    answer = np.asarray(answer, dtype=np.float64)
    return _slips_cached(answer.tobytes(), answer.shape, tol, width, answer_kind)


@lru_cache(maxsize=1024)
def _slips_cached(
    answer_bytes: bytes,
    shape: tuple[int, ...],
    tol: Tolerance,
    width: int | None,
    answer_kind: str | None,
) -> Slips:
    # Keyed by the answer's bytes: learners retry the same variant, and a regrade asks once.
    answer = np.frombuffer(answer_bytes, dtype=np.float64).reshape(shape)
    scaled: list[tuple[str, Fields, float]] = [("sign-flipped", _NONE, -1.0)]
    if width is not None and width > 1:
        scaled += _width_slips(width)
    powers = [_power_slip(exponent, answer_kind) for exponent in _POWERS_OF_TEN]
    factors = np.array([factor for *_, factor in scaled + powers])
    # For a standard deviation its square is a variance, for a variance its root a standard
    # deviation: the kind's own words name the same slip.
    square = "variance-for-standard-deviation" if answer_kind == "standard-deviation" else "squared"
    root = "standard-deviation-for-variance" if answer_kind == "variance" else "square-rooted"
    with np.errstate(all="ignore"):
        by_factor = factors.reshape(-1, *([1] * answer.ndim)) * answer
        others = [answer**2]
        labels = [*scaled, (square, _NONE, 0.0)]
        if (answer >= 0).all():
            others.append(np.sqrt(answer))
            labels.append((root, _NONE, 0.0))
        if applies(RULES["reciprocal"], answer_kind):
            others.append(1.0 / answer)
            labels.append(("reciprocal", _NONE, 0.0))
        labels += powers
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
        fields=tuple(labels[i][1] for i in keep),
        values=kept,
    )


def _round_to(values: FloatArray, figures: int | FloatArray) -> tuple[FloatArray, FloatArray]:
    """Each value rounded to `figures` significant figures, and one unit in that last figure."""
    with np.errstate(all="ignore"):  # 0 has no figures, and huge values overflow: NaN, inf
        unit = 10.0 ** (np.floor(np.log10(np.abs(values))) - np.asarray(figures) + 1)
        return np.round(values / unit) * unit, unit


def figures_typed(values: FloatArray) -> npt.NDArray[np.int_]:
    """Per entry, the fewest significant figures that write it (MAX_FIGURES + 1: more)."""
    column = values[..., np.newaxis]
    rounded, _unit = _round_to(column, _FIGURES)
    # A typed 0.14 is the double nearest 0.14; the slack absorbs the last bit.
    with np.errstate(invalid="ignore"):
        exact = np.abs(rounded - column) <= 1e-12 * np.abs(column)
    return np.where(exact.any(axis=-1), exact.argmax(axis=-1) + 1, MAX_FIGURES + 1)


def figures_needed(answer: FloatArray, allowed: FloatArray) -> npt.NDArray[np.int_]:
    """Per entry, the fewest significant figures whose rounding of the answer is within
    tolerance (MAX_FIGURES + 1: none up to MAX_FIGURES; 0 for an answer of 0)."""
    rounded, _unit = _round_to(answer[..., np.newaxis], _FIGURES)
    with np.errstate(invalid="ignore"):
        close = np.abs(rounded - answer[..., np.newaxis]) <= allowed[..., np.newaxis]
    needed = np.where(close.any(axis=-1), close.argmax(axis=-1) + 1, MAX_FIGURES + 1)
    return np.where(answer == 0, 0, needed)


@lru_cache(maxsize=1024)
def _needed_cached(answer_bytes: bytes, allowed_bytes: bytes) -> npt.NDArray[np.int_]:
    # Keyed by the answer's bytes, as the slips are: a learner's retries ask again.
    answer = np.frombuffer(answer_bytes, dtype=np.float64)
    needed = figures_needed(answer, np.frombuffer(allowed_bytes, dtype=np.float64))
    needed.flags.writeable = False  # shared through the cache
    return needed


def too_few_figures(
    values: FloatArray, answer: FloatArray, allowed: FloatArray
) -> npt.NDArray[np.int_]:
    """Per response (first axis): the significant figures the tolerance needs when every
    entry is within tolerance or is the answer rounded (or cut) to fewer figures than that;
    0 when the near miss does not fit.

    Margin: an entry counts only if it lies within SIG_FIG_MARGIN units in its own last
    significant figure of the answer (half a unit for a rounding, under one for a cut)."""
    count = values.shape[0]
    distance = np.abs(values - answer)
    within = distance <= allowed
    # One unit in a value's first figure is at most the value itself: a wrong entry further
    # than that from the answer is no rounding of it, which settles most responses cheaply.
    hopeless = (~within & ~(distance <= np.abs(values))).reshape(count, -1).any(axis=1)
    if hopeless.all():
        return np.zeros(count, dtype=np.int_)
    typed = figures_typed(values)
    allowed = np.broadcast_to(allowed, answer.shape)
    needed = _needed_cached(answer.tobytes(), allowed.tobytes()).reshape(answer.shape)
    needed = np.broadcast_to(needed, values.shape)
    _rounded, unit = _round_to(values, typed)
    with np.errstate(invalid="ignore"):
        rounded = distance <= 0.5 * unit * (1 + 1e-9)
        cut = (np.sign(values) == np.sign(answer)) & (np.abs(values) <= np.abs(answer))
        cut &= distance < SIG_FIG_MARGIN * unit
    near = (values != 0) & (typed < needed) & (needed <= MAX_FIGURES) & (rounded | cut)
    fits = (within | near).reshape(count, -1).all(axis=1)
    shown = np.where(within, 0, needed).reshape(count, -1).max(axis=1)
    return np.where(fits, shown, 0)


def permuted(values: FloatArray, answer: FloatArray, tol: Tolerance) -> npt.NDArray[np.bool_]:
    """Per response: its entries, sorted, are within tolerance of the answer's, sorted, and
    they are not the answer itself (in its own order)."""
    count = values.shape[0]
    flat = values.reshape(count, -1)
    ordered = np.sort(flat, axis=1)
    target = np.sort(answer.reshape(-1))
    right = within_tolerance(flat, answer.reshape(-1), tol).all(axis=1)
    return within_tolerance(ordered, target, tol).all(axis=1) & ~right


def explain_after_slips(
    values: FloatArray,
    answer: FloatArray,
    allowed: FloatArray,
    tol: Tolerance,
    answer_kind: str | None,
    givens: Mapping[str, Any],
    decimal: str = ".",
) -> list[tuple[str, str] | None]:
    """For wrong responses (first axis) no mistake or slip explained: the near misses that are
    no single value (the right probabilities reordered, too few significant figures), then the
    structural rules (grading.engine.structure); per response (code, sentence) or None."""
    count = values.shape[0]
    found: list[tuple[str, str] | None] = [None] * count
    if applies(RULES["probabilities-permuted"], answer_kind):
        for row in np.flatnonzero(permuted(values, answer, tol)).tolist():
            found[row] = ("probabilities-permuted", sentence("probabilities-permuted", decimal))
    rest = [row for row in range(count) if found[row] is None]
    if rest:
        needed = too_few_figures(values[rest], answer, allowed).tolist()
        for row, figures in zip(rest, needed, strict=True):
            if figures:
                found[row] = (ROUNDED, sentence(ROUNDED, decimal, needed=figures))
        rest = [row for row in rest if found[row] is None]
    if rest:
        failures = first_failures(answer_kind, values[rest], answer, tol, givens)
        for row, failure in zip(rest, failures, strict=True):
            if failure is not None:
                found[row] = (failure[0], sentence(failure[0], decimal, **failure[1]))
    return found


def describe_entries(wrong: Sequence[int | Sequence[int]], limit: int = 8) -> str:
    """Which 1-based entries are off, as a sentence, e.g. 'Entries 2 and 3 are off.' or
    'Entry (1, 2) is off.'"""
    labels = [
        str(entry) if isinstance(entry, int) else f"({entry[0]}, {entry[1]})" for entry in wrong
    ]
    if len(labels) == 1:
        return _("Entry %(entry)s is off.") % {"entry": labels[0]}
    if len(labels) > limit:
        shown = labels[: limit - 1]
        more = len(labels) - len(shown)
        return ngettext(
            "Entries %(entries)s and %(more)s more are off.",
            "Entries %(entries)s and %(more)s more are off.",
            more,
        ) % {"entries": ", ".join(shown), "more": more}
    return _("Entries %(entries)s and %(last)s are off.") % {
        "entries": ", ".join(labels[:-1]),
        "last": labels[-1],
    }
