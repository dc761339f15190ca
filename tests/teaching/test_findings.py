"""teaching.findings: a stored diagnosis code as instructors read it, by the engine's rule of
the same code or by the formula problem's own property check, under its kind's heading."""

from __future__ import annotations

from grading.engine import RULES
from teaching.findings import KINDS, finding_label, kind_counts

CHECKS = {"properties": [{"check": "x >= 0"}, {"check": "sum(x) = 1"}]}


def test_every_rule_of_the_engine_is_labelled_by_its_title_under_its_kind():
    for code, rule in RULES.items():
        label = finding_label(code)
        assert (label.code, label.kind, label.title) == (code, rule.kind, rule.title)
        assert label.heading == KINDS[rule.kind]


def test_a_near_miss_and_a_structural_finding():
    assert finding_label("rounded-too-coarsely").heading == "Near misses"
    rows = finding_label("jacobian-rows-do-not-sum-to-0")
    assert (rows.heading, rows.title) == ("Structural findings", "rows do not sum to 0")


def test_a_property_check_is_named_by_its_text_as_the_problem_has_it():
    label = finding_label("property-2", CHECKS)
    assert (label.kind, label.title) == ("property", "Property check 2: sum(x) = 1")
    # A check the problem no longer has (edited since), or no params: its number alone.
    assert finding_label("property-3", CHECKS).title == "Property check 3"
    assert finding_label("property-1").title == "Property check 1"
    assert finding_label("property-x", CHECKS).title == "Property check x"


def test_a_code_no_rule_knows_keeps_its_code():
    label = finding_label("retired-rule")
    assert (label.kind, label.title, label.heading) == ("other", "retired-rule", "Other diagnoses")


def test_kinds_are_counted_in_the_pages_order():
    codes = ["sign-flipped", None, "property-1", "negative-variance", "power-of-ten", ""]
    assert kind_counts(codes) == [
        ("Property checks", 1),
        ("Structural findings", 1),
        ("Near misses", 2),
    ]
    assert kind_counts([None, None]) == []
