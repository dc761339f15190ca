"""The histogram of scores: which bin a score falls in (edges included) and round steps for the
count axis; no database."""

from __future__ import annotations

import math

import pytest

from teaching.charts import histogram as h


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


@pytest.mark.parametrize(
    ("largest", "ticks"),
    [(0, [0, 1]), (3, [0, 1, 2, 3]), (9, [0, 5, 10]), (20, [0, 5, 10, 15, 20])],
)
def test_the_count_axis_reaches_the_largest_count(largest, ticks):
    assert h.count_ticks(largest) == ticks


def test_the_bins_cover_0_to_1_in_tenths_labelled_by_their_range():
    bins = h.histogram([0.4, 0.4, 0.4, 0.8, 1.0])
    assert [b.count for b in bins] == [0, 0, 0, 0, 3, 0, 0, 0, 1, 1]
    assert [b.label for b in bins][:2] == ["0–0.1", "0.1–0.2"]
    assert bins[-1].label == "0.9–1"
    assert (bins[0].low, bins[-1].high) == (0, 1)
