"""Property checks on formula problems: kept in the grading key, run on wrong responses before
the named mistakes, refused when the right answer fails them."""

import json

import numpy as np
import pytest

from grading.engine import (
    FORMULA_FAMILY,
    ParamError,
    Tolerance,
    check_formula,
    format_answer,
    get_family,
    grade,
    grade_many,
    make_variant,
)

FORMULA = get_family(FORMULA_FAMILY)
SHARES = {
    "variables": {"a": {"choices": [1, 2, 3]}, "b": {"choices": [5, 6]}},
    "shape": "vector",
    "answer": ["a / (a + b)", "b / (a + b)"],
    "mistakes": {
        "unnormalised": {"formula": ["a", "b"], "misconception": "forgot-to-normalise"},
        "swapped": ["b / (a + b)", "a / (a + b)"],
    },
    "properties": [
        {"check": "x >= 0", "feedback": "A share is never negative."},
        {
            "check": "sum(x) = 1",
            "feedback": "The shares should add up to 1.",
            "misconception": "forgot-to-normalise",
        },
        {"check": "x[1] < x[2]", "feedback": "The larger count gets the larger share."},
    ],
    "prompt": "Shares of {@a@} and {@b@}?",
}


def _variant(params=SHARES, seed=3):
    return make_variant(FORMULA, params, seed)


def _grade(variant, text):
    return grade(FORMULA, variant.givens, text, grading_key=variant.grading_key)


def test_the_checks_live_in_the_grading_key_never_in_the_givens():
    variant = _variant()
    assert variant.grading_key["properties"] == SHARES["properties"]
    assert "sum(x)" not in json.dumps(variant.givens)
    assert "properties" not in variant.givens


def test_a_wrong_answer_failing_a_check_gets_the_authors_feedback_and_misconception():
    variant = _variant()
    verdict = _grade(variant, "[0.3, 0.9]")
    assert verdict.status == "incorrect"
    assert verdict.misconception == "forgot-to-normalise"
    assert verdict.feedback.startswith("The shares should add up to 1.")
    assert verdict.detail["finding"] == "property"
    assert verdict.detail["diagnosis"] == "property-2"
    assert verdict.costs_try is True


def test_the_first_failing_check_wins():
    variant = _variant()
    # Fails all three: negative, not summing to 1, the order reversed; the first is named.
    both = _grade(variant, "[0.9, -0.5]")
    assert (both.detail["diagnosis"], both.misconception) == ("property-1", None)
    assert both.feedback.startswith("A share is never negative.")
    order = _grade(variant, "[0.7, 0.3]")
    assert order.detail["diagnosis"] == "property-3"


def test_checks_run_before_the_named_mistakes():
    variant = _variant()
    unnormalised = format_answer(variant.mistakes["unnormalised"])
    swapped = format_answer(variant.mistakes["swapped"])
    # The mistake's value fails sum(x) = 1, which names the mistake's own misconception.
    first = _grade(variant, unnormalised)
    assert first.detail["diagnosis"] == "property-2"
    assert first.misconception == "forgot-to-normalise"
    # The swapped shares fail only the order check: named by it, not by the mistake.
    second = _grade(variant, swapped)
    assert (second.detail["diagnosis"], second.misconception) == ("property-3", None)
    without = {**SHARES, "properties": []}
    assert _grade(_variant(without), swapped).misconception == "swapped"


def test_a_right_answer_never_reaches_the_checks():
    variant = _variant()
    verdict = _grade(variant, format_answer(variant.answer))
    assert verdict.status == "correct"
    assert verdict.detail["finding"] is None
    calls = []
    original = FORMULA.authored_findings

    def spy(values, *args, **kwargs):
        calls.append(np.array(values))
        return original(values, *args, **kwargs)

    FORMULA.authored_findings = spy
    try:
        texts = [format_answer(variant.answer), "[0.3, 0.9]"]
        verdicts = grade_many(FORMULA, variant.givens, texts, grading_key=variant.grading_key)
    finally:
        del FORMULA.authored_findings
    assert [v.status for v in verdicts] == ["correct", "incorrect"]
    assert len(calls) == 1
    assert calls[0].tolist() == [[0.3, 0.9]]


def test_the_feedback_adds_no_value_of_its_own():
    for seed in range(20):
        variant = _variant(seed=seed)
        for text in ("[0.3, 0.9]", "[0.9, -0.5]", "[0.7, 0.3]"):
            verdict = _grade(variant, text)
            for entry in variant.answer.tolist():
                for digits in (2, 3, 4):
                    assert f"{entry:.{digits}f}" not in verdict.feedback


def test_grade_many_gives_the_same_findings_as_grade():
    variant = _variant()
    texts = ["[0.3, 0.9]", "[0.9, -0.5]", "[0.7, 0.3]", "[0.1, 0.2]", "nonsense"]
    many = grade_many(FORMULA, variant.givens, texts, grading_key=variant.grading_key)
    assert many == [_grade(variant, text) for text in texts]


def test_a_number_answer_is_checked_too():
    params = {
        "variables": {"d_k": {"choices": [16, 64]}, "s": {"min": 1, "max": 3, "step": 1}},
        "answer": "d_k * s^2",
        "properties": [{"check": "x >= d_k", "feedback": "A variance over d_k terms..."}],
        "prompt": "d_k = {@d_k@}, s = {@s@}",
    }
    variant = _variant(params)
    below = _grade(variant, "1")
    assert (below.detail["finding"], below.detail["diagnosis"]) == ("property", "property-1")
    assert below.feedback.startswith("A variance over d_k terms...")
    above = _grade(variant, str(float(variant.answer) * 3))
    assert above.detail["finding"] is None


