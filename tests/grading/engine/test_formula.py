"""Formula problems that instructors write without Python."""

import json

import numpy as np
import pytest

from grading.engine import (
    FORMULA_FAMILY,
    ParamError,
    Tolerance,
    format_answer,
    get_family,
    grade,
    grade_many,
    make_variant,
    validate_formula,
    validate_params,
)

FORMULA = get_family(FORMULA_FAMILY)
GOOD = {
    "variables": {
        "d_k": {"choices": [16, 64, 256]},
        "s": {"min": 0.5, "max": 2, "step": 0.5},
    },
    "answer": "d_k * s^2",
    "mistakes": {"std-for-variance": "sqrt(d_k) * s", "width-ignored": "s^2"},
    "prompt": "Components have standard deviation {@s@}, and $d_k = {@d_k@}$. What is "
    "$\\operatorname{Var}(q \\cdot k)$? Keep $\\frac{1}{2}$ and {other} as written.",
    "version": 1,
}


def _first_seed(params, predicate):
    return next(s for s in range(50) if predicate(make_variant(FORMULA, params, s).givens))


def test_good_formula_passes_validation():
    assert validate_formula(GOOD) is None
    assert validate_formula(GOOD, Tolerance(atol=0.0, rtol=0.05)) is None


def test_variant_values_come_from_the_variables():
    for seed in range(30):
        givens = make_variant(FORMULA, GOOD, seed).givens
        assert givens["values"]["d_k"] in (16, 64, 256)
        assert givens["values"]["s"] in (0.5, 1.0, 1.5, 2.0)
        assert json.loads(json.dumps(givens)) == givens


def test_answer_and_mistakes_are_evaluated_from_the_values():
    variant = make_variant(FORMULA, GOOD, 4)
    d_k, s = variant.givens["values"]["d_k"], variant.givens["values"]["s"]
    assert float(variant.answer) == pytest.approx(d_k * s**2)
    assert float(variant.mistakes["std-for-variance"]) == pytest.approx(d_k**0.5 * s)


def test_prompt_fills_only_declared_placeholders():
    givens = make_variant(FORMULA, GOOD, 4).givens
    prompt = FORMULA.prompt(givens)
    values = givens["values"]
    assert f"standard deviation {values['s']:g}," in prompt
    assert f"$d_k = {values['d_k']}$" in prompt
    assert "$\\frac{1}{2}$" in prompt
    assert "{other}" in prompt


def test_grading_a_formula_problem():
    variant = make_variant(FORMULA, GOOD, 4)
    key = variant.grading_key
    correct = grade(FORMULA, variant.givens, format_answer(variant.answer), grading_key=key)
    assert correct.status == "correct"
    mistake = format_answer(variant.mistakes["std-for-variance"])
    wrong = grade(FORMULA, variant.givens, mistake, grading_key=key)
    assert wrong.status == "incorrect"
    assert wrong.misconception == "std-for-variance"
    # The code is an internal name: the learner reads a sentence and the misconception's text.
    assert "std-for-variance" not in wrong.feedback
    assert wrong.feedback.startswith("That value matches a known mistake.")
    assert grade(FORMULA, variant.givens, "0", grading_key=key).status == "incorrect"


@pytest.mark.parametrize("reverse", [False, True])
def test_a_value_fitting_two_mistakes_is_named_by_the_first_code_whatever_the_stored_order(
    reverse,
):
    """With s = 2, d_k·s²/2 and d_k·s are the same number. Whichever order the database keeps
    the mistakes in (PostgreSQL's jsonb sorts keys by length), the earlier code names it."""
    mistakes = {"b-halved": "d_k * s^2 / 2", "a-plain": "d_k * s"}
    if reverse:
        mistakes = dict(reversed(mistakes.items()))
    params = {
        "variables": {"d_k": {"choices": [16, 64]}, "s": {"choices": [2]}},
        "answer": "d_k * s^2",
        "mistakes": mistakes,
        "prompt": "$d_k = {@d_k@}$, $s = {@s@}$.",
    }
    variant = make_variant(FORMULA, params, 0)
    typed = format_answer(variant.givens["values"]["d_k"] * 2)
    verdict = grade(FORMULA, variant.givens, typed, grading_key=variant.grading_key)
    assert verdict.misconception == "a-plain"


