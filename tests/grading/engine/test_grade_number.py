"""One answer to a number is judged in plain floats (grade's fast path); it must give exactly
the verdict of the array judge that regrades use, on any variant and any value."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from grading.engine import FAMILIES, Tolerance, get_family, grade, grade_many, make_variant
from grading.engine.grade import _Marker
from grading.engine.problems.base import Solution, offered_mistakes, offered_scalar_mistakes

NUMBER_FAMILIES = sorted(
    key
    for key in FAMILIES
    if key != "formula"
    and not get_family(key).answer_shape(make_variant(get_family(key), {}, 1).givens)
)
tolerances = st.builds(
    Tolerance,
    atol=st.sampled_from([0.0, 1e-9, 1e-3, 0.01, 0.5]),
    rtol=st.sampled_from([0.0, 1e-6, 1e-3, 0.01, 0.2]),
)
floats = st.floats(allow_nan=True, allow_infinity=True, width=64)


def test_most_families_answer_with_a_number():
    assert len(NUMBER_FAMILIES) >= 8


@st.composite
def responses(draw, variant):
    """Values near what the judge looks for: the answer, each mistake, slips, and anything."""
    answer = float(variant.answer)
    anchors = [answer, *(float(v) for v in variant.mistakes.values()), 0.0]
    anchor = draw(st.sampled_from(anchors))
    how = draw(st.sampled_from(["same", "scaled", "nudged", "rounded", "any"]))
    if how == "same":
        return anchor
    if how == "scaled":
        return anchor * draw(st.sampled_from([-1, 10, 0.1, 100, 1e-3, 8, 0.125, 2, 0.5]))
    if how == "nudged":
        return anchor * (1 + draw(st.floats(-0.05, 0.05)))
    if how == "rounded":
        return float(f"{anchor:.{draw(st.integers(1, 4))}g}")
    return draw(st.floats(allow_nan=False, allow_infinity=False, width=64))


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(NUMBER_FAMILIES), st.integers(0, 2**32), tolerances, st.data())
def test_a_number_is_judged_as_the_array_judge_does(key, seed, tolerance, data):
    family = get_family(key)
    variant = make_variant(family, {}, seed)
    value = data.draw(responses(variant))
    marker = _Marker(family, variant.givens, tolerance)
    assert marker.judge_number(value) == marker.judge(np.array([value]))[0]


@settings(max_examples=300, deadline=None)
@given(
    answer=floats,
    mistakes=st.lists(st.one_of(floats, st.sampled_from([1.0, 1.001, -1.0, 2.0, 0.0])), max_size=6),
    tolerance=tolerances,
)
@example(
    answer=1.0,
    mistakes=[1.0, 2.0, 2.0000001, math.nan, math.inf, -1.0],
    tolerance=Tolerance(1e-3, 1e-3),
)
# Closeness is measured against the earlier mistake: 1.22 is within 20% of itself from 1.0
# (0.22 <= 0.244) but not within 20% of 1.0 (0.22 > 0.2), so both are offered.
@example(answer=10.0, mistakes=[1.0, 1.22], tolerance=Tolerance(0.0, 0.2))
@example(answer=10.0, mistakes=[1.22, 1.0], tolerance=Tolerance(0.0, 0.2))
def test_the_offered_mistakes_of_a_number_are_the_array_versions(answer, mistakes, tolerance):
    solution = Solution(
        answer=np.float64(answer) * np.ones(()),
        mistakes={f"m{n}": np.float64(value) * np.ones(()) for n, value in enumerate(mistakes)},
    )
    with np.errstate(all="ignore"):  # an infinite answer times rtol 0 warns in the array version
        by_arrays = offered_mistakes(solution, tolerance)
    by_floats = offered_scalar_mistakes(solution, tolerance)
    assert list(by_floats) == list(by_arrays)
    assert [by_floats[code] for code in by_floats] == [float(v) for v in by_arrays.values()]


def test_grade_takes_the_number_path_and_regrades_agree():
    family = get_family("dot-variance")
    variant = make_variant(family, {}, 5)
    texts = [
        "576",
        str(float(variant.answer)),
        "0",
        "-1",
        *map(str, map(float, variant.mistakes.values())),
    ]
    one_by_one = [grade(family, variant.givens, text) for text in texts]
    assert one_by_one == grade_many(family, variant.givens, texts)
    assert all(isinstance(v.detail["parsed"], float) for v in one_by_one if v.status != "invalid")
