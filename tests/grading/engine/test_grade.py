"""Grading responses: verdicts, feedback, diagnoses, regrades from stored givens."""

import dataclasses
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grading.engine import (
    FAMILIES,
    Tolerance,
    Verdict,
    describe_tolerance,
    format_answer,
    get_family,
    grade,
    grade_many,
    make_variant,
)

BUILT_IN = sorted(key for key in FAMILIES if key != "formula")
DOT_VARIANCE = {"d_k": 64, "sigma_q": 1.5, "sigma_k": 2.0}  # answer 576
UNIT_DIVISOR = {"d_k": 64, "sigma_q": 1.5, "sigma_k": 2.0}  # answer 24
SCALED_DOT = {"q": [1.0, 2.0, 0.5, 1.5], "k": [0.5, 1.0, 2.0, 1.0]}  # q·k = 5, answer 2.5
STATUSES = {"correct", "incorrect", "invalid"}

families = st.sampled_from(BUILT_IN)
seeds = st.integers(min_value=0, max_value=2**63 - 1)


@settings(max_examples=150, deadline=None)
@given(families, seeds)
def test_formatted_answer_grades_correct(key, seed):
    family = get_family(key)
    variant = make_variant(family, {}, seed)
    verdict = grade(family, variant.givens, format_answer(variant.answer))
    assert verdict.status == "correct"
    assert verdict.score == 1.0
    assert verdict.misconception is None


@settings(max_examples=150, deadline=None)
@given(families, seeds)
def test_each_offered_mistake_grades_incorrect_with_its_code(key, seed):
    family = get_family(key)
    variant = make_variant(family, {}, seed)
    for code, value in variant.mistakes.items():
        verdict = grade(family, variant.givens, format_answer(value))
        assert verdict.status == "incorrect"
        assert verdict.score == 0.0
        assert verdict.misconception == code
        assert verdict.feedback.startswith(family.mistakes[code])


@settings(max_examples=150, deadline=None)
@given(families, seeds)
def test_zero_grades_incorrect(key, seed):
    family = get_family(key)
    variant = make_variant(family, {}, seed)
    zero = format_answer(np.zeros(family.answer_shape(variant.givens)))
    verdict = grade(family, variant.givens, zero)
    assert verdict.status == "incorrect"
    assert verdict.score == 0.0


@settings(max_examples=200, deadline=None)
@given(families, st.text(max_size=120))
def test_any_text_gets_a_verdict(key, text):
    family = get_family(key)
    variant = make_variant(family, {}, 11)
    verdict = grade(family, variant.givens, text)
    assert verdict.status in STATUSES
    assert verdict.feedback
    json.dumps(dataclasses.asdict(verdict))


def test_correct_verdict():
    verdict = grade(get_family("dot-variance"), DOT_VARIANCE, "64 * 1.5^2 * 2^2")
    assert verdict == Verdict(
        status="correct",
        score=1.0,
        misconception=None,
        feedback="Correct: within 1% of the correct value.",
        detail={
            "wrong_entries": [],
            "tolerance": "within 1% of the correct value",
            "diagnosis": None,
            "finding": None,
            "parsed": 576.0,
            "error": None,
        },
    )


def test_named_mistake_verdict():
    verdict = grade(get_family("dot-variance"), DOT_VARIANCE, "24")
    assert verdict.status == "incorrect"
    assert verdict.misconception == "std-for-variance"
    assert verdict.feedback == (
        "That is the standard deviation of q·k, not its variance: square it. "
        "Answers count as correct within 1% of the correct value."
    )
    assert verdict.detail["diagnosis"] is None
    assert verdict.detail["parsed"] == 24.0


def test_mistake_within_tolerance_counts_for_its_code():
    verdict = grade(get_family("dot-variance"), DOT_VARIANCE, "24.1")
    assert verdict.misconception == "std-for-variance"


def test_invalid_verdict_carries_the_parser_message():
    verdict = grade(get_family("dot-variance"), DOT_VARIANCE, "sqrt(x)")
    message = "unknown name 'x'; you can use numbers, + − × / ^, sqrt, exp, ln, log, e, pi"
    assert verdict.status == "invalid"
    assert verdict.score == 0.0
    assert verdict.misconception is None
    assert verdict.feedback == message
    assert verdict.detail == {
        "wrong_entries": [],
        "tolerance": "within 1% of the correct value",
        "diagnosis": None,
        "finding": None,
        "parsed": None,
        "error": message,
    }


@pytest.mark.parametrize(
    ("text", "status", "message"),
    [
        ("9^9^9", "invalid", "that power is too large to compute"),
        ("10**10**10", "invalid", "that power is too large to compute"),
        ("1e999", "invalid", "a number is too large to work with (the limit is about 1e308)"),
        ("__import__('os')", "invalid", "text in quotes is not allowed"),
        ("().__class__.__bases__", "invalid", "unknown name '__class__'"),
        ("x" * 5000, "invalid", "the answer is too long (at most 1,000 characters)"),
        ("", "invalid", "Enter an answer"),
    ],
)
def test_hostile_and_empty_input_is_invalid_with_a_message(text, status, message):
    verdict = grade(get_family("dot-variance"), DOT_VARIANCE, text)
    assert verdict.status == status
    assert verdict.feedback.startswith(message)


