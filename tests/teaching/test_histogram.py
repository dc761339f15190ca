"""The histogram of scores: which bin a score falls in (edges included), round steps for the
count axis, and where the bars go; no database."""

from __future__ import annotations

import math
from itertools import pairwise

import pytest

from teaching import histogram as h


def test_each_bin_holds_its_lower_edge_and_the_last_holds_1():
    assert h.bin_counts([0, 0.1, 0.55, 0.9, 1.0], bins=10) == [1, 1, 0, 0, 0, 1, 0, 0, 0, 2]


def test_a_score_computed_a_hair_below_an_edge_lands_on_its_bin():
    # 0.7 as 3.5 / 5 and 0.3 as 1.5 / 5 come out a hair off in binary.
    assert h.bin_counts([3.5 / 5, 1.5 / 5, 0.1 * 3], bins=10) == [0, 0, 0, 2, 0, 0, 0, 1, 0, 0]


def test_scores_outside_0_to_1_go_to_the_end_bins():
    assert h.bin_counts([-0.2, 1.3], bins=4) == [1, 0, 0, 1]


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_a_score_that_is_no_number_is_refused(bad):
    with pytest.raises(ValueError, match="finite"):
        h.bin_counts([0.5, bad])


def test_a_histogram_has_a_bin():
    with pytest.raises(ValueError, match="one bin"):
        h.bin_counts([0.5], bins=0)


@pytest.mark.parametrize(
    ("largest", "step"),
    [(0, 1), (3, 1), (4, 1), (5, 2), (8, 2), (9, 5), (20, 5), (21, 10), (2900, 1000)],
)
def test_the_count_axis_steps_by_1_2_or_5_times_a_power_of_ten(largest, step):
    assert h.count_step(largest) == step


def test_the_bars_rise_from_the_axis_in_proportion_to_their_counts():
    chart = h.histogram([0.4, 0.4, 0.4, 0.8, 1.0])
    assert [bar.count for bar in chart.bars] == [0, 0, 0, 0, 3, 0, 0, 0, 1, 1]
    assert chart.total == 5
    plot_height = chart.bottom - chart.top
    # Three is the top of the count axis (ticks 0, 1, 2, 3): the tallest bar reaches it.
    assert [tick.label for tick in chart.y_ticks] == ["0", "1", "2", "3"]
    tallest = chart.bars[4]
    assert (tallest.y, tallest.height) == (chart.top, plot_height)
    assert chart.bars[8].height == pytest.approx(plot_height / 3, abs=0.01)
    for bar in chart.bars:
        assert bar.y + bar.height == pytest.approx(chart.bottom)
    # Side by side, left to right, inside the plot, with a gap between neighbours.
    lefts = [bar.x for bar in chart.bars]
    assert lefts == sorted(lefts)
    assert chart.left < lefts[0]
    assert chart.bars[-1].x + chart.bars[-1].width < chart.right
    assert all(a.x + a.width < b.x for a, b in pairwise(chart.bars))


def test_the_score_axis_is_labelled_every_0_2_and_each_bar_by_its_range():
    chart = h.histogram([])
    assert [tick.label for tick in chart.x_ticks] == ["0", "0.2", "0.4", "0.6", "0.8", "1"]
    assert (chart.x_ticks[0].position, chart.x_ticks[-1].position) == (chart.left, chart.right)
    assert [bar.label for bar in chart.bars][:2] == ["0–0.1", "0.1–0.2"]
    assert chart.bars[-1].label == "0.9–1"
    assert all(bar.height == 0 for bar in chart.bars)
    assert [tick.label for tick in chart.y_ticks] == ["0", "1"]