def test_a_check_that_cannot_be_evaluated_for_a_response_says_nothing_about_it():
    params = {
        **SHARES,
        "properties": [
            {"check": "sqrt(x) <= 1", "feedback": "Roots of shares are at most 1."},
            {"check": "sum(x) = 1", "feedback": "The shares should add up to 1."},
        ],
    }
    verdict = _grade(_variant(params), "[-0.5, 0.9]")
    assert verdict.detail["diagnosis"] == "property-2"


def test_a_variant_without_checks_grades_as_before():
    old = {**SHARES}
    del old["properties"]
    variant = _variant(old)
    assert "properties" not in variant.grading_key
    stack = np.array([[0.3, 0.9]])
    assert FORMULA.authored_findings(stack, variant.givens, variant.grading_key) is None
    assert FORMULA.authored_findings(np.zeros((1, 2)), variant.givens, {}) is None
    verdict = _grade(variant, "[0.3, 0.9]")
    assert verdict.detail["finding"] is None
    assert verdict.feedback.startswith("Not correct.")


def test_the_tolerance_given_applies_to_equality():
    variant = _variant()
    values = np.array([[0.3, 0.75]])  # sums to 1.05
    found = FORMULA.authored_findings(values, variant.givens, variant.grading_key)
    assert found[0].code == "property-2"
    wide = FORMULA.authored_findings(
        values, variant.givens, variant.grading_key, tolerance=Tolerance(0.0, 0.1)
    )
    assert wide[0] is None


def test_grading_checks_with_the_problem_s_own_tolerance():
    variant = _variant()
    # Sums to 1.05: outside the family's 1% but inside a problem's 10%.
    narrow = grade(FORMULA, variant.givens, "[0.3, 0.75]", grading_key=variant.grading_key)
    assert narrow.detail["diagnosis"] == "property-2"
    wide = grade(
        FORMULA,
        variant.givens,
        "[0.3, 0.75]",
        tolerance=Tolerance(0.0, 0.1),
        grading_key=variant.grading_key,
    )
    assert wide.detail.get("diagnosis") != "property-2"


@pytest.mark.parametrize(
    ("properties", "field", "message"),
    [
        ("sum(x) = 1", "properties", "Give the property checks as a list"),
        ([["sum(x) = 1"]], "properties.1", "Give each check as"),
        ([{"feedback": "f"}], "properties.1.check", "Write the check"),
        (
            [{"check": "x >= 0", "feedback": "ok"}, {"check": "x[3] > 0", "feedback": "f"}],
            "properties.2.check",
            "In check 2: index 3 is out of range for a vector of 2: use 1 to 2.",
        ),
        ([{"check": "rowsums(x) = 0", "feedback": "f"}], "properties.1.check", "needs a matrix"),
        ([{"check": "x[c] > 0", "feedback": "f"}], "properties.1.check", "unknown name 'c'"),
        ([{"check": "x > 0"}], "properties.1.feedback", "Write the feedback"),
        ([{"check": "x > 0", "feedback": "f" * 2001}], "properties.1.feedback", "at most 2,000"),
        (
            [{"check": "x > 0", "feedback": "f", "misconception": "Bad Code"}],
            "properties.1.misconception",
            "lowercase letters",
        ),
        ([{"check": "x > 0", "feedback": "f", "hint": "h"}], "properties.1.check", "'hint'"),
        ([{"check": "x > 0", "feedback": "f"}] * 21, "properties", "at most 20"),
    ],
)
def test_bad_properties_are_refused_per_field(properties, field, message):
    with pytest.raises(ParamError) as caught:
        FORMULA.clean_params({**SHARES, "properties": properties})
    assert message in caught.value.errors[field]


def test_a_check_is_not_blamed_for_the_answers_own_error():
    with pytest.raises(ParamError) as caught:
        FORMULA.clean_params({**SHARES, "answer": ["a / (a + c)", "b"]})
    assert "unknown name 'c'" in caught.value.errors["answer"]
    assert not any(field.startswith("properties") for field in caught.value.errors)
    with pytest.raises(ParamError) as caught:
        FORMULA.clean_params({**SHARES, "variables": {"a": {"choices": []}, "b": {"min": 1}}})
    assert not any(field.startswith("properties") for field in caught.value.errors)


def test_a_problem_whose_right_answer_fails_a_check_is_refused_with_the_seed():
    wrong_way = {**SHARES, "properties": [{"check": "x[1] > x[2]", "feedback": "f"}]}
    with pytest.raises(ParamError) as caught:
        check_formula(wrong_way)
    message = caught.value.errors["properties.1.check"]
    assert message.startswith("check 1 fails for the right answer for seed 0 (a=")
    unevaluable = {**SHARES, "properties": [{"check": "ln(x - 0.2) < 0", "feedback": "f"}]}
    with pytest.raises(ParamError) as caught:
        check_formula(unevaluable)
    assert (
        "check 1 cannot be evaluated for the right answer: the logarithm"
        in (caught.value.errors["properties.1.check"])
    )
    assert "seed" in caught.value.errors["properties.1.check"]
    assert check_formula(SHARES).seeds == 50