def test_givens_hold_only_what_the_prompt_shows_and_the_formulas_stay_in_the_key():
    params = dict(GOOD, variables={**GOOD["variables"], "unseen": {"choices": [7.25, 9.75]}})
    variant = make_variant(FORMULA, params, 4)
    assert set(variant.givens) == {"values", "prompt"}
    assert set(variant.givens["values"]) == {"d_k", "s"}
    assert variant.givens["prompt"] == GOOD["prompt"]
    assert variant.grading_key == {
        "answer": "d_k * s^2",
        "mistakes": GOOD["mistakes"],
        "version": 1,
        "hidden_values": {"unseen": variant.grading_key["hidden_values"]["unseen"]},
    }
    assert variant.grading_key["hidden_values"]["unseen"] in (7.25, 9.75)
    text = json.dumps(variant.givens)
    for formula in ("d_k * s^2", "sqrt(d_k) * s", "s^2", "std-for-variance", "unseen"):
        assert formula not in text


def test_a_variable_the_prompt_hides_still_counts_in_the_formulas():
    params = {
        "variables": {"n": {"choices": [3]}, "hidden": {"choices": [5]}},
        "answer": "n * hidden",
        "mistakes": {"forgot-hidden": "n"},
        "prompt": "n = {@n@}",
    }
    validate_formula(params)
    variant = make_variant(FORMULA, params, 0)
    assert variant.givens["values"] == {"n": 3}
    assert float(variant.answer) == 15.0
    assert float(variant.mistakes["forgot-hidden"]) == 3.0
    assert FORMULA.prompt(variant.givens) == "n = 3"


def test_solving_without_the_grading_key_is_a_clear_error():
    variant = make_variant(FORMULA, GOOD, 4)
    with pytest.raises(ValueError, match="graded with its grading key"):
        FORMULA.solve(variant.givens)
    with pytest.raises(ValueError, match="graded with its grading key"):
        grade(FORMULA, variant.givens, "1")


def test_ranges_give_clean_decimal_values():
    params = {
        "variables": {"a": {"min": 0.1, "max": 0.5, "step": 0.1}},
        "answer": "a",
        "prompt": "{@a@}",
    }
    values = {make_variant(FORMULA, params, s).givens["values"]["a"] for s in range(60)}
    assert values == {0.1, 0.2, 0.3, 0.4, 0.5}
    whole = {"variables": {"n": {"min": 2, "max": 4, "step": 1}}, "answer": "n", "prompt": "{@n@}"}
    drawn = {make_variant(FORMULA, whole, s).givens["values"]["n"] for s in range(30)}
    assert drawn == {2, 3, 4}
    assert all(type(n) is int for n in drawn)


def test_variable_order_in_the_json_does_not_change_the_numbers():
    reordered = dict(GOOD, variables=dict(reversed(list(GOOD["variables"].items()))))
    for seed in range(10):
        assert (
            make_variant(FORMULA, reordered, seed).givens["values"]
            == make_variant(FORMULA, GOOD, seed).givens["values"]
        )


def test_non_finite_answer_names_the_seed():
    params = {
        "variables": {"d_k": {"choices": [1, 4, 16]}},
        "answer": "1/(d_k - 1)",
        "prompt": "d_k = {@d_k@}",
    }
    seed = _first_seed(params, lambda g: g["values"]["d_k"] == 1)
    with pytest.raises(ParamError) as caught:
        validate_formula(params)
    assert caught.value.errors == {
        "answer": f"the answer is not a finite number for seed {seed} (d_k=1): division by zero"
    }


def test_non_finite_mistake_and_overflow_are_reported():
    params = {
        "variables": {"x": {"choices": [-1, 1000]}},
        "answer": "x + 2000",
        "mistakes": {"rooted": "sqrt(x)", "exploded": "exp(x)"},
        "prompt": "{@x@}",
    }
    with pytest.raises(ParamError) as caught:
        validate_formula(params)
    errors = caught.value.errors
    assert "is not a finite number for seed" in errors["mistakes.rooted"]
    assert "(x=-1)" in errors["mistakes.rooted"]
    assert "square root of a negative number" in errors["mistakes.rooted"]
    assert "(x=1000): exp of that number is too large" in errors["mistakes.exploded"]


def test_zero_answer_is_reported():
    params = {"variables": {"x": {"choices": [0, 1]}}, "answer": "x", "prompt": "{@x@}"}
    with pytest.raises(ParamError) as caught:
        validate_formula(params)
    assert "the answer is 0 (within tolerance)" in caught.value.errors["answer"]


def test_unknown_name_in_a_formula_is_rejected():
    with pytest.raises(ParamError) as caught:
        validate_params(FORMULA, dict(GOOD, answer="sigma * d_k"))
    assert caught.value.errors == {
        "answer": (
            "In the answer formula: unknown name 'sigma' at column 1; the variables are d_k, s; "
            "you can also use sqrt, exp, ln, log, e, pi."
        )
    }
    with pytest.raises(ParamError) as caught:
        validate_formula(dict(GOOD, mistakes={"oops": "__import__('os')"}))
    assert "text in quotes at column 12 is not allowed" in caught.value.errors["mistakes.oops"]


