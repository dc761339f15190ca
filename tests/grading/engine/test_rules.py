"""The engine's rules (grading.engine.rules): each fires with its own sentence and never states the
right value; none fires on a right answer of any family on 200 seeds; none fires beyond its
stated margin; one answer and a regrade agree on every rule."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from grading.engine import (
    ANSWER_KINDS,
    FAMILIES,
    RULES,
    Family,
    Solution,
    Tolerance,
    format_answer,
    get_family,
    grade,
    grade_many,
    make_variant,
    rule_for,
)
from grading.engine.answers import format_number
from grading.engine.feedback import (
    explain_after_slips,
    figures_needed,
)
from grading.engine.problems.base import NO_KEY
from grading.engine.problems.softmax import jacobian, softmax
from grading.engine.rules import (
    NEAR_MISSES,
    STRUCTURES,
)
from grading.engine.structure import CHECKS

FIXED_FAMILIES = sorted(key for key in FAMILIES if key != "formula")
OLD_SLIP_CODES = {
    "sign-flipped",
    "power-of-ten",
    "factor-sqrt-dk",
    "factor-dk",
    "squared",
    "square-rooted",
    "rounded-too-coarsely",
}
DOT = {"d_k": 64, "sigma_q": 1.5, "sigma_k": 2.0}  # variance 576, standard deviation 24
SCALED_DOT = {"q": [1.0, 2.0, 0.5, 1.5], "k": [0.5, 1.0, 2.0, 1.0]}  # 5 / √4 = 2.5
Z = [1.0, -0.5, 0.3]
P = softmax(Z)
J = jacobian(P)
SLOPE = {"z": [1.5, -0.4, 0.2]}
SCALED = {"z": [1.5, -0.4, 0.2], "c": 4.0}
# A symmetric change with rows summing to 0 that makes cell (1, 2) positive.
PAIR = np.array([[1.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [0.0, 0.0, 0.0]])


class OneNumber(Family):
    """The number x of the givens, of a chosen answer kind, with no listed mistakes: only the
    engine's generic rules can explain a wrong answer to it."""

    version = 1
    title = "One number"
    param_specs = ()
    default_tolerance = Tolerance(atol=0.0, rtol=0.01)
    mistakes: dict[str, str] = {}

    def __init__(self, answer_kind: str | None) -> None:
        self.key = f"one-{answer_kind}"
        self.answer_kind = answer_kind

    def draw(self, rng: np.random.Generator, params: dict[str, Any]) -> dict[str, Any]:
        """A number from 2 to 49."""
        return {"x": float(rng.integers(2, 50))}

    def solve(self, givens: Mapping[str, Any], grading_key: Mapping[str, Any] = NO_KEY) -> Solution:
        """x itself."""
        return Solution(answer=np.array(float(givens["x"])))

    def answer_shape(self, givens: Mapping[str, Any]) -> tuple[int, ...]:
        """A number."""
        return ()

    def prompt(self, givens: Mapping[str, Any]) -> str:
        """Ask for x."""
        return f"What is {givens['x']}?"


def family_for(key: str) -> Family:
    return OneNumber(key.removeprefix("one-")) if key.startswith("one-") else get_family(key)