@pytest.mark.parametrize(
    ("key", "givens", "text", "diagnosis", "phrase"),
    [
        ("dot-variance", DOT_VARIANCE, "-576", "sign-flipped", "wrong sign"),
        ("dot-variance", DOT_VARIANCE, "57.6", "power-of-ten", "too small by a factor of 10:"),
        ("dot-variance", DOT_VARIANCE, "57600", "power-of-ten", "too large by a factor of 100:"),
        ("dot-variance", DOT_VARIANCE, "4608", "factor-sqrt-dk", "factor of √dₖ = 8"),
        ("scale-for-unit-variance", UNIT_DIVISOR, "0.375", "factor-dk", "factor of dₖ = 64"),
        ("scaled-dot", SCALED_DOT, "0.625", "factor-dk", "too small by a factor of dₖ = 4"),
        ("scaled-dot", SCALED_DOT, "6.25", "squared", "square of the correct one"),
        ("scaled-dot", SCALED_DOT, "sqrt(2.5)", "square-rooted", "square root of the correct"),
    ],
)
def test_generic_diagnoses(key, givens, text, diagnosis, phrase):
    verdict = grade(get_family(key), givens, text)
    assert verdict.status == "incorrect"
    assert verdict.misconception is None
    assert verdict.detail["diagnosis"] == diagnosis
    assert phrase in verdict.feedback
    tolerance = describe_tolerance(get_family(key).default_tolerance)
    assert verdict.feedback.endswith(f"Answers count as correct {tolerance}.")


def test_width_factors_only_when_givens_have_a_width():
    # width-for-std has no d_k among its givens: 36·6 is not called a d_k factor.
    verdict = grade(get_family("width-for-std"), {"target_std": 6.0}, "216")
    assert verdict.detail["diagnosis"] is None


def test_rounded_too_coarsely():
    tight = Tolerance(atol=0.0, rtol=0.001)
    verdict = grade(get_family("dot-variance"), DOT_VARIANCE, "580", tolerance=tight)
    assert verdict.status == "incorrect"
    assert verdict.detail["diagnosis"] == "rounded-too-coarsely"
    assert "give at least 3 significant figures" in verdict.feedback
    assert verdict.detail["finding"] == "near-miss"
    # Too few significant figures is the one near miss a quiz may let the learner retry free.
    assert verdict.costs_try is False
    assert verdict.feedback.endswith("Answers count as correct within 0.1% of the correct value.")


def test_far_off_value_has_no_diagnosis():
    verdict = grade(get_family("dot-variance"), DOT_VARIANCE, "123")
    assert verdict.detail["diagnosis"] is None
    assert verdict.misconception is None
    assert verdict.feedback == (
        "Not correct. Answers count as correct within 1% of the correct value."
    )


def test_vector_feedback_names_wrong_entries():
    family = get_family("softmax")
    givens = {"z": [1.0, 2.0, 3.0]}
    p = np.exp([1.0, 2.0, 3.0]) / np.exp([1.0, 2.0, 3.0]).sum()
    typed = [float(p[0]), float(p[1]) + 0.05, float(p[2]) - 0.05]
    verdict = grade(family, givens, format_answer(np.array(typed)))
    assert verdict.status == "incorrect"
    assert verdict.detail["wrong_entries"] == [2, 3]
    assert "Entries 2 and 3 are off." in verdict.feedback
    assert verdict.detail["parsed"] == pytest.approx(typed, rel=1e-5)


def test_vector_mistake_is_named():
    family = get_family("softmax")
    givens = {"z": [1.0, 2.0, 3.0]}
    verdict = grade(family, givens, "[1/6, 2/6, 3/6]")
    assert verdict.misconception == "linear-normalisation"
    assert verdict.detail["wrong_entries"] == [1, 2, 3]


def test_percentages_are_named_where_probabilities_are_asked():
    family = get_family("softmax")
    givens = {"z": [1.0, 2.0, 3.0]}
    p = np.exp([1.0, 2.0, 3.0]) / np.exp([1.0, 2.0, 3.0]).sum()
    verdict = grade(family, givens, format_answer(p * 100))
    assert verdict.detail["diagnosis"] == "percentage-for-fraction"
    assert "looks like a percentage" in verdict.feedback
    assert verdict.costs_try is True


def test_a_hundredfold_variance_is_a_power_of_ten_not_a_percentage():
    verdict = grade(get_family("dot-variance"), DOT_VARIANCE, "57600")
    assert verdict.detail["diagnosis"] == "power-of-ten"


