"""Discovering new misconceptions among unexplained wrong answers: hand-made answers whose relation
to the true answer is known, the rule against coincidence, and noise that must form no group."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from grading.engine.answers import compile_expression
from teaching.discovery import mistakes as md
from teaching.discovery.mistakes import WrongAnswer, discover

# A formula problem whose answer is d_k * s^2, and five of its variants: id → (givens, answer).
ANSWER_FORMULA = "d_k * s^2"
VARIANTS = {
    1: ({"d_k": 16.0, "s": 0.5}, 4.0),
    2: ({"d_k": 64.0, "s": 1.5}, 144.0),
    3: ({"d_k": 256.0, "s": 2.0}, 1024.0),
    4: ({"d_k": 32.0, "s": 1.0}, 32.0),
    5: ({"d_k": 128.0, "s": 2.5}, 800.0),
}
# Wrong values that no relation explains (each checked by test_the_noise_alone_forms_no_group).
NOISE = [(7, 2, 150.3), (8, 3, 977.0), (9, 4, 29.5), (10, 5, 612.0), (11, 1, 7.3), (12, 2, 88.1)]


def wrong(learner: int, variant: int, value: float) -> WrongAnswer:
    givens, answer = VARIANTS[variant]
    return WrongAnswer(learner=learner, variant=variant, value=value, answer=answer, givens=givens)


def noise() -> list[WrongAnswer]:
    return [wrong(*row) for row in NOISE]


def test_answers_times_the_root_of_d_k_form_one_group():
    # Learners who multiplied by √d_k where they should have divided or left it out, rounded
    # as learners round: 4·4 = 16, 144·8 = 1152, 1024·16 = 16384, 32·√32 = 181.02, 800·√128.
    scaled = [(1, 1, 16.0), (2, 2, 1152.0), (3, 3, 16384.0), (4, 4, 181.0), (5, 1, 16.0)]
    scaled.append((6, 5, 9051.0))
    groups = discover([wrong(*row) for row in scaled] + noise())
    assert len(groups) == 1
    group = groups[0]
    assert group.code == "times-sqrt-d-k"
    assert group.description == "the answer × √d_k"
    assert group.formula == "answer * sqrt(d_k)"
    assert (group.count, group.variants, group.learners) == (6, 5, (1, 2, 3, 4, 5, 6))
    # Examples: distinct values, in the order given.
    assert [(e.learner, e.value, e.answer) for e in group.examples] == [
        (1, 16.0, 4.0),
        (2, 1152.0, 144.0),
        (3, 16384.0, 1024.0),
        (4, 181.0, 32.0),
        (6, 9051.0, 800.0),
    ]


def test_a_group_becomes_a_named_mistake_of_the_formula_problem():
    """The group's formula, with the problem's answer formula in place of `answer`, is a formula
    the problem can carry, and it gives the learners' values."""
    scaled = [(1, 1, 16.0), (2, 2, 1152.0), (3, 3, 16384.0), (4, 4, 181.0)]
    (group,) = discover([wrong(*row) for row in scaled])
    formula = md.mistake_formula(group.formula, ANSWER_FORMULA)
    assert formula == "(d_k * s^2) * sqrt(d_k)"
    expression = compile_expression(formula, {"d_k", "s"})
    for _learner, variant, value in scaled:
        assert expression.evaluate(VARIANTS[variant][0]) == pytest.approx(value, rel=md.RTOL)
    assert re.fullmatch(r"[a-z0-9][a-z0-9-]*", group.code)