# code → (family, givens, typed value, tolerance or None, a phrase of its sentence)
EXAMPLES: dict[str, tuple[str, dict[str, Any], Any, Tolerance | None, str]] = {
    "sign-flipped": ("dot-variance", DOT, -576.0, None, "wrong sign"),
    "percentage-for-fraction": ("softmax", {"z": Z}, P * 100, None, "percentage"),
    "factor-sqrt-dk": ("dot-variance", DOT, 4608.0, None, "factor of √dₖ = 8"),
    "factor-dk": ("scaled-dot", SCALED_DOT, 0.625, None, "too small by a factor of dₖ = 4"),
    "standard-deviation-for-variance": ("one-variance", {"x": 30.25}, 5.5, None, "a standard"),
    "variance-for-standard-deviation": ("one-standard-deviation", {"x": 6.5}, 42.25, None, "a var"),
    "squared": ("scaled-dot", SCALED_DOT, 6.25, None, "square of the correct one"),
    "square-rooted": ("scaled-dot", SCALED_DOT, 2.5**0.5, None, "square root of the correct"),
    "reciprocal": ("scale-for-unit-variance", DOT, 1 / 24, None, "reciprocal"),
    "power-of-ten": ("dot-variance", DOT, 57.6, None, "too small by a factor of 10:"),
    "probabilities-permuted": ("softmax", {"z": Z}, P[[1, 0, 2]], None, "wrong order"),
    "rounded-too-coarsely": (
        "dot-variance",
        DOT,
        580.0,
        Tolerance(atol=0.0, rtol=0.001),
        "give at least 3 significant figures",
    ),
    "probability-out-of-range": ("softmax", {"z": Z}, [0.5, -0.1, 0.6], None, "never negative"),
    "probabilities-do-not-sum-to-1": ("softmax", {"z": Z}, [0.5, 0.2, 0.2], None, "add up"),
    "logit-order-not-kept": ("softmax", {"z": Z}, [0.2, 0.5, 0.3], None, "larger logit"),
    "largest-probability-below-uniform": ("saturation-max-prob", SCALED, 0.2, None, "1/3"),
    "slope-sign": ("softmax-slope", {**SLOPE, "i": 0, "j": 1}, 0.05, None, "fixed sign"),
    "slope-magnitude-negative": ("saturated-slope", SCALED, -0.001, None, "never negative"),
    "jacobian-not-symmetric": ("softmax-jacobian", {"z": Z}, J + 0.05 * np.eye(3, k=1), None, ""),
    "jacobian-rows-do-not-sum-to-0": ("softmax-jacobian", {"z": Z}, J + 0.02 * np.eye(3), None, ""),
    "jacobian-signs-flipped": (
        "softmax-jacobian",
        {"z": Z},
        -jacobian(softmax([0.2, 0.9, -1.0])),
        None,
        "flipped",
    ),
    "jacobian-sign-pattern": ("softmax-jacobian", {"z": Z}, J - 0.1 * PAIR, None, "signs"),
    "slope-too-large": ("softmax-slope", {**SLOPE, "i": 0, "j": 0}, 0.4, None, "1/4"),
    "jacobian-probabilities-permuted": (
        "softmax-jacobian",
        {"z": Z},
        jacobian(P[[1, 0, 2]]),
        None,
        "wrong order",
    ),
    "jacobian-from-other-probabilities": (
        "softmax-jacobian",
        {"z": Z},
        jacobian(softmax([0.2, 0.9, -1.0])),
        None,
        "p = (0.302, 0.607, 0.0909)",
    ),
    # Symmetric, rows summing to 0, the right signs, but 0.2 = q(1 − q) and 0.1 = q q disagree.
    "jacobian-not-softmax-form": (
        "softmax-jacobian",
        {"z": Z},
        np.array([[0.2, -0.1, -0.1], [-0.1, 0.2, -0.1], [-0.1, -0.1, 0.2]]),
        None,
        "no probability vector p gives it",
    ),
    "negative-variance": ("dot-variance", DOT, -100.0, None, "never negative"),
    "negative-standard-deviation": ("dot-std", DOT, -10.0, None, "never negative"),
    "divisor-not-positive": ("scale-for-unit-variance", DOT, -3.0, None, "positive number"),
}


def test_every_rule_has_an_example_and_every_structural_rule_a_check():
    assert set(EXAMPLES) == set(RULES)
    assert set(CHECKS) == set(STRUCTURES)
    assert set(NEAR_MISSES) | set(STRUCTURES) == set(RULES)


def test_the_older_slip_codes_are_kept_as_near_misses():
    # Stored responses carry these codes: renaming one would orphan them on instructor pages.
    assert {code for code in OLD_SLIP_CODES if RULES[code].kind == "near-miss"} == OLD_SLIP_CODES


