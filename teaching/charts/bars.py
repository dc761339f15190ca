"""The geometry of a horizontal bar chart, drawn as SVG on the server (templates/teaching/
bar_chart.html) with the same numbers in a table beside it.

Pure Python, no Django import. Each bar gets a line of its own for its label (left) and value
(right), the bar below: long labels and a phone's width never crowd the bars. The drawing is
WIDTH units wide and scales to its box, so text stays at least FONT units high on a 375 px screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

WIDTH = 320
FONT = 14
ROW = 42  # a label line and a bar
BAR = 14
AXIS = 22  # below the last bar: the tick labels
MAX_LABEL = 28  # characters; longer labels end in "…" (the table beside has them whole)


@dataclass(frozen=True, slots=True)
class Bar:
    """One bar: its label, its value (0 to the chart's maximum) and the value as words."""

    label: str
    value: float
    text: str


@dataclass(frozen=True, slots=True)
class DrawnBar:
    label: str
    text: str
    text_y: float  # baseline of the label and value line
    bar_y: float
    bar_bottom: float
    width: float  # of the bar; the track behind it spans the whole plot


@dataclass(frozen=True, slots=True)
class Tick:
    x: float
    text: str
    anchor: str  # SVG text-anchor: start, middle or end


@dataclass(frozen=True, slots=True)
class BarChart:
    width: int
    height: int
    font: int
    bar_height: int
    bars: tuple[DrawnBar, ...]
    ticks: tuple[Tick, ...]
    grid_bottom: float  # below the last bar
    tick_y: float


def short(label: str) -> str:
    """A label cut to MAX_LABEL characters."""
    return label if len(label) <= MAX_LABEL else label[: MAX_LABEL - 1] + "…"


def bar_chart(
    bars: Sequence[Bar], *, maximum: float, ticks: Sequence[tuple[float, str]]
) -> BarChart:
    """The chart of these bars, each as long as value / maximum of the plot's width, with a
    grid mark across each bar and a label below the chart at each tick given as (value, words)."""
    if maximum <= 0:
        raise ValueError("the maximum must be positive")
    drawn = []
    for index, bar in enumerate(bars):
        top = index * ROW
        share = min(max(bar.value / maximum, 0.0), 1.0)
        drawn.append(
            DrawnBar(
                label=short(bar.label),
                text=bar.text,
                text_y=top + FONT + 2,
                bar_y=top + FONT + 8,
                bar_bottom=top + FONT + 8 + BAR,
                width=round(WIDTH * share, 2),
            )
        )
    grid_bottom = len(bars) * ROW
    placed = []
    for value, text in ticks:
        x = round(WIDTH * min(max(value / maximum, 0.0), 1.0), 2)
        anchor = "start" if x <= 0 else "end" if x >= WIDTH else "middle"
        placed.append(Tick(x=x, text=text, anchor=anchor))
    return BarChart(
        width=WIDTH,
        height=grid_bottom + AXIS,
        font=FONT,
        bar_height=BAR,
        bars=tuple(drawn),
        ticks=tuple(placed),
        grid_bottom=grid_bottom,
        tick_y=grid_bottom + FONT + 4,
    )
