"""Formula problems checked over fifty seeds, mistakes with their own misconception and
feedback, and formula errors located by column."""

import pytest

from grading.engine import (
    FORMULA_FAMILY,
    VALIDATION_SEEDS,
    ParamError,
    ParseError,
    check_formula,
    format_answer,
    get_family,
    grade,
    make_variant,
    mistake_misconceptions,
    validate_params,
)
from grading.engine.answers import compile_expression

FORMULA = get_family(FORMULA_FAMILY)


def _params(**changes):
    params = {
        "variables": {"d_k": {"choices": [1, 4, 16, 64]}},
        "answer": "d_k",
        "mistakes": {"std-for-variance": "sqrt(d_k)"},
        "prompt": "d_k = {@d_k@}",
    }
    return {**params, **changes}


def test_a_mistake_equal_to_the_answer_for_some_seeds_is_counted_and_withheld():
    params = _params()
    equal = [
        s
        for s in range(VALIDATION_SEEDS)
        if make_variant(FORMULA, params, s).givens["values"]["d_k"] == 1
    ]
    assert 0 < len(equal) < VALIDATION_SEEDS
    report = check_formula(params)
    assert report.seeds == 50
    assert report.withheld == {"std-for-variance": len(equal)}
    # On those variants the mistake is not offered; on the others it is.
    assert "std-for-variance" not in make_variant(FORMULA, params, equal[0]).mistakes
    other = next(s for s in range(VALIDATION_SEEDS) if s not in equal)
    assert "std-for-variance" in make_variant(FORMULA, params, other).mistakes


def test_a_mistake_that_always_equals_the_answer_is_refused():
    params = _params(mistakes={"same": "d_k * 1", "fine": "2 * d_k"})
    with pytest.raises(ParamError) as caught:
        check_formula(params)
    assert set(caught.value.errors) == {"mistakes.same"}
    assert (
        "equals the answer for every one of 50 seeds (first seed"
        in caught.value.errors["mistakes.same"]
    )


def test_a_value_that_is_not_finite_is_refused_on_its_field():
    params = _params(mistakes={"rooted": "sqrt(d_k - 2)"})
    with pytest.raises(ParamError) as caught:
        check_formula(params)
    assert (
        "mistake 'rooted' is not a finite number for seed" in caught.value.errors["mistakes.rooted"]
    )


def test_no_mistake_reports_nothing_withheld():
    assert check_formula(_params(mistakes={})).withheld == {}


def test_formula_errors_name_the_column_as_written():
    with pytest.raises(ParseError) as caught:
        compile_expression("d_k^2 + d_kk", ["d_k"])
    assert caught.value.column == 9
    assert caught.value.message.startswith("unknown name 'd_kk' at column 9;")
    with pytest.raises(ParseError) as caught:
        compile_expression("d_k $ 2", ["d_k"])
    assert caught.value.column == 5
    assert "'$' at column 5 is not allowed" in caught.value.message
    with pytest.raises(ParamError) as caught:
        validate_params(FORMULA, _params(answer="2 * d_kk"))
    assert "unknown name 'd_kk' at column 5" in caught.value.errors["answer"]


def test_a_mistake_may_name_its_misconception_and_own_feedback():
    params = _params(
        answer="d_k * 2",
        mistakes={
            "halved": {
                "formula": "d_k",
                "misconception": "std-for-variance",
                "feedback": "You forgot the factor 2.",
            },
            "plain": "d_k * 3",
        },
    )
    assert check_formula(params).withheld == {"halved": 0, "plain": 0}
    assert mistake_misconceptions(params) == {"halved": "std-for-variance", "plain": "plain"}
    variant = make_variant(FORMULA, params, 3)
    key = variant.grading_key
    halved = grade(
        FORMULA, variant.givens, format_answer(variant.mistakes["halved"]), grading_key=key
    )
    assert halved.misconception == "std-for-variance"
    assert halved.feedback.startswith("You forgot the factor 2.")
    assert "halved" not in halved.feedback
    plain = grade(
        FORMULA, variant.givens, format_answer(variant.mistakes["plain"]), grading_key=key
    )
    assert plain.misconception == "plain"
    assert "plain" not in plain.feedback


def test_mistake_entry_errors_point_to_their_key():
    params = _params(
        mistakes={
            "a": {"formula": 3},
            "b": {"formula": "d_k*2", "misconception": "Bad Code"},
            "c": {"formula": "d_k*3", "feedback": "x" * 2001},
            "d": {"formula": "d_k*4", "colour": 1},
        }
    )
    with pytest.raises(ParamError) as caught:
        validate_params(FORMULA, params)
    errors = caught.value.errors
    assert errors["mistakes.a.formula"] == "Give the mistake as a formula."
    assert "lowercase" in errors["mistakes.b.misconception"]
    assert "at most 2,000 characters" in errors["mistakes.c.feedback"]
    assert "Unknown key 'colour'" in errors["mistakes.d.formula"]