def test_rule_for_labels_stored_codes_and_ignores_unknown_ones():
    assert rule_for("jacobian-rows-do-not-sum-to-0").title == "rows do not sum to 0"
    assert rule_for("jacobian-rows-do-not-sum-to-0").kind == "structure"
    assert rule_for("no-such-rule") is None
    assert rule_for(None) is None


def test_the_readme_mistakes_section_lists_every_rule():
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("**Mistakes the engine names.**") :]
    section = section[: section.index("**The coincidence rule.**")]
    assert [code for code in RULES if f"`{code}`" not in section] == []


def test_only_too_few_significant_figures_keeps_the_try():
    assert [code for code, rule in RULES.items() if not rule.costs_try] == ["rounded-too-coarsely"]


def test_every_family_and_rule_names_known_answer_kinds():
    assert all(rule.kinds <= set(ANSWER_KINDS) for rule in RULES.values())
    kinds = {key: FAMILIES[key].answer_kind for key in FAMILIES}
    assert set(kinds.values()) - {None} <= set(ANSWER_KINDS)
    # A head width and an author's formula get only the rules every answer gets.
    assert {key for key, kind in kinds.items() if kind is None} == {"width-for-std", "formula"}


def _right_value_texts(answer: np.ndarray) -> set[str]:
    """The right answer written as a learner or a leak might write it."""
    texts = {format_answer(answer), *(format_answer(answer, sig) for sig in range(3, 7))}
    for entry in np.asarray(answer).reshape(-1).tolist():
        texts |= {format_number(entry, sig) for sig in range(3, 7)}
    return {text for text in texts if len(text) >= 3}


@pytest.mark.parametrize("code", sorted(EXAMPLES))
def test_each_rule_fires_with_its_sentence_and_never_the_right_value(code):
    key, givens, typed, tolerance, phrase = EXAMPLES[code]
    family = family_for(key)
    text = format_answer(np.asarray(typed, dtype=np.float64))
    verdict = grade(family, givens, text, tolerance)
    rule = RULES[code]
    assert verdict.status == "incorrect"
    assert (verdict.detail["diagnosis"], verdict.detail["finding"]) == (code, rule.kind)
    assert verdict.costs_try is rule.costs_try
    assert phrase in verdict.feedback
    answer = family.solve(givens).answer
    for right in _right_value_texts(answer):
        assert right not in verdict.feedback, (code, right)
    # One answer (the number path for numbers) and a regrade give the same verdict.
    assert grade_many(family, givens, [text], tolerance) == [verdict]
    if rule.misconception is not None and rule.misconception in family.mistakes:
        assert verdict.misconception == rule.misconception


def test_a_rule_points_to_its_misconception_only_where_the_family_lists_it():
    # Softmax lists no-normalisation; the sum rule names it there.
    verdict = grade(get_family("softmax"), {"z": Z}, "[0.5, 0.2, 0.2]")
    assert verdict.misconception == "no-normalisation"
    # The one-number family lists no misconception, so its near miss names none.
    verdict = grade(OneNumber("variance"), {"x": 30.25}, "5.5")
    assert (verdict.detail["diagnosis"], verdict.misconception) == (
        "standard-deviation-for-variance",
        None,
    )


def _within_tolerance_variants(answer: np.ndarray, tol: Tolerance, rng: np.random.Generator):
    """The right answer, rounded to the figures it needs, and nudged within tolerance."""
    allowed = np.maximum(tol.atol, tol.rtol * np.abs(answer))
    needed = figures_needed(answer, allowed)
    with np.errstate(divide="ignore", invalid="ignore"):
        unit = 10.0 ** (np.floor(np.log10(np.abs(answer))) - needed + 1)
        rounded = np.where(answer == 0, 0.0, np.round(answer / unit) * unit)
    nudged = answer + allowed * rng.uniform(-1, 1, answer.shape) * 0.999
    return np.stack([answer, rounded, nudged])


