"""Tolerance comparison and its wording."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from grading.engine import Tolerance, describe_tolerance, within_tolerance


def test_absolute_floor_applies_near_zero():
    tol = Tolerance(atol=0.01, rtol=0.01)
    assert within_tolerance(0.009, 0.0, tol)
    assert not within_tolerance(0.011, 0.0, tol)


def test_relative_part_applies_to_large_targets():
    tol = Tolerance(atol=0.01, rtol=0.01)
    assert within_tolerance(1009.0, 1000.0, tol)
    assert not within_tolerance(1011.0, 1000.0, tol)


def test_boundary_is_inclusive():
    tol = Tolerance(atol=0.5, rtol=0.0)
    assert within_tolerance(2.5, 2.0, tol)


def test_element_wise_on_arrays():
    tol = Tolerance(atol=0.001, rtol=0.0)
    result = within_tolerance([0.1, 0.2, 0.7], [0.1, 0.25, 0.7], tol)
    assert result.dtype == np.bool_
    assert result.tolist() == [True, False, True]


def test_nan_and_inf_never_pass_and_do_not_warn():
    tol = Tolerance(atol=1.0, rtol=1.0)
    with np.errstate(all="raise"):
        result = within_tolerance([np.nan, np.inf, 1.0], [1.0, np.inf, np.nan], tol)
    assert result.tolist() == [False, False, False]


@given(
    st.floats(-1e6, 1e6),
    st.floats(-1e6, 1e6),
    st.floats(0, 10),
    st.floats(0, 1),
)
def test_matches_definition(value, target, atol, rtol):
    tol = Tolerance(atol=atol, rtol=rtol)
    expected = abs(value - target) <= max(atol, rtol * abs(target))
    assert bool(within_tolerance(value, target, tol)) == expected


def test_tolerance_rejects_negative_and_non_numbers():
    with pytest.raises(ValueError, match="atol"):
        Tolerance(atol=-1, rtol=0.1)
    with pytest.raises(ValueError, match="rtol"):
        Tolerance(atol=0, rtol=float("nan"))
    with pytest.raises(TypeError):
        Tolerance(atol="0.1", rtol=0.1)


def test_tolerance_is_frozen_and_normalises_ints():
    tol = Tolerance(atol=1, rtol=0)
    assert tol == Tolerance(atol=1.0, rtol=0.0)
    assert isinstance(tol.atol, float)
    with pytest.raises(AttributeError):
        tol.atol = 2.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("tol", "text"),
    [
        (
            Tolerance(0.01, 0.01),
            "within 0.01 or 1% of the correct value, whichever is larger",
        ),
        (Tolerance(0.0, 0.01), "within 1% of the correct value"),
        (Tolerance(0.5, 0.0), "within 0.5 of the correct value"),
        (Tolerance(0.0, 0.0), "exactly equal to the correct value"),
        (
            Tolerance(1e-6, 0.002),
            "within 0.000001 or 0.2% of the correct value, whichever is larger",
        ),
    ],
)
def test_describe_tolerance(tol, text):
    assert describe_tolerance(tol) == text