def test_structure_errors_are_reported_per_field():
    params = {
        "variables": {
            "e": {"choices": [1]},
            "x": {"min": 2, "max": 1, "step": 1},
            "y": {"choices": []},
            "z": [1],
            "w": {"min": 0, "max": 1, "step": 0},
        },
        "answer": 3,
        "mistakes": {"Bad Code": "x"},
        "prompt": "",
        "version": 0,
        "extra": 1,
    }
    with pytest.raises(ParamError) as caught:
        validate_params(FORMULA, params)
    assert caught.value.errors == {
        "extra": (
            "Unknown parameter; use answer, mistakes, prompt, properties, shape, solution, "
            "variables, version."
        ),
        "variables.e": "'e' is reserved; choose another variable name.",
        "variables.x": "min must not exceed max.",
        "variables.y": "choices must be a non-empty list of numbers.",
        "variables.z": 'Give {"choices": [...]} or {"min": a, "max": b, "step": s}.',
        "variables.w": "step must be positive.",
        "answer": "Give the answer as a formula, e.g. d_k * s^2.",
        "mistakes.Bad Code": "A mistake code uses lowercase letters, digits and hyphens.",
        "prompt": "Give the prompt text; {@name@} shows a variable's value.",
        "version": "The version must be a whole number of at least 1.",
    }


def test_validate_params_returns_cleaned_formula_params():
    cleaned = validate_params(FORMULA, {k: v for k, v in GOOD.items() if k != "version"})
    assert cleaned["version"] == 1
    assert cleaned["answer"] == "d_k * s^2"
    assert cleaned["mistakes"] == GOOD["mistakes"]


def test_regrade_uses_the_formula_stored_in_the_grading_key():
    variant = make_variant(FORMULA, GOOD, 4)
    texts = [format_answer(variant.answer), "1"]
    before = grade_many(FORMULA, variant.givens, texts, grading_key=variant.grading_key)
    # The instructor later edits the problem; stored variants keep their own formula.
    edited = dict(GOOD, answer="2 * d_k * s^2", version=2)
    assert make_variant(FORMULA, edited, 4).grading_key["answer"] == "2 * d_k * s^2"
    assert grade_many(FORMULA, variant.givens, texts, grading_key=variant.grading_key) == before
    assert before[0].status == "correct"


def test_answer_is_a_scalar():
    variant = make_variant(FORMULA, GOOD, 0)
    assert FORMULA.answer_shape(variant.givens) == ()
    answer = FORMULA.solve(variant.givens, variant.grading_key).answer
    assert np.asarray(answer).shape == ()


FIXED = {"variables": {}, "answer": "2.0", "mistakes": {"x-mistake-1": "0.25"}, "prompt": "16/8?"}


def test_a_formula_with_no_variables_has_one_fixed_answer():
    tolerance = Tolerance(atol=0.05, rtol=0.0)
    assert validate_formula(FIXED, tolerance) is None
    variants = {json.dumps(make_variant(FORMULA, FIXED, seed).givens) for seed in range(5)}
    assert variants == {json.dumps({"values": {}, "prompt": "16/8?"})}
    variant = make_variant(FORMULA, FIXED, 3)
    key = variant.grading_key
    assert grade(FORMULA, variant.givens, "2.04", tolerance=tolerance, grading_key=key).status == (
        "correct"
    )
    wrong = grade(FORMULA, variant.givens, "0.25", tolerance=tolerance, grading_key=key)
    assert wrong.misconception == "x-mistake-1"
    assert grade(FORMULA, variant.givens, "2.06", tolerance=tolerance, grading_key=key).status == (
        "incorrect"
    )


def test_a_fixed_answer_of_zero_is_refused_without_naming_values():
    with pytest.raises(ParamError) as caught:
        validate_formula(dict(FIXED, answer="0", mistakes={}), Tolerance(atol=0.1, rtol=0.0))
    assert caught.value.errors["answer"] == (
        "the answer is 0 (within tolerance) for seed 0, so typing 0 would pass"
    )


def test_variables_must_be_an_object():
    with pytest.raises(ParamError) as caught:
        validate_params(FORMULA, dict(FIXED, variables=None))
    assert caught.value.errors == {
        "variables": "Give the variables as an object ({} for a fixed answer)."
    }
