"""A histogram of scores drawn on the server: the bins, and where each bar, tick and label goes
in an SVG whose template is templates/teaching/_histogram.html.

Pure Python, no Django import. Scores come as fractions of the maximum (0 to 1); bin i of n
holds the scores from i/n up to (i + 1)/n, the last one 1 too. The drawing is sized in the
SVG's own units (WIDTH × HEIGHT) and scaled by the page, with text large enough to read at a
phone's width (FONT_SIZE units at about 330 px across is 11 px).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

BINS = 10
WIDTH, HEIGHT = 360, 220
LEFT, RIGHT, TOP, BOTTOM = 40, 14, 14, 46  # margins around the plot, for the axes' labels
FONT_SIZE = 12
GAP = 2  # between bars
# A score a hair below a bin's edge (0.7 computed as 0.69999…) belongs to the bin above it.
EDGE = 1e-9


@dataclass(frozen=True, slots=True)
class Bar:
    """One bin: its range of scores, how many fall in it, and its rectangle."""

    low: float
    high: float
    count: int
    x: float
    y: float
    width: float
    height: float

    @property
    def label(self) -> str:
        return f"{self.low:g}–{self.high:g}"


@dataclass(frozen=True, slots=True)
class Tick:
    """A labelled position on an axis (x for the scores, y for the counts)."""

    position: float
    label: str


@dataclass(frozen=True, slots=True)
class Histogram:
    bars: tuple[Bar, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    total: int  # scores drawn
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = WIDTH - RIGHT
    top: int = TOP
    bottom: int = HEIGHT - BOTTOM
    font_size: int = FONT_SIZE


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


def count_step(largest: int) -> int:
    """A round step (1, 2 or 5 times a power of ten) for about four ticks up to `largest`."""
    rough = max(1.0, largest / 4)
    power = 10 ** math.floor(math.log10(rough))
    return next(step * power for step in (1, 2, 5, 10) if step * power >= rough)


def histogram(fractions: Sequence[float], bins: int = BINS) -> Histogram:
    """The histogram of these scores (fractions of the maximum), laid out for drawing."""
    counts = bin_counts(fractions, bins)
    step = count_step(max(counts))
    scale_top = max(step, math.ceil(max(counts) / step) * step)
    plot_width = WIDTH - RIGHT - LEFT
    plot_height = HEIGHT - BOTTOM - TOP
    slot = plot_width / bins
    bars = []
    for index, count in enumerate(counts):
        height = plot_height * count / scale_top
        bars.append(
            Bar(
                low=index / bins,
                high=(index + 1) / bins,
                count=count,
                x=round(LEFT + index * slot + GAP / 2, 2),
                y=round(HEIGHT - BOTTOM - height, 2),
                width=round(slot - GAP, 2),
                height=round(height, 2),
            )
        )
    x_ticks = tuple(
        Tick(round(LEFT + plot_width * tenths / 10, 2), f"{tenths / 10:g}")
        for tenths in range(0, 11, 2)
    )
    y_ticks = tuple(
        Tick(round(HEIGHT - BOTTOM - plot_height * value / scale_top, 2), str(value))
        for value in range(0, scale_top + 1, step)
    )
    return Histogram(bars=tuple(bars), x_ticks=x_ticks, y_ticks=y_ticks, total=len(fractions))
