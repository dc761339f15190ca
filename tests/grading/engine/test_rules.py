"""The engine's rules (grading.engine.rules): each fires with its own sentence and never states the
right value; none fires on a right answer of any family on 200 seeds; none fires beyond its
stated margin; one answer and a regrade agree on every rule."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    figures_typed,
    slips_for,
    too_few_figures,
    width_of,
)
from grading.engine.problems.base import NO_KEY
from grading.engine.problems.softmax import jacobian, softmax
from grading.engine.rules import (
    NEAR_MISS_MARGIN,
    NEAR_MISSES,
    SIG_FIG_MARGIN,
    STRUCTURE_MARGIN,
    STRUCTURES,
)
from grading.engine.structure import CHECKS, first_failures, fit_probabilities

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


def _family(key: str) -> Family:
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
    family = _family(key)
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


# --- margins ------------------------------------------------------------------------------------

NUMBER_FAMILIES = [
    key for key in FIXED_FAMILIES if not make_variant(FAMILIES[key], {}, 1).answer.shape
]


@settings(max_examples=400, deadline=None)
@given(
    key=st.sampled_from([*NUMBER_FAMILIES, "one-variance", "one-standard-deviation"]),
    seed=st.integers(0, 2**32),
    factor=st.sampled_from([-1, 100, 0.01, 10, 8, 0.125, 2, 0.5, 16, 1 / 16]),
    nudge=st.floats(-0.05, 0.05),
    how=st.sampled_from(["times", "inverse", "square", "root"]),
)
def test_a_near_miss_never_fires_further_than_its_margin_from_its_value(
    key, seed, factor, nudge, how
):
    family = _family(key)
    variant = make_variant(family, {}, seed)
    tol = family.default_tolerance
    answer = float(variant.answer)
    near = {"times": answer * factor, "inverse": 1 / answer, "square": answer**2}
    value = near.get(how, abs(answer) ** 0.5) * (1 + nudge)
    verdict = grade(family, variant.givens, repr(value))
    code = verdict.detail["diagnosis"]
    if code is None or RULES[code].kind != "near-miss" or code == "rounded-too-coarsely":
        return
    slips = slips_for(variant.answer, tol, width_of(variant.givens), family.answer_kind)
    targets = [t for c, t in zip(slips.codes, slips.values.tolist(), strict=True) if c == code]
    margin = [NEAR_MISS_MARGIN * max(tol.atol, tol.rtol * abs(t)) for t in targets]
    assert any(abs(value - t) <= m for t, m in zip(targets, margin, strict=True)), (code, value)


@settings(max_examples=300, deadline=None)
@given(
    weights=st.lists(st.floats(0.01, 10), min_size=2, max_size=6),
    order=st.permutations(range(6)),
    nudges=st.lists(st.floats(-0.05, 0.05), min_size=6, max_size=6),
)
def test_reordered_probabilities_fire_only_within_tolerance_of_a_reordering(weights, order, nudges):
    tol = get_family("softmax").default_tolerance
    answer = np.array(weights) / sum(weights)
    index = [i for i in order if i < len(weights)]
    value = answer[index] + np.array(nudges[: len(weights)]) * answer[index]
    found = explain_after_slips(
        value[np.newaxis], answer, tol.rtol * answer, tol, "probabilities", {}
    )
    if found[0] is not None and found[0][0] == "probabilities-permuted":
        allowed = np.maximum(tol.atol, tol.rtol * np.sort(answer)) * NEAR_MISS_MARGIN
        assert (np.abs(np.sort(value) - np.sort(answer)) <= allowed).all()


@settings(max_examples=400, deadline=None)
@given(
    kind=st.sampled_from(["slope", "largest-slope", "largest-probability", "probability"]),
    answer=st.floats(-0.25, 1.0).filter(lambda x: abs(x) > 1e-6),
    value=st.floats(-2, 2),
    n=st.integers(2, 6),
)
def test_scalar_structural_rules_fire_only_beyond_their_margin(kind, answer, value, n):
    tol = Tolerance(atol=1e-3, rtol=0.01)
    bound = STRUCTURE_MARGIN * max(tol.atol, tol.rtol * abs(answer))
    (code,) = _structural(kind, [value], np.array(answer), tol, {"z": [0.0] * n})
    fired_beyond = {
        None: True,
        "probability-out-of-range": value < -bound or value > 1 + bound,
        "largest-probability-below-uniform": value < 1 / n - bound,
        "slope-sign": (answer > 0 and value < -bound) or (answer < 0 and value > bound),
        "slope-too-large": abs(value) > 0.25 + bound,
        "slope-magnitude-negative": value < -bound,
    }
    assert fired_beyond[code], (code, value, answer)


@settings(max_examples=400, deadline=None)
@given(
    answer=st.floats(1e-6, 1e6) | st.floats(-1e6, -1e-6),
    figures=st.integers(1, 8),
    shift=st.floats(-3, 3),
    rtol=st.sampled_from([1e-4, 1e-3, 0.01, 0.05]),
)
def test_too_few_figures_fires_only_within_a_unit_of_the_last_typed_figure(
    answer, figures, shift, rtol
):
    # A value of `figures` figures near the answer, moved by up to 3 units in its last figure.
    exponent = np.floor(np.log10(abs(answer))) - figures + 1
    value = (np.round(answer / 10**exponent) + shift) * 10**exponent
    values, target = np.array([value]), np.array(answer)
    allowed = np.array(rtol * abs(answer))
    needed = int(too_few_figures(values, target, allowed)[0])
    if not needed or abs(value - answer) <= allowed:
        return
    typed = int(figures_typed(values)[0])
    unit = 10.0 ** (np.floor(np.log10(abs(value))) - typed + 1)
    assert abs(value - answer) <= SIG_FIG_MARGIN * unit * (1 + 1e-9)
    assert typed < needed == int(figures_needed(target, allowed))


def _structural(kind: str, values, answer, tol, givens) -> list[str | None]:
    found = first_failures(kind, np.asarray(values, dtype=np.float64), answer, tol, givens)
    return [None if one is None else one[0] for one in found]


@pytest.mark.parametrize("key", FIXED_FAMILIES)
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), scale=st.floats(0, STRUCTURE_MARGIN * 0.999))
def test_no_structural_rule_fires_within_its_margin_of_a_right_answer(key, seed, scale):
    family = get_family(key)
    variant = make_variant(family, {}, seed)
    tol = family.default_tolerance
    answer = np.asarray(variant.answer, dtype=np.float64)
    allowed = np.maximum(tol.atol, tol.rtol * np.abs(answer))
    rng = np.random.default_rng(seed)
    # Every entry moved by up to `scale` tolerances, each way and at random.
    values = answer + scale * allowed * np.stack(
        [np.ones_like(answer), -np.ones_like(answer), rng.uniform(-1, 1, answer.shape)]
    )
    assert _structural(family.answer_kind, values, answer, tol, variant.givens) == [None] * 3


@settings(max_examples=200, deadline=None)
@given(
    logits=st.lists(st.floats(-3, 3), min_size=3, max_size=5),
    noise=st.lists(st.floats(-1, 1), min_size=25, max_size=25),
)
def test_jacobian_rules_fire_only_on_what_they_say(logits, noise):
    # A symmetric matrix whose rows sum to 0 is never "not symmetric" or "rows not 0", however
    # far it is from the answer; a Jacobian of any probabilities is never a sign rule.
    n = len(logits)
    tol = get_family("softmax-jacobian").default_tolerance
    answer = jacobian(softmax(Z + [0.0] * (n - 3)))
    upper = np.triu(np.array(noise[: n * n]).reshape(n, n), k=1) * 0.1
    symmetric = upper + upper.T
    balanced = symmetric - np.diag(symmetric.sum(axis=1))
    other = jacobian(softmax(logits))
    codes = _structural("jacobian", [balanced, other], answer, tol, {"z": Z})
    assert codes[0] not in {"jacobian-not-symmetric", "jacobian-rows-do-not-sum-to-0"}
    built_from_p = {None, "jacobian-from-other-probabilities", "jacobian-probabilities-permuted"}
    assert codes[1] in built_from_p
    fitted, fits = fit_probabilities(other[np.newaxis], tol)
    assert fits[0]
    assert np.allclose(jacobian(fitted[0]), other, atol=tol.atol)


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(["variance", "standard-deviation", "divisor", "largest-slope"]),
    answer=st.floats(1e-4, 1e4),
    value=st.floats(-1e4, 1e4),
)
def test_a_sign_rule_never_fires_on_a_value_within_its_margin_of_0(kind, answer, value):
    tol = Tolerance(atol=1e-3, rtol=0.01)
    allowed = max(tol.atol, tol.rtol * answer)
    codes = _structural(kind, [value], np.array(answer), tol, {})
    negative = {c for c in STRUCTURES if c.startswith(("negative", "divisor", "slope-magnitude"))}
    if codes[0] in negative:
        assert value < -STRUCTURE_MARGIN * allowed


@settings(max_examples=300, deadline=None)
@given(
    weights=st.lists(st.floats(0.01, 10), min_size=2, max_size=6),
    drift=st.floats(-0.5, 0.5),
)
def test_probability_rules_fire_only_beyond_their_margin(weights, drift):
    tol = get_family("softmax").default_tolerance
    answer = np.sort(np.array(weights) / sum(weights))  # increasing, like softmax of sorted z
    allowed = np.maximum(tol.atol, tol.rtol * answer)
    value = answer.copy()
    value[-1] += drift
    (code,) = _structural("probabilities", [value], answer, tol, {})
    if code == "probabilities-do-not-sum-to-1":
        assert abs(value.sum() - 1) > STRUCTURE_MARGIN * allowed.sum()
    if code == "probability-out-of-range":
        assert (value < -allowed).any() or (value > 1 + allowed).any()
    if code == "logit-order-not-kept":
        # Some larger probability of the answer is below a smaller one by more than both
        # entries' tolerances.
        gaps = value[np.newaxis, :] - value[:, np.newaxis]
        bound = STRUCTURE_MARGIN * (allowed[np.newaxis, :] + allowed[:, np.newaxis])
        above = answer[:, np.newaxis] > answer[np.newaxis, :]
        assert ((gaps > bound) & above).any()
    if abs(drift) <= STRUCTURE_MARGIN * allowed.sum() * 0.999:
        assert code not in {"probabilities-do-not-sum-to-1", "probability-out-of-range"}
