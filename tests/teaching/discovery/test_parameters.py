"""Facility by parameter, computed by hand: the binning rule (a bar per value when few, quantile
bins cut at values variants have when many), each bin's counts and facility, list givens."""

from __future__ import annotations

import pytest

from teaching.discovery.parameters import (
    MAX_DISTINCT,
    Overall,
    VariantScore,
    facility_of,
    list_measures,
    overall,
    parameter_facilities,
)


def scored(*rows: tuple[int, dict, float]) -> list[VariantScore]:
    return [
        VariantScore(variant=i, learner=learner, numbers=numbers, score=score)
        for i, (learner, numbers, score) in enumerate(rows, start=1)
    ]


def test_few_values_get_a_bin_each():
    rows = scored(
        (1, {"d_k": 16}, 1.0),
        (2, {"d_k": 16}, 1.0),
        (3, {"d_k": 64}, 1.0),
        (3, {"d_k": 64}, 0.0),  # learner 3 again, on another variant
        (4, {"d_k": 64}, 0.5),
        (5, {"d_k": 256}, 0.0),
    )
    found = facility_of("d_k", rows)
    assert found.distinct
    assert [(b.label, b.variants, b.learners, b.full_marks, b.facility) for b in found.bins] == [
        ("d_k = 16", 2, 2, 2, 1.0),
        ("d_k = 64", 3, 2, 1, 0.5),
        ("d_k = 256", 1, 1, 0, 0.0),
    ]
    assert found.hardest.label == "d_k = 256"
    assert not found.constant


def test_many_values_get_quantile_bins_cut_at_values_variants_have():
    # Ten values 1…10: cuts at sorted positions 2, 4, 6, 8 (0-based) are 3, 5, 7, 9.
    rows = scored(*((v, {"s": float(v)}, 1.0 if v <= 4 else 0.0) for v in range(1, 11)))
    found = facility_of("s", rows)
    assert not found.distinct
    assert [(b.label, b.variants, b.facility) for b in found.bins] == [
        ("1 ≤ s < 3", 2, 1.0),
        ("3 ≤ s < 5", 2, 1.0),
        ("5 ≤ s < 7", 2, 0.0),
        ("7 ≤ s < 9", 2, 0.0),
        ("9 ≤ s ≤ 10", 2, 0.0),
    ]


def test_a_value_many_variants_share_never_straddles_two_bins():
    # 12 variants: 1 … 9 once each, and 5 four times: sorted 1 2 3 4 5 5 5 5 5 6 7 8 9 →
    # n = 13, cuts at positions 2, 5, 7, 10: 3, 5, 5, 7; the two 5s merge.
    values = [1, 2, 3, 4, 5, 5, 5, 5, 5, 6, 7, 8, 9]
    rows = scored(*((i, {"x": float(v)}, 1.0) for i, v in enumerate(values)))
    found = facility_of("x", rows)
    assert len({v for v in values}) == 9 > MAX_DISTINCT
    assert [(b.label, b.variants) for b in found.bins] == [
        ("1 ≤ x < 3", 2),
        ("3 ≤ x < 5", 2),
        ("5 ≤ x < 7", 6),
        ("7 ≤ x ≤ 9", 3),
    ]
    assert sum(b.variants for b in found.bins) == len(values)


def test_a_value_shared_by_every_variant_is_constant():
    found = facility_of("sigma", scored((1, {"sigma": 1.5}, 1.0), (2, {"sigma": 1.5}, 0.0)))
    assert found.constant
    assert found.hardest is None
    assert found.bins[0].facility == 0.5


def test_every_parameter_of_any_variant_is_binned_over_the_variants_that_have_it():
    rows = scored((1, {"a": 1.0, "b": 2.0}, 1.0), (2, {"a": 3.0}, 0.0))
    found = parameter_facilities(rows)
    assert [(p.name, sum(b.variants for b in p.bins)) for p in found] == [("a", 2), ("b", 1)]


def test_overall_facility():
    rows = scored((1, {}, 1.0), (1, {}, 0.5), (2, {}, 0.0))
    assert overall(rows) == Overall(variants=3, learners=2, full_marks=1, facility=0.5)
    assert overall([]).facility is None


def test_a_list_given_becomes_its_length_and_spread():
    givens = {"z": [1.5, -2.0, 0.5], "i": 1, "empty": [], "names": ["a", "b"], "flag": [True]}
    assert list_measures(givens) == {"n(z)": 3.0, "spread(z)": pytest.approx(3.5)}