def test_a_vector_answer_is_graded_entry_by_entry():
    params = {
        "variables": {"a": {"choices": [2, 3]}, "b": {"choices": [5, 7]}},
        "shape": "vector",
        "answer": ["a + b", "a * b"],
        "mistakes": {"swapped": ["a * b", "a + b"]},
        "prompt": "a = {@a@}, b = {@b@}",
    }
    assert check_formula(params).withheld == {"swapped": 0}
    variant = make_variant(FORMULA, params, 1)
    a, b = variant.givens["values"]["a"], variant.givens["values"]["b"]
    assert variant.answer.tolist() == [a + b, a * b]
    assert FORMULA.answer_shape(variant.givens) == (2,)
    assert FORMULA.prompt(variant.givens).endswith("Give your answer as a vector of 2 numbers.")
    key = variant.grading_key
    assert (
        grade(FORMULA, variant.givens, f"[{a + b}, {a * b}]", grading_key=key).status == "correct"
    )
    swapped = grade(FORMULA, variant.givens, f"[{a * b}, {a + b}]", grading_key=key)
    assert swapped.misconception == "swapped"


def test_a_matrix_answer_and_shape_errors():
    params = {
        "variables": {"a": {"choices": [2, 3]}},
        "shape": "matrix",
        "answer": [["a", "0"], ["0", "2*a"]],
        "prompt": "a = {@a@}",
    }
    variant = make_variant(FORMULA, params, 0)
    assert FORMULA.answer_shape(variant.givens) == (2, 2)
    assert FORMULA.prompt(variant.givens).endswith("Give your answer as a 2 × 2 matrix.")
    a = variant.givens["values"]["a"]
    assert variant.answer.tolist() == [[a, 0], [0, 2 * a]]
    with pytest.raises(ParamError) as caught:
        validate_params(
            FORMULA,
            dict(params, answer=[["a", "0"], ["0"]], mistakes={"m": "a"}, shape="matrix"),
        )
    assert "rows of formulas" in caught.value.errors["answer"]
    with pytest.raises(ParamError) as caught:
        validate_params(FORMULA, dict(params, mistakes={"m": "a"}))
    assert caught.value.errors == {"mistakes.m": "Give the mistake in the answer's shape (matrix)."}
    with pytest.raises(ParamError) as caught:
        validate_params(FORMULA, dict(params, answer=[["a", "0"], ["0", "2*aa"]]))
    assert caught.value.errors["answer"].startswith(
        "In the answer formula, row 2, entry 2: unknown name 'aa' at column 3;"
    )
    with pytest.raises(ParamError) as caught:
        validate_params(FORMULA, dict(params, shape="cube"))
    assert caught.value.errors["shape"] == "The shape is one of number, vector, matrix."


def test_a_vector_answer_has_a_worked_solution():
    from grading.engine.solutions import worked_solution

    params = {
        "variables": {"a": {"choices": [2]}},
        "shape": "vector",
        "answer": ["a + 1", "2*a"],
        "prompt": "a = {@a@}",
    }
    variant = make_variant(FORMULA, params, 0)
    steps = worked_solution(FORMULA_FAMILY, variant.givens, variant.grading_key)
    assert "`[a + 1, 2*a]`" in steps[0]
    assert steps[-1].endswith("works out to $(3,\\ 4)$.")


def test_a_variable_may_fix_the_decimals_the_prompt_shows():
    params = {
        "variables": {"s": {"min": 0.5, "max": 0.5, "step": 0.5, "decimals": 2}},
        "answer": "s * 2",
        "prompt": "s = {@s@}",
    }
    variant = make_variant(FORMULA, params, 0)
    assert FORMULA.prompt(variant.givens) == "s = 0.50"
    assert variant.givens["values"] == {"s": 0.5}
    with pytest.raises(ParamError) as caught:
        validate_params(FORMULA, dict(params, variables={"s": {"choices": [1], "decimals": 11}}))
    assert "decimals" in caught.value.errors["variables.s"]


def test_every_given_of_a_shaped_formula_is_shown_to_the_learner():
    """The property test_families checks for every family, for the givens a vector answer and
    a fixed number of decimals add."""
    from tests.grading.engine.test_families import _leaves, _replaced

    params = {
        "variables": {
            "a": {"choices": [2, 3], "decimals": 1},
            "b": {"min": 1, "max": 5, "step": 1},
        },
        "shape": "vector",
        "answer": ["a + b", "a * b"],
        "prompt": "a = {@a@}, b = {@b@}",
    }
    for seed in range(5):
        givens = make_variant(FORMULA, params, seed).givens
        assert set(givens) == {"values", "prompt", "decimals", "shape"}
        prompt = FORMULA.prompt(givens)
        for path, leaf in _leaves(givens):
            changed = leaf + " (changed)" if isinstance(leaf, str) else leaf + 1
            assert FORMULA.prompt(_replaced(givens, path, changed)) != prompt, (seed, path)
