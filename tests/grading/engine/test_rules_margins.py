"""The margins of the engine's rules (grading.engine.rules): hypothesis shows that none fires on
a value further than its stated margin from its trigger, nor on a right answer nudged within it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grading.engine import FAMILIES, RULES, Tolerance, get_family, grade, make_variant
from grading.engine.feedback import (
    explain_after_slips,
    figures_needed,
    figures_typed,
    slips_for,
    too_few_figures,
    width_of,
)
from grading.engine.problems.softmax import jacobian, softmax
from grading.engine.rules import NEAR_MISS_MARGIN, SIG_FIG_MARGIN, STRUCTURE_MARGIN, STRUCTURES
from grading.engine.structure import first_failures, fit_probabilities
from tests.grading.engine.test_rules import FIXED_FAMILIES, Z, family_for

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
    family = family_for(key)
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


@settings(max_examples=200, deadline=None)
@given(
    logits=st.lists(st.floats(-4, 4), min_size=2, max_size=6),
    noise=st.lists(st.floats(-1, 1), min_size=36, max_size=36),
)
def test_a_softmax_jacobian_of_any_p_is_never_called_no_such_form(logits, noise):
    """diag(q) − q qᵀ for any probability vector q, every entry moved by up to one tolerance:
    "not diag(p) − ppᵀ for any p" never fires there (its margin is FORM_MARGIN tolerances)."""
    n = len(logits)
    tol = get_family("softmax-jacobian").default_tolerance
    built = jacobian(softmax(logits))
    allowed = np.maximum(tol.atol, tol.rtol * np.abs(built))
    nudged = built + allowed * np.array(noise[: n * n]).reshape(n, n) * 0.999
    answer = jacobian(softmax(np.linspace(-1, 1, n)))
    codes = _structural(
        "jacobian", [built, nudged], answer, tol, {"z": list(np.linspace(-1, 1, n))}
    )
    assert "jacobian-not-softmax-form" not in codes
