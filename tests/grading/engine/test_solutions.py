"""Worked solutions: every family has one, each shows the variant's own numbers, and the numbers
at a fixed seed are the ones worked out by hand below."""

import re

import pytest

from courses.markup import check_markup
from grading.engine import FAMILIES, ParamError, get_family, make_variant
from grading.engine.solutions import SOLVED_FAMILIES, worked_solution

SEED = 2024  # the givens of each family at this seed are pinned in test_families.GOLDEN

# Each family at seed 2024 with its default parameters: the givens, and what a learner would
# write on paper at each step (worked out by hand from the givens, not by the engine).
BY_HAND = {
    # d_k = 32, σq = 2, σk = 0.5: σq²σk² = 4 · 0.25 = 1, Var = 32 · 1 = 32.
    "dot-variance": ["d_k = 32", "2^2 \\cdot 0.5^2 = 1", "32 \\cdot 1 = 32"],
    # √32 · 2 · 0.5 = 5.656854…
    "dot-std": ["32 \\cdot 1 = 32", "\\sqrt{32} \\cdot 2 \\cdot 0.5 = 5.65685"],
    # 16 / 16² = 0.0625
    "scaled-variance": ["= d_k = 16", "\\frac{16}{16^2} = 0.0625"],
    # 2² · 3² = 36, 512 · 36 = 18432, √512 · 2 · 3 = 135.7645…
    "scale-for-unit-variance": [
        "2^2 \\cdot 3^2 = 36",
        "512 \\cdot 36 = 18432",
        "\\sqrt{512} \\cdot 2 \\cdot 3 = 135.765",
        "divides its scores by $\\sqrt{d_k}$",
    ],
    # √d_k = 4, so d_k = 16
    "width-for-std": ["\\sqrt{d_k} = 4", "d_k = 4^2 = 16"],
    # 0.66 + 1.04 + 0.48 + 1 + 2.24 − 0.51 + 2.6 = 7.51; √7 = 2.6458; 7.51 / √7 = 2.83851
    "scaled-dot": [
        "(-1.1) \\cdot (-0.6) + (-0.8) \\cdot (-1.3) + 1.2 \\cdot 0.4",
        "= 7.51$$",
        "\\sqrt{7} \\approx 2.646",
        "\\frac{7.51}{\\sqrt{7}} = 2.83851",
    ],
    # e^-1.7 = 0.18268, e^-1.1 = 0.33287, e^1.8 = 6.0496; sum 6.5652; p = 0.027826, …
    "softmax": ["(0.1827,\\ 0.3329,\\ 6.05)", "= 6.565", "(0.027826,\\ 0.0507023,\\ 0.921472)"],
    # z = (-1.1, -0.8, 1.2), i = 3, j = 1 as learners count: p1 = 0.08114, p3 = 0.8093,
    # slope −p3 p1 = −0.065671
    "softmax-slope": [
        "(0.08114,\\ 0.1095,\\ 0.8093)",
        "$i = 3$ and $j = 1$",
        "-p_{3}\\,p_{1} = -0.8093 \\cdot 0.08114 = -0.0656706",
    ],
    # J11 = 0.08114 · 0.91886 = 0.07456; J12 = −0.08114 · 0.1095 = −0.008888
    "softmax-jacobian": [
        "J_{11} = 0.08114(1 - 0.08114) = 0.07456",
        "J_{12} = J_{21} = -0.08114 \\cdot 0.1095 = -0.008888",
        "\\begin{pmatrix} 0.07456 & -0.008888 & -0.06567",
    ],
    # c z = (-8.8, -6.4, 9.6); the others hold e^-18.4 + e^-16 ≈ 1.227e-7 of the weight
    "saturation-max-prob": [
        "(-8.8,\\ -6.4,\\ 9.6)",
        "1 - 1.227 \\times 10^{-7} \\approx 1",
        "only $0.8093$",
    ],
    # c z = (-11.2, -13.6, -10.4, -4.8, -10.4); p4 = 1 / (1 + e^-6.4 + e^-8.8 + 2 e^-5.6)
    # = 0.99088; J44 = p4 (1 − p4) = 0.0090408
    "saturated-slope": [
        "(-11.2,\\ -13.6,\\ -10.4,\\ -4.8,\\ -10.4)",
        "0.9909",
        "$J_{44}$",
        "= 0.00904076",
    ],
}