@pytest.mark.parametrize(
    ("values", "code", "formula"),
    [
        # The square: 4² = 16, 32² = 1024, 144² = 20736.
        ({1: 16.0, 4: 1024.0, 2: 20736.0}, "squared", "answer^2"),
        # ÷ d_k: s² left alone, 0.25, 2.25, 1, 6.25.
        ({1: 0.25, 2: 2.25, 4: 1.0, 5: 6.25}, "over-d-k", "answer / d_k"),
        # × s ÷ d_k (a product or quotient of givens): s³, 0.125, 3.375, 8.
        ({1: 0.125, 2: 3.375, 3: 8.0}, "times-s-over-d-k", "answer * s / d_k"),
        # A constant ratio: 2.5 × the answer, 10, 360, 80.
        ({1: 10.0, 2: 360.0, 4: 80.0}, "ratio-2-5", "answer * 2.5"),
        # A constant difference: the answer − 3, 1, 29, 141 (on 1024 and 800, 3 is within 1%).
        ({1: 1.0, 4: 29.0, 2: 141.0}, "difference-minus-3", "answer - 3"),
    ],
)
def test_each_kind_of_relation_is_found(values, code, formula):
    answers = [
        wrong(learner, variant, value)
        for learner, (variant, value) in enumerate(list(values.items()) * 2, start=1)
    ]
    groups = discover(answers + noise())
    assert [(group.code, group.formula, group.count) for group in groups] == [
        (code, formula, len(answers))
    ]


def test_a_value_two_relations_explain_goes_to_the_simpler():
    # n = 10 on every variant: × 10 and × n give the same values; × 10 comes first.
    variants = {1: 2.0, 2: 3.5, 3: 7.0}
    answers = [
        WrongAnswer(learner, variant, variants[variant] * 10, variants[variant], {"n": 10.0})
        for learner, variant in enumerate([1, 2, 3, 1, 2, 3], start=1)
    ]
    (group,) = discover(answers)
    assert (group.code, group.formula, group.count) == ("times-10", "answer * 10", 6)


def test_small_numbers_typed_on_every_variant_are_no_relation():
    """Learners who type 4, 9 or 16 whatever they are asked. Where the answer is 2, 3 or 4 those
    are its square, on three variants with three different squares; but the same numbers land on
    every other variant as often, so the square explains nothing."""
    variants = {
        **VARIANTS,
        6: ({"d_k": 8.0, "s": 0.5}, 2.0),
        7: ({"d_k": 12.0, "s": 0.5}, 3.0),
    }
    answers = [
        WrongAnswer(learner, variant, value, variants[variant][1], variants[variant][0])
        for learner, (variant, value) in enumerate(
            ((v, value) for v in variants for value in (4.0, 9.0, 16.0)), start=1
        )
        if value != variants[variant][1]
    ]
    squares = [a for a in answers if a.value == a.answer**2]
    assert len({a.variant for a in squares}) == 3
    assert discover(answers) == []
    # The same three squares among answers that are not typed everywhere do form a group.
    assert [g.code for g in discover(squares * 2 + noise())] == ["squared"]


def test_a_small_number_typed_on_one_variant_is_no_relation():
    """16 typed for the answer 4 with d_k = 16 is its square and the answer × √d_k: one
    value, on one variant, however many learners type it."""
    answers = [wrong(learner, 1, 16.0) for learner in range(1, 7)]
    assert discover(answers) == []


def test_one_relation_value_on_several_variants_is_not_enough():
    # Two variants with the same d_k and answer: × √d_k is 16 on both, a coincidence of one value.
    twin = {"d_k": 16.0, "s": 0.5}
    answers = [
        WrongAnswer(learner, variant, 16.0, 4.0, twin)
        for learner, variant in [(1, 1), (2, 9), (3, 1), (4, 9), (5, 1), (6, 9)]
    ]
    # Among answers to other variants that land nowhere near 16, so chance alone would not do.
    assert discover(answers + noise()) == []


def test_one_learner_retrying_is_no_group():
    scaled = [(1, 1, 16.0), (1, 2, 1152.0), (1, 3, 16384.0), (1, 4, 181.0), (1, 1, 16.0)]
    assert discover([wrong(*row) for row in scaled]) == []


def test_the_noise_alone_forms_no_group():
    assert discover(noise()) == []
    assert discover([]) == []