def test_matrix_feedback_names_one_based_cells():
    family = get_family("softmax-jacobian")
    givens = {"z": [0.5, -0.3, 1.2]}
    answer = family.solve(givens).answer.copy()
    answer[0, 1] += 0.1
    verdict = grade(family, givens, format_answer(answer))
    assert verdict.detail["wrong_entries"] == [[1, 2]]
    assert "Entry (1, 2) is off." in verdict.feedback


def test_matrix_answer_typed_with_rows_on_lines():
    family = get_family("softmax-jacobian")
    givens = {"z": [0.5, -0.3, 1.2]}
    answer = family.solve(givens).answer
    typed = "\n".join(" ".join(f"{x:.6f}" for x in row) for row in answer)
    assert grade(family, givens, typed).status == "correct"
    verdict = grade(family, givens, "1, 2; 3, 4")
    assert verdict.status == "invalid"
    assert verdict.feedback == "expected a 3×3 matrix, got 2 rows"


def test_wrong_count_is_invalid():
    verdict = grade(get_family("softmax"), {"z": [1.0, 2.0, 3.0, 4.0]}, "0.1, 0.2, 0.7")
    assert verdict.status == "invalid"
    assert verdict.feedback == "expected 4 numbers, got 3"


def test_tolerance_override():
    family = get_family("dot-variance")
    loose = Tolerance(atol=10.0, rtol=0.0)
    assert grade(family, DOT_VARIANCE, "570", tolerance=loose).status == "correct"
    assert grade(family, DOT_VARIANCE, "570").status == "incorrect"
    assert "within 10 of the correct value" in grade(family, DOT_VARIANCE, "0", loose).feedback


def test_verdict_is_frozen_and_json_able():
    verdict = grade(
        get_family("softmax-jacobian"), {"z": [0.5, -0.3, 1.2]}, "0, 0, 0; 0, 0, 0; 0,0,0"
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        verdict.status = "correct"  # type: ignore[misc]
    assert json.loads(json.dumps(dataclasses.asdict(verdict)))["detail"]["wrong_entries"]


def test_regrade_uses_stored_givens_not_the_generator(monkeypatch):
    family = get_family("dot-variance")
    variant = make_variant(family, {}, 42)
    stored = json.loads(json.dumps(variant.givens))
    texts = [
        format_answer(variant.answer),
        "0",
        format_answer(next(iter(variant.mistakes.values()))),
    ]
    before = [grade(family, stored, t) for t in texts]

    # A later release changes the generator and bumps the version.
    monkeypatch.setattr(
        family, "draw", lambda rng, params: {"d_k": 1000, "sigma_q": 9.0, "sigma_k": 9.0}
    )
    monkeypatch.setattr(family, "version", family.version + 1)
    assert make_variant(family, {}, 42).givens == {"d_k": 1000, "sigma_q": 9.0, "sigma_k": 9.0}

    after = [grade(family, stored, t) for t in texts]
    assert after == before
    assert grade_many(family, stored, texts) == before
    assert [v.status for v in after] == ["correct", "incorrect", "incorrect"]


@pytest.mark.parametrize("key", BUILT_IN)
def test_grade_many_matches_grade_one_by_one(key):
    family = get_family(key)
    variant = make_variant(family, {}, 7)
    shape = family.answer_shape(variant.givens)
    texts = [
        format_answer(variant.answer),
        format_answer(variant.answer),
        format_answer(np.zeros(shape)),
        format_answer(-variant.answer),
        format_answer(variant.answer * 10),
        "",
        "sqrt(x)",
        "9^9^9",
        "1, 2",
        *[format_answer(value) for value in variant.mistakes.values()],
    ]
    assert grade_many(family, variant.givens, texts) == [
        grade(family, variant.givens, text) for text in texts
    ]


def test_grade_many_scalar_fast_path_matches_grade():
    family = get_family("dot-variance")
    texts = ["576", " 576 ", "5.76e2", "1_000", "nan", "inf", "١٢", "24", "-576", "580", "x", "2^3"]
    assert grade_many(family, DOT_VARIANCE, texts) == [
        grade(family, DOT_VARIANCE, text) for text in texts
    ]


def test_grade_many_handles_large_batches_in_chunks():
    family = get_family("dot-variance")
    texts = ["576", "24", "0", "-576", "oops"] * 2000
    verdicts = grade_many(family, DOT_VARIANCE, texts)
    assert len(verdicts) == len(texts)
    assert [v.status for v in verdicts[:5]] == [
        "correct",
        "incorrect",
        "incorrect",
        "incorrect",
        "invalid",
    ]
    assert verdicts[-4].misconception == "std-for-variance"
    assert verdicts[-2].detail["diagnosis"] == "sign-flipped"


def test_grade_many_of_nothing():
    assert grade_many(get_family("softmax"), {"z": [1.0, 2.0, 3.0]}, []) == []