@pytest.mark.parametrize("key", FIXED_FAMILIES)
def test_no_rule_fires_on_a_right_answer_on_200_seeds(key):
    family = get_family(key)
    tol = family.default_tolerance
    rng = np.random.default_rng(24)
    for seed in range(200):
        variant = make_variant(family, {}, seed)
        answer = np.asarray(variant.answer, dtype=np.float64)
        values = _within_tolerance_variants(answer, tol, rng)
        allowed = np.maximum(tol.atol, tol.rtol * np.abs(answer))
        within = (np.abs(values - answer) <= allowed).reshape(3, -1).all(axis=1)
        assert within.all(), seed
        found = explain_after_slips(
            values, answer, allowed, tol, family.answer_kind, variant.givens
        )
        assert found == [None, None, None], (seed, found)
        # Through the whole judge: each is correct, with no diagnosis and no finding.
        verdicts = grade_many(family, variant.givens, [format_answer(v, 17) for v in values])
        assert {(v.status, v.detail["diagnosis"], v.detail["finding"]) for v in verdicts} == {
            ("correct", None, None)
        }, seed


# Formula problems of each shape, with property checks, as instructors write them.
FORMULA_PROBLEMS = {
    "number": {
        "variables": {"d_k": {"choices": [16, 64, 256]}, "s": {"min": 0.5, "max": 2, "step": 0.1}},
        "answer": "d_k * s^2",
        "mistakes": {"std-for-variance": "sqrt(d_k) * s"},
        "properties": [{"check": "x >= 0", "feedback": "A variance is never negative."}],
        "prompt": "Var(q·k) for $d_k = {@d_k@}$, σ = {@s@}?",
    },
    "vector": {
        "variables": {
            "a": {"min": -2, "max": 2, "step": 0.1},
            "b": {"min": -2, "max": 2, "step": 0.1},
        },
        "shape": "vector",
        "answer": ["exp(a) / (exp(a) + exp(b))", "exp(b) / (exp(a) + exp(b))"],
        "properties": [
            {"check": "0 <= x <= 1", "feedback": "Probabilities lie in [0, 1]."},
            {"check": "sum(x) = 1", "feedback": "Probabilities add up to 1."},
        ],
        "prompt": "softmax of ({@a@}, {@b@})?",
    },
    "matrix": {
        "variables": {"p": {"min": 0.05, "max": 0.95, "step": 0.01}},
        "shape": "matrix",
        "answer": [["p * (1 - p)", "-p * (1 - p)"], ["-p * (1 - p)", "p * (1 - p)"]],
        "properties": [
            {"check": "symmetric(x)", "feedback": "The Jacobian is symmetric."},
            {"check": "rowsums(x) = 0", "feedback": "Each row sums to 0."},
        ],
        "prompt": "The Jacobian for probabilities ({@p@}, 1 − {@p@})?",
    },
}


@pytest.mark.parametrize("shape", sorted(FORMULA_PROBLEMS))
def test_no_rule_and_no_property_check_fires_on_a_formula_problem_s_right_answer(shape):
    family = get_family("formula")
    params = FORMULA_PROBLEMS[shape]
    tol = family.default_tolerance
    rng = np.random.default_rng(24)
    for seed in range(200):
        variant = make_variant(family, params, seed)
        answer = np.asarray(variant.answer, dtype=np.float64)
        values = _within_tolerance_variants(answer, tol, rng)
        allowed = np.maximum(tol.atol, tol.rtol * np.abs(answer))
        found = explain_after_slips(values, answer, allowed, tol, None, variant.givens)
        assert found == [None, None, None], (seed, found)
        texts = [format_answer(v, 17) for v in values]
        verdicts = grade_many(family, variant.givens, texts, grading_key=variant.grading_key)
        assert {(v.status, v.detail["diagnosis"], v.detail["finding"]) for v in verdicts} == {
            ("correct", None, None)
        }, seed
