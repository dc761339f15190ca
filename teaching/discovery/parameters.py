"""Facility by generated parameter: how well learners did on a problem as a function of each number
its variants were generated with (d_k, σ, the logits' spread…), binned, with counts, so an
instructor sees "learners fail when d_k ≥ 256".

Pure Python + NumPy, no Django import. The data layer hands over one `VariantScore` per answered
variant (its numbers and its score, 0 to 1) and gets back, per parameter, the bins.

**Binning.** A parameter with at most MAX_DISTINCT (8) distinct values gets one bin per value
("d_k = 64"). With more, the values are cut into at most QUANTILE_BINS (5) bins of about a fifth
of the variants each: the cuts are the values at the sorted positions ⌊k·n/5⌋ (k = 1…4), so each
cut is a value some variant has, a value never straddles two bins, and cuts that coincide (many
variants sharing a value) merge their bins. Bins are [low, high) except the last, [low, max].

**Facility** of a bin is the mean score of its variants (Moodle's facility index, restricted to
the variants whose parameter falls in the bin); with it come the number of variants, of distinct
learners and of variants with full marks.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

MAX_DISTINCT = 8
QUANTILE_BINS = 5


@dataclass(frozen=True, slots=True)
class VariantScore:
    """One answered variant: Variant.id, its learner, its numbers (name → value) and its score
    from 0 to 1."""

    variant: int
    learner: int
    numbers: Mapping[str, float]
    score: float


@dataclass(frozen=True, slots=True)
class Bin:
    """The variants whose parameter lies in [low, high) (or [low, high] for the last bin)."""

    low: float
    high: float
    label: str  # "d_k = 64", "64 ≤ d_k < 256" or "256 ≤ d_k ≤ 512"
    variants: int
    learners: int
    full_marks: int  # variants scored 1
    facility: float  # mean score, 0 to 1


@dataclass(frozen=True, slots=True)
class ParameterFacility:
    """One parameter's bins, lowest values first; `distinct` tells which binning rule applied."""

    name: str
    distinct: bool  # one bin per value (else quantile bins)
    bins: tuple[Bin, ...]

    @property
    def constant(self) -> bool:
        """The same value on every variant: nothing to compare."""
        return len(self.bins) == 1 and self.bins[0].low == self.bins[0].high

    @property
    def hardest(self) -> Bin | None:
        """The bin with the lowest facility (the first of equals), when there are two or more."""
        if len(self.bins) < 2:
            return None
        return min(self.bins, key=lambda found: found.facility)


@dataclass(frozen=True, slots=True)
class Overall:
    variants: int
    learners: int
    full_marks: int
    facility: float | None  # None without variants


def list_measures(givens: Mapping[str, Any]) -> dict[str, float]:
    """For each given that is a list of numbers (logits z…): n(z), its number of entries, and
    spread(z) = max(z) − min(z), the width of the logits."""
    found: dict[str, float] = {}
    for name, value in givens.items():
        if not isinstance(value, list | tuple) or not value:
            continue
        numbers = [v for v in value if isinstance(v, int | float) and not isinstance(v, bool)]
        if len(numbers) != len(value) or not all(math.isfinite(v) for v in numbers):
            continue
        found[f"n({name})"] = float(len(numbers))
        found[f"spread({name})"] = float(max(numbers) - min(numbers))
    return found


def number_text(value: float) -> str:
    """A parameter value as the bins show it: 64, 0.5, 1.25e+06."""
    return f"{value:.4g}"


def _cuts(values: np.ndarray) -> list[float]:
    """The lower edges of the bins: one per distinct value when few, else quantile cuts."""
    distinct = np.unique(values)
    if len(distinct) <= MAX_DISTINCT:
        return [float(v) for v in distinct]
    ordered = np.sort(values)
    n = len(ordered)
    cuts = {float(ordered[0])}
    for k in range(1, QUANTILE_BINS):
        cuts.add(float(ordered[(k * n) // QUANTILE_BINS]))
    return sorted(cuts)


def _bin(low: float, high: float, label: str, rows: Sequence[VariantScore]) -> Bin:
    scores = [row.score for row in rows]
    return Bin(
        low=low,
        high=high,
        label=label,
        variants=len(rows),
        learners=len({row.learner for row in rows}),
        full_marks=sum(1 for score in scores if score >= 1.0),
        facility=float(np.mean(scores)),
    )


def facility_of(name: str, rows: Sequence[VariantScore]) -> ParameterFacility:
    """The bins of one parameter over the variants that have it."""
    rows = [row for row in rows if name in row.numbers]
    values = np.array([row.numbers[name] for row in rows], dtype=np.float64)
    cuts = _cuts(values)
    distinct = len(np.unique(values)) <= MAX_DISTINCT
    bins = []
    for index, low in enumerate(cuts):
        if distinct:
            members = [row for row, value in zip(rows, values, strict=True) if value == low]
            bins.append(_bin(low, low, f"{name} = {number_text(low)}", members))
            continue
        last = index == len(cuts) - 1
        high = float(values.max()) if last else cuts[index + 1]
        inside = (values >= low) & ((values <= high) if last else (values < high))
        members = [row for row, keep in zip(rows, inside.tolist(), strict=True) if keep]
        sign = "≤" if last else "<"
        label = f"{number_text(low)} ≤ {name} {sign} {number_text(high)}"
        bins.append(_bin(low, high, label, members))
    return ParameterFacility(name=name, distinct=distinct, bins=tuple(bins))


def parameter_facilities(rows: Sequence[VariantScore]) -> tuple[ParameterFacility, ...]:
    """Every parameter any variant has, by name, each with its bins."""
    names = sorted({name for row in rows for name in row.numbers})
    return tuple(facility_of(name, rows) for name in names)


def overall(rows: Sequence[VariantScore]) -> Overall:
    """The problem's facility over every variant given."""
    if not rows:
        return Overall(0, 0, 0, None)
    scores = [row.score for row in rows]
    return Overall(
        variants=len(rows),
        learners=len({row.learner for row in rows}),
        full_marks=sum(1 for score in scores if score >= 1.0),
        facility=float(np.mean(scores)),
    )