@pytest.mark.parametrize("seed", range(20))
def test_random_wrong_answers_form_no_group(seed):
    rng = np.random.default_rng(seed)
    answers = []
    for learner in range(60):
        variant = int(rng.integers(1, 6))
        givens, answer = VARIANTS[variant]
        # Anything from a hundredth to a hundred times the answer, or a small whole number.
        value = (
            answer * float(np.exp(rng.uniform(-4.6, 4.6)))
            if learner % 3
            else float(rng.integers(0, 11))
        )
        if value != answer:
            answers.append(WrongAnswer(learner, variant, value, answer, givens))
    assert discover(answers) == []


def test_numeric_givens_flattens_a_formula_problems_values():
    givens = {"values": {"d_k": 64, "s": 1.5, "flag": True}, "prompt": "Var(q·k)?", "q": [1, 2]}
    assert md.numeric_givens(givens) == {"d_k": 64.0, "s": 1.5}
    assert md.numeric_givens({"d_k": 16, "sigma": math.inf, "tau": 0.5}) == {
        "d_k": 16.0,
        "tau": 0.5,
    }


@pytest.mark.parametrize(
    ("name", "width"),
    [
        ("d_k", True),
        ("d", True),
        ("d_model", True),
        ("n", True),
        ("heads", True),
        ("dk", False),
        ("s", False),
        ("data", False),
    ],
)
def test_which_givens_are_widths(name, width):
    assert md.is_width(name) is width


def test_every_relation_formula_gives_the_relations_value():
    """Each relation's formula, read by the engine that reads learners' answers, computes what
    the relation computes: the formula an instructor copies is the one that found the group."""
    givens = {"d_k": 64.0, "s": 1.5, "T": 3.0}
    answer = 7.25
    names = {*givens, "answer"}
    relations = md.fixed_relations(givens)
    codes = [relation.code for relation in relations]
    assert len(codes) == len(set(codes))
    for relation in relations:
        assert re.fullmatch(r"[a-z0-9][a-z0-9-]*", relation.code), relation.code
        expected = relation.value(np.array([answer]), {k: np.array([v]) for k, v in givens.items()})
        computed = compile_expression(relation.formula, names).evaluate(
            {**givens, "answer": answer}
        )
        assert computed == pytest.approx(float(expected[0]), rel=1e-12), relation.formula


def test_mistake_formula_replaces_the_word_answer_only():
    assert md.mistake_formula("1 / answer", "a + b") == "1 / (a + b)"
    assert md.mistake_formula("answer * answers", "x") == "(x) * answers"


def test_a_value_that_is_not_a_number_is_refused():
    with pytest.raises(ValueError, match="finite number"):
        discover([WrongAnswer(1, 1, math.nan, 4.0, {})])


@pytest.mark.parametrize(
    ("k", "n", "p"), [(0, 5, 0.3), (1, 1, 0.5), (3, 7, 0.038), (6, 12, 0.2), (9, 8, 0.5)]
)
def test_the_binomial_tail_is_the_sum_of_its_terms(k, n, p):
    exact = sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))
    assert md._binomial_tail(k, n, p) == pytest.approx(exact, rel=1e-12, abs=1e-300)


def test_a_group_names_the_responses_that_fit_it():
    """The data layer links a group's learners to their attempts through these ids."""
    scaled = [(1, 1, 16.0), (2, 2, 1152.0), (3, 3, 16384.0), (4, 4, 181.0)]
    answers = [
        WrongAnswer(learner, variant, value, VARIANTS[variant][1], VARIANTS[variant][0], 100 + i)
        for i, (learner, variant, value) in enumerate(scaled)
    ]
    answers += [
        WrongAnswer(learner, variant, value, VARIANTS[variant][1], VARIANTS[variant][0], 200 + i)
        for i, (learner, variant, value) in enumerate(NOISE)
    ]
    (group,) = discover(answers)
    assert group.responses == (100, 101, 102, 103)