def test_every_family_has_a_worked_solution():
    assert set(FAMILIES) == SOLVED_FAMILIES
    assert sorted(BY_HAND) == sorted(key for key in FAMILIES if key != "formula")


@pytest.mark.parametrize("key", sorted(BY_HAND))
def test_steps_show_the_numbers_worked_out_by_hand(key):
    variant = make_variant(get_family(key), {}, SEED)
    steps = worked_solution(key, variant.givens, variant.grading_key)
    assert len(steps) >= 2
    text = "\n".join(steps)
    for expected in BY_HAND[key]:
        assert expected in text, expected


@pytest.mark.parametrize("key", sorted(BY_HAND))
@pytest.mark.parametrize("seed", range(8))
def test_steps_render_and_end_with_this_variants_answer(key, seed):
    variant = make_variant(get_family(key), {}, seed)
    steps = worked_solution(key, variant.givens)
    for step in steps:
        assert check_markup(step) == [], step
    # The answer to four significant digits appears in the steps, whatever the seed.
    answer = variant.answer.ravel()
    shown = re.findall(r"-?\d+(?:\.\d+)?(?: \\times 10\^\{-?\d+\})?", "\n".join(steps))
    numbers = {_number(text) for text in shown}
    for value in answer[:3]:
        assert any(abs(value - n) <= 5e-4 * max(abs(value), 1e-12) for n in numbers), value


def _number(text: str) -> float:
    if "\\times" in text:
        mantissa, power = text.split(" \\times 10^{")
        return float(mantissa) * 10 ** int(power.rstrip("}"))
    return float(text)


FORMULA_PARAMS = {
    "variables": {"d_k": {"choices": [16, 64]}, "s": {"min": 0.5, "max": 2, "step": 0.5}},
    "answer": "d_k * s^2",
    "prompt": "Components have spread {@s@} in a head of width {@d_k@}.",
}


def test_formula_without_a_template_substitutes_the_numbers_into_the_answer_formula():
    formula = get_family("formula")
    variant = make_variant(formula, FORMULA_PARAMS, 3)
    assert variant.givens["values"] == {"d_k": 64, "s": 0.5}
    steps = worked_solution("formula", variant.givens, variant.grading_key)
    assert steps == (
        "The answer is given by the formula `d_k * s^2`.",
        "Your variant's numbers are `d_k = 64`, `s = 0.5`.",
        "Put them into the formula: `64 * 0.5^2`, which works out to $16$.",
    )


def test_formula_template_fills_in_every_variable_shown_or_hidden():
    params = {
        **FORMULA_PARAMS,
        "prompt": "A head of width {@d_k@}.",  # s is not shown in the prompt: a hidden value
        "solution": [
            "Square the spread: {@s@}^2.",
            "Multiply by the width {@d_k@}; {other} stays.",
        ],
    }
    variant = make_variant(get_family("formula"), params, 3)
    assert "s" not in variant.givens["values"]
    assert "solution" not in variant.givens  # the template is kept with the formulas
    steps = worked_solution("formula", variant.givens, variant.grading_key)
    assert steps == (
        "Square the spread: 0.5^2.",
        "Multiply by the width 64; {other} stays.",
        "For your numbers the answer is $16$.",
    )


def test_formula_negative_values_are_bracketed_and_function_names_kept():
    params = {
        "variables": {"x": {"choices": [-2]}, "y": {"choices": [3]}},
        "answer": "sqrt(y^2) + x^2",
        "prompt": "x = {@x@}, y = {@y@}",
    }
    variant = make_variant(get_family("formula"), params, 0)
    steps = worked_solution("formula", variant.givens, variant.grading_key)
    assert "`sqrt(3^2) + (-2)^2`" in steps[-1]
    assert steps[-1].endswith("$7$.")


@pytest.mark.parametrize(
    "solution",
    ["one string", [""], [1, 2], ["step"] * 21, ["x" * 10_001]],
)
def test_a_bad_solution_template_is_refused_with_a_message(solution):
    with pytest.raises(ParamError) as raised:
        get_family("formula").clean_params({**FORMULA_PARAMS, "solution": solution})
    assert "list of at most 20 steps" in raised.value.errors["solution"]
