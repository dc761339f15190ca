"""The one number convention of the instructor pages and exports (teaching/numbers.py)."""

from __future__ import annotations

import pytest

from teaching import numbers
from teaching.templatetags.statistics_display import figure


@pytest.mark.parametrize(
    ("value", "text"),
    [(3.5, "3.5"), (2.0, "2"), (1 / 3, "0.33"), (0.005, "0.01"), (-0.001, "0"), (None, "")],
)
def test_points_have_two_decimals_at_most_and_no_trailing_zeros(value, text):
    assert numbers.points_text(value) == text


def test_a_score_is_points_out_of_its_maximum():
    assert numbers.points_of(3.5, 5) == "3.5 / 5"
    assert numbers.points_of(2.25, 3.0) == "2.25 / 3"
    assert numbers.points_of(None, 5) == ""


@pytest.mark.parametrize(
    ("fraction", "text"),
    [(0.6, "60 %"), (1 / 3, "33.3 %"), (-0.0491, "−4.9 %"), (1.0, "100 %"), (-0.0001, "0 %")],
)
def test_a_share_is_a_percentage_to_one_decimal_at_most(fraction, text):
    assert numbers.percent(fraction) == text


def test_headers_name_their_unit():
    assert numbers.points_header("Total", 10) == "Total (points of 10)"
    assert numbers.points_header("Score") == "Score (points)"
    assert numbers.csv_header("score", numbers.POINTS_UNIT) == "score_points"
    assert numbers.csv_header("facility", numbers.FRACTION_UNIT) == "facility_fraction"


def test_a_statistic_that_is_a_share_shows_as_a_percentage_and_a_coefficient_does_not():
    assert figure(0.6, share=True) == "60 %"
    assert figure(0.6) == "0.600"
    assert "undefined: no attempts" in figure(None, "no attempts", share=True)
