"""The mistakes each family lists: recognised with their misconception on every variant where they
differ from the answer, never revealing the answer, and the coincidence rule for generic slips."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grading.engine import FAMILIES, FORMULA_FAMILY, format_answer, grade, grade_many, make_variant
from grading.engine.checks import within_tolerance
from grading.engine.feedback import slips_for
from grading.engine.problems.softmax import jacobian, softmax

FIXED_FAMILIES = sorted(key for key in FAMILIES if key != FORMULA_FAMILY)
# The issue's example: d_k = 512, σq = 0.5, σk = 1, so Var(q·k) = 512 · 0.25 · 1 = 128.
ISSUE_GIVENS = {"d_k": 512, "sigma_q": 0.5, "sigma_k": 1.0}


def listed_mistakes(family, variant):
    """The mistakes the family lists for a variant that a learner could type and that differ
    from its answer."""
    tolerance = family.default_tolerance
    solution = family.solve(variant.givens, variant.grading_key)
    for code, value in solution.mistakes.items():
        value = np.asarray(value, dtype=np.float64)
        if (
            np.isfinite(value).all()
            and not within_tolerance(value, solution.answer, tolerance).all()
        ):
            yield code, value


@pytest.mark.parametrize(
    ("text", "misconception"),
    [
        ("sqrt(512)", "root-width-for-width"),
        ("512*0.5*1", "sigma-not-squared"),
        ("512", "unit-variance-assumed"),
        ("sqrt(512)*0.5", "std-for-variance"),
    ],
)
def test_the_issue_example_names_each_likely_mistake(text, misconception):
    family = FAMILIES["dot-variance"]
    verdict = grade(family, ISSUE_GIVENS, text)
    assert verdict.status == "incorrect"
    assert verdict.misconception == misconception
    assert verdict.feedback.startswith(family.mistakes[misconception])
    assert "128" not in verdict.feedback


def test_the_issue_example_is_still_correct_at_128():
    verdict = grade(FAMILIES["dot-variance"], ISSUE_GIVENS, "128")
    assert verdict.status == "correct"
    assert verdict.misconception is None
    assert verdict.feedback == "Correct: within 1% of the correct value."


JACOBIAN_GIVENS = {"z": [1.0, -0.5, 0.3]}


def _jacobian_text(matrix) -> str:
    return format_answer(np.asarray(matrix))


@pytest.mark.parametrize(
    ("mistake", "misconception"),
    [
        (lambda J: 2 * np.diag(np.diag(J)) - J, "off-diagonal-sign"),
        (lambda J: np.diag(np.diag(J)), "cross-slopes-ignored"),
        (lambda J: -J, "sign-flipped"),
        (lambda J: J - np.diag(np.diag(J)), "diagonal-dropped"),
    ],
)
def test_jacobian_mistakes_are_named(mistake, misconception):
    family = FAMILIES["softmax-jacobian"]
    answer = jacobian(softmax(JACOBIAN_GIVENS["z"]))
    # diagonal-dropped keeps −p pᵀ on the diagonal too; the others only reshape the answer.
    if misconception == "diagonal-dropped":
        p = softmax(JACOBIAN_GIVENS["z"])
        typed = -np.outer(p, p)
    else:
        typed = mistake(answer)
    verdict = grade(family, JACOBIAN_GIVENS, _jacobian_text(typed))
    assert (verdict.status, verdict.misconception) == ("incorrect", misconception)


def test_the_transposed_jacobian_is_the_answer_so_no_mistake_is_listed_for_it():
    answer = jacobian(softmax(JACOBIAN_GIVENS["z"]))
    assert np.allclose(answer, answer.T)
    verdict = grade(FAMILIES["softmax-jacobian"], JACOBIAN_GIVENS, _jacobian_text(answer.T))
    assert verdict.status == "correct"


def test_the_softmax_of_unscaled_logits_is_named_where_logits_are_scaled():
    givens = {"z": [1.5, -0.4, 0.2], "c": 4.0}
    for key in ("saturation-max-prob", "saturated-slope"):
        family = FAMILIES[key]
        unscaled = family.solve({**givens, "c": 1.0}).answer
        verdict = grade(family, givens, format_answer(unscaled))
        assert (verdict.status, verdict.misconception) == ("incorrect", "scale-ignored"), key


@pytest.mark.parametrize("key", FIXED_FAMILIES)
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_every_listed_mistake_is_named_on_every_variant(key, seed):
    family = FAMILIES[key]
    variant = make_variant(family, {}, seed)
    mistakes = list(listed_mistakes(family, variant))
    texts = [format_answer(value) for _, value in mistakes]
    one_by_one = [grade(family, variant.givens, text) for text in texts]
    assert grade_many(family, variant.givens, texts) == one_by_one
    answer_text = format_answer(variant.answer)
    for (code, _), verdict in zip(mistakes, one_by_one, strict=True):
        assert (verdict.status, verdict.misconception) == ("incorrect", code), (seed, code)
        # The feedback names the mistake with the family's fixed sentence, never the answer.
        tolerance = f" Answers count as correct {verdict.detail['tolerance']}."
        said = verdict.feedback.removesuffix(tolerance)
        assert said != verdict.feedback
        assert said.startswith(family.mistakes[code])
        assert answer_text not in said
    correct = grade(family, variant.givens, answer_text)
    assert (correct.status, correct.misconception, correct.detail["diagnosis"]) == (
        "correct",
        None,
        None,
    )


@pytest.mark.parametrize("key", FIXED_FAMILIES)
def test_every_family_has_feedback_for_each_mistake_it_lists(key):
    family = FAMILIES[key]
    for seed in range(40):
        variant = make_variant(family, {}, seed)
        assert set(family.solve(variant.givens).mistakes) <= set(family.mistakes)


# --- the coincidence rule ----------------------------------------------------------------------

# d_k = 16, s = 8: Var = 16 / 64 = 0.25; listed mistakes 2 (s not squared), 0.5 (a standard
# deviation) and 16 (no division).
SCALED = {"d_k": 16, "divisor": 8.0}


@pytest.mark.parametrize(
    ("text", "would_be"),
    [
        ("4", "factor-dk"),  # 0.25 · 16: a guess of 4 is no evidence of a stray factor d_k
        ("1", "factor-sqrt-dk"),  # 0.25 · √16
    ],
)
def test_a_small_whole_number_is_not_given_a_factor_slip(text, would_be):
    family = FAMILIES["scaled-variance"]
    # The value is one of the variant's generic slips: only the rule keeps it from being named.
    slips = slips_for(np.array(0.25), family.default_tolerance, 16)
    assert (would_be, float(text)) in zip(slips.codes, slips.values.tolist(), strict=True)
    verdict = grade(family, SCALED, text)
    assert verdict.status == "incorrect"
    assert verdict.misconception is None
    assert verdict.detail["diagnosis"] is None
    assert verdict.feedback.startswith("Not correct.")


@pytest.mark.parametrize(
    ("text", "diagnosis"),
    [
        ("0.0625", "factor-sqrt-dk"),  # not whole
        ("2.5", "power-of-ten"),  # not whole
        ("25", "power-of-ten"),  # whole but beyond 10
        ("-0.25", "sign-flipped"),  # a sign is not a factor slip
    ],
)
def test_other_values_keep_their_generic_diagnosis(text, diagnosis):
    verdict = grade(FAMILIES["scaled-variance"], SCALED, text)
    assert verdict.misconception is None
    assert verdict.detail["diagnosis"] == diagnosis


def test_a_small_whole_number_that_is_a_listed_mistake_keeps_its_misconception():
    verdict = grade(FAMILIES["scaled-variance"], SCALED, "2")
    assert (verdict.status, verdict.misconception) == ("incorrect", "divisor-not-squared")


def test_a_small_whole_sign_flip_is_still_named():
    # d_k = 16, σq = σk = 0.5 gives the variance 1; −1 has the answer's digits.
    givens = {"d_k": 16, "sigma_q": 0.5, "sigma_k": 0.5}
    verdict = grade(FAMILIES["dot-variance"], givens, "-1")
    assert verdict.detail["diagnosis"] == "sign-flipped"


def test_the_rule_is_the_same_for_one_answer_and_for_many():
    texts = ["4", "-4", "1", "0.0625", "2.5", "25", "-0.25", "2", "3"]
    family = FAMILIES["scaled-variance"]
    assert grade_many(family, SCALED, texts) == [grade(family, SCALED, t) for t in texts]


def test_the_rule_covers_every_entry_of_a_vector():
    # softmax([0, ln 9]) = [0.1, 0.9]: [1, 9] is ten times too large, but every entry is a
    # small whole number; [1, 9.5] is not.
    family = FAMILIES["softmax"]
    givens = {"z": [0.0, float(np.log(9.0))]}
    assert grade(family, givens, "[1, 9]").detail["diagnosis"] is None
    assert grade_many(family, givens, ["[1, 9]"])[0].detail["diagnosis"] is None
    assert grade(family, givens, "[0.01, 0.09]").detail["diagnosis"] == "power-of-ten"
