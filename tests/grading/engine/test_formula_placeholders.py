"""{@name@} placeholders: they show a variable's value, and LaTeX braces never do."""

import pytest

from grading.engine import FORMULA_FAMILY, ParamError, get_family, make_variant
from grading.engine.problems.formula_placeholders import (
    old_placeholders,
    placeholder_errors,
    placeholders_upgraded,
    substitute_placeholders,
)
from grading.engine.solutions import worked_solution

FORMULA = get_family(FORMULA_FAMILY)


def _params(prompt, solution=None):
    params = {
        "variables": {"d_k": {"choices": [64]}, "s": {"choices": [0.5]}},
        "answer": "d_k * s^2",
        "prompt": prompt,
    }
    if solution is not None:
        params["solution"] = solution
    return params


def test_latex_braces_stay_latex_when_a_variable_has_the_same_name():
    variant = make_variant(FORMULA, _params("Why $\\sqrt{d_k}$ when $d_k = {@d_k@}$?"), 1)
    assert FORMULA.prompt(variant.givens) == "Why $\\sqrt{d_k}$ when $d_k = 64$?"


def test_placeholders_work_inside_a_command_argument_and_with_fixed_decimals():
    text = "$\\sqrt{{@d_k@}}$ and {@s@} and {@unknown@}"
    assert substitute_placeholders(text, {"d_k": 64, "s": 0.5}, {"s": 2}) == (
        "$\\sqrt{64}$ and 0.50 and {@unknown@}"
    )


def test_a_variable_shown_only_as_latex_is_hidden_from_the_givens():
    variant = make_variant(
        FORMULA, _params("Give the variance of $\\sqrt{d_k} s$ for s = {@s@}."), 1
    )
    assert variant.givens["values"] == {"s": 0.5}
    assert variant.grading_key["hidden_values"] == {"d_k": 64}


def test_the_worked_solution_fills_in_placeholders_and_keeps_latex():
    params = _params("{@d_k@}", ["$\\sqrt{d_k} = \\sqrt{{@d_k@}}$", "Spread {@s@}."])
    variant = make_variant(FORMULA, params, 1)
    steps = worked_solution(FORMULA_FAMILY, variant.givens, variant.grading_key)
    assert steps[:2] == ("$\\sqrt{d_k} = \\sqrt{64}$", "Spread 0.5.")


@pytest.mark.parametrize(
    ("prompt", "message"),
    [
        ("Width {d_k}.", "{d_k} shows the text {d_k}: placeholders are written {@d_k@}"),
        ("$d_k = {d_k}$", "{d_k} inside $…$ is a LaTeX group that shows the letters d_k"),
        ("$\\frac{{d_k}}{2}$", "{d_k} inside $…$ is a LaTeX group"),
        ("Width {@dk@}.", "{@dk@} names no variable (the variables: d_k, s)."),
        ("Width {@ d_k @}.", "{@ d_k @} is not a placeholder: write {@name@}"),
        ("Width {@d_k}.", "{@d_k} is not a placeholder"),
    ],
)
def test_the_old_syntax_and_unknown_placeholders_are_refused_with_the_new_syntax(prompt, message):
    with pytest.raises(ParamError) as caught:
        FORMULA.clean_params(_params(prompt))
    assert message in caught.value.errors["prompt"]


def test_a_solution_step_with_the_old_syntax_is_refused_by_number():
    with pytest.raises(ParamError) as caught:
        FORMULA.clean_params(_params("{@d_k@}", ["Fine {@s@}.", "Old {s}."]))
    assert caught.value.errors["solution"].startswith("Step 2: {s} shows the text {s}")


@pytest.mark.parametrize(
    "prompt",
    [
        "$\\sqrt{d_k}$",
        "$\\mathbb{R}^{d_k}$ and $x_{s}$",
        "$\\frac{d_k}{s}$ and $\\frac {s} {d_k}$",
        "$\\operatorname{Var}(q) = \\sigma^2$ {other} and \\{d_k\\}",
        "$\\sqrt[s]{d_k}$",
    ],
)
def test_latex_groups_and_other_braces_are_accepted(prompt):
    assert placeholder_errors(prompt, {"d_k", "s"}) == []
    assert placeholders_upgraded(prompt, {"d_k", "s"}) == prompt


def test_upgrading_converts_only_what_was_shown_as_a_value():
    text = "Spread {s}; $d_k = {d_k}$, $\\sqrt{d_k}$, $\\frac{{s}}{2}$, $${d_k}^2$$, {other}."
    assert placeholders_upgraded(text, {"d_k", "s"}) == (
        "Spread {@s@}; $d_k = {@d_k@}$, $\\sqrt{d_k}$, $\\frac{{@s@}}{2}$, $${@d_k@}^2$$, {other}."
    )
    assert [(old.name, old.in_math) for old in old_placeholders(text, {"d_k", "s"})] == [
        ("s", False),
        ("d_k", True),
        ("s", True),
        ("d_k", True),
    ]
