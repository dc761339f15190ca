"""A histogram of scores: how many fall in each tenth (or other equal share) of the maximum, and
round steps for the count axis. Drawn by teaching.charts.bars, one bar per bin, with the counts in
a table beside it.

Pure Python, no Django import. Scores come as fractions of the maximum (0 to 1); bin i of n
holds the scores from i/n up to (i + 1)/n, the last one 1 too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

BINS = 10
# A score a hair below a bin's edge (0.7 computed as 0.69999…) belongs to the bin above it.
EDGE = 1e-9


@dataclass(frozen=True, slots=True)
class Bin:
    """A range of scores and how many fall in it."""

    low: float
    high: float
    count: int

    @property
    def label(self) -> str:
        return f"{self.low:g}–{self.high:g}"


def bin_counts(fractions: Sequence[float], bins: int = BINS) -> list[int]:
    """How many scores fall in each of `bins` equal bins of 0 to 1, e.g. ([0, 0.55, 1], 2) →
    [1, 2]; scores outside 0–1 count in the first or last bin."""
    if bins < 1:
        raise ValueError("a histogram has at least one bin")
    counts = [0] * bins
    for fraction in fractions:
        if not math.isfinite(fraction):
            raise ValueError(f"a score must be a finite number, not {fraction!r}")
        counts[min(bins - 1, max(0, math.floor(fraction * bins + EDGE)))] += 1
    return counts


def histogram(fractions: Sequence[float], bins: int = BINS) -> list[Bin]:
    """The bins of these scores (fractions of the maximum), lowest first."""
    return [
        Bin(low=index / bins, high=(index + 1) / bins, count=count)
        for index, count in enumerate(bin_counts(fractions, bins))
    ]


def count_step(largest: int) -> int:
    """A round step (1, 2 or 5 times a power of ten) for about four ticks up to `largest`."""
    rough = max(1.0, largest / 4)
    power = 10 ** math.floor(math.log10(rough))
    return next(step * power for step in (1, 2, 5, 10) if step * power >= rough)


def count_ticks(largest: int) -> list[int]:
    """The count axis: 0 to the first multiple of count_step at or above `largest` (at least
    one step), e.g. 3 → [0, 1, 2, 3], 9 → [0, 5, 10]."""
    step = count_step(largest)
    top = max(step, math.ceil(largest / step) * step)
    return list(range(0, top + 1, step))
