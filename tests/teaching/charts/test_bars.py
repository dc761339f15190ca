"""The bar chart's geometry: bars as long as their share of the maximum, one line of label and
value above each, ticks where their values fall."""

from __future__ import annotations

import pytest

from teaching.charts.bars import FONT, MAX_LABEL, ROW, WIDTH, Bar, bar_chart


def test_bars_are_as_long_as_their_share_of_the_maximum():
    chart = bar_chart(
        [Bar("a", 0.25, "0.25"), Bar("b", 1.0, "1.00"), Bar("c", 0.0, "0.00")],
        maximum=1.0,
        ticks=((0.0, "0"), (0.5, "0.5"), (1.0, "1")),
    )
    assert [bar.width for bar in chart.bars] == [WIDTH / 4, WIDTH, 0.0]
    assert [bar.text_y for bar in chart.bars] == [FONT + 2, ROW + FONT + 2, 2 * ROW + FONT + 2]
    assert all(bar.bar_y > bar.text_y for bar in chart.bars)
    assert chart.grid_bottom == 3 * ROW
    assert chart.height > chart.tick_y > chart.grid_bottom
    assert [(t.x, t.anchor) for t in chart.ticks] == [
        (0.0, "start"),
        (WIDTH / 2, "middle"),
        (WIDTH, "end"),
    ]


def test_values_beyond_the_axis_are_clipped_and_long_labels_cut():
    label = "x" * (MAX_LABEL + 5)
    chart = bar_chart([Bar(label, 7, "7"), Bar("y", -1, "-1")], maximum=5, ticks=())
    assert [bar.width for bar in chart.bars] == [WIDTH, 0.0]
    assert chart.bars[0].label == "x" * (MAX_LABEL - 1) + "…"


def test_a_chart_needs_a_positive_maximum():
    with pytest.raises(ValueError, match="positive"):
        bar_chart([Bar("a", 0, "0")], maximum=0, ticks=())
