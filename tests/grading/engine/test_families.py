"""Problem families: fixed seeds give fixed numbers, answers match plain formulas, and the
default tolerance always tells the answer apart from 0 and from every mistake."""

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from grading.engine import (
    FAMILIES,
    Family,
    ParamError,
    ParamSpec,
    Tolerance,
    UnknownFamily,
    get_family,
    make_variant,
    validate_params,
    within_tolerance,
)

ROOT = Path(__file__).resolve().parents[3]
BUILT_IN = sorted(key for key in FAMILIES if key != "formula")
SEED = 2024


def _softmax(z):
    e = [math.exp(x) for x in z]
    return [x / sum(e) for x in e]


def _jacobian(p):
    n = len(p)
    return [[p[i] * ((1.0 if i == j else 0.0) - p[j]) for j in range(n)] for i in range(n)]


# Each family at seed 2024 with default params: the exact givens, and the answer computed
# here from them with plain math, independently of the engine's solver.
GOLDEN = {
    "dot-variance": (
        {"d_k": 32, "sigma_q": 2.0, "sigma_k": 0.5},
        lambda g: g["d_k"] * g["sigma_q"] ** 2 * g["sigma_k"] ** 2,
    ),
    "dot-std": (
        {"d_k": 32, "sigma_q": 2.0, "sigma_k": 0.5},
        lambda g: math.sqrt(g["d_k"]) * g["sigma_q"] * g["sigma_k"],
    ),
    "scaled-variance": (
        {"d_k": 16, "divisor": 16.0},
        lambda g: g["d_k"] / g["divisor"] ** 2,
    ),
    "scale-for-unit-variance": (
        {"d_k": 512, "sigma_q": 2.0, "sigma_k": 3.0},
        lambda g: math.sqrt(g["d_k"]) * g["sigma_q"] * g["sigma_k"],
    ),
    "width-for-std": ({"target_std": 4.0}, lambda g: g["target_std"] ** 2),
    "scaled-dot": (
        {
            "q": [-1.1, -0.8, 1.2, 2.0, -1.4, -1.7, -1.3],
            "k": [-0.6, -1.3, 0.4, 0.5, -1.6, 0.3, -2.0],
        },
        lambda g: sum(a * b for a, b in zip(g["q"], g["k"], strict=True)) / math.sqrt(7),
    ),
    "softmax": ({"z": [-1.7, -1.1, 1.8]}, lambda g: _softmax(g["z"])),
    "softmax-slope": (
        {"z": [-1.1, -0.8, 1.2], "i": 2, "j": 0},
        lambda g: -_softmax(g["z"])[2] * _softmax(g["z"])[0],
    ),
    "softmax-jacobian": ({"z": [-1.1, -0.8, 1.2]}, lambda g: _jacobian(_softmax(g["z"]))),
    "saturation-max-prob": (
        {"z": [-1.1, -0.8, 1.2], "c": 8.0},
        lambda g: max(_softmax([g["c"] * x for x in g["z"]])),
    ),
    "saturated-slope": (
        {"z": [-1.4, -1.7, -1.3, -0.6, -1.3], "c": 8.0},
        lambda g: max(
            abs(x) for row in _jacobian(_softmax([g["c"] * x for x in g["z"]])) for x in row
        ),
    ),
}


def test_every_built_in_family_has_a_golden_case():
    assert sorted(GOLDEN) == BUILT_IN


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_golden_givens_and_answer(key):
    givens, answer_of = GOLDEN[key]
    variant = make_variant(get_family(key), {}, SEED)
    assert variant.givens == givens
    np.testing.assert_allclose(variant.answer, np.array(answer_of(givens)), rtol=1e-12)


@pytest.mark.parametrize("key", BUILT_IN)
def test_family_interface(key):
    family = get_family(key)
    assert isinstance(family, Family)
    assert family.key == key
    assert isinstance(family.version, int)
    assert family.version >= 1
    assert family.title
    assert isinstance(family.default_tolerance, Tolerance)
    assert all(isinstance(spec, ParamSpec) for spec in family.param_specs)
    assert all(sentence.strip() for sentence in family.mistakes.values())


@pytest.mark.parametrize("key", BUILT_IN)
def test_givens_are_plain_json(key):
    family = get_family(key)
    for seed in range(20):
        givens = make_variant(family, {}, seed).givens
        assert json.loads(json.dumps(givens)) == givens
        for value in givens.values():
            items = value if isinstance(value, list) else [value]
            assert all(type(item) in (int, float) for item in items)


@pytest.mark.parametrize("key", BUILT_IN)
def test_default_tolerance_fails_zero_and_every_mistake(key):
    family = get_family(key)
    tol = family.default_tolerance
    for seed in range(300):
        variant = make_variant(family, {}, seed)
        solution = family.solve(variant.givens)
        assert variant.answer.shape == family.answer_shape(variant.givens)
        assert np.isfinite(variant.answer).all()
        assert not within_tolerance(np.zeros_like(variant.answer), variant.answer, tol).all()
        # Every mistake the solver names is offered, i.e. distinguishable from the answer.
        assert set(variant.mistakes) == set(solution.mistakes), seed
        assert set(solution.mistakes) <= set(family.mistakes)


def test_softmax_slope_asks_for_diagonal_and_off_diagonal_slopes():
    family = get_family("softmax-slope")
    pairs = [make_variant(family, {}, seed).givens for seed in range(60)]
    assert any(g["i"] == g["j"] for g in pairs)
    assert any(g["i"] != g["j"] for g in pairs)
    for g in pairs:
        assert 0 <= g["i"] < len(g["z"])
        assert 0 <= g["j"] < len(g["z"])


def test_softmax_slope_prompt_counts_from_one():
    prompt = get_family("softmax-slope").prompt({"z": [-1.1, -0.8, 1.2], "i": 2, "j": 0})
    assert "\\partial p_{3}" in prompt
    assert "\\partial z_{1}" in prompt
    assert "(-1.1, -0.8, 1.2)" in prompt


@pytest.mark.parametrize("key", BUILT_IN)
def test_prompt_shows_the_givens_as_used(key):
    family = get_family(key)
    givens = make_variant(family, {}, 5).givens
    prompt = family.prompt(givens)
    for name, value in givens.items():
        if name in ("i", "j"):
            continue
        values = value if isinstance(value, list) else [value]
        for item in values:
            assert f"{item:g}" in prompt, (name, item)


@pytest.mark.parametrize("key", ["scaled-dot", "softmax", "softmax-jacobian", "saturated-slope"])
def test_vectors_are_rounded_to_one_decimal(key):
    family = get_family(key)
    for seed in range(30):
        givens = make_variant(family, {}, seed).givens
        for name in ("q", "k", "z"):
            for x in givens.get(name, []):
                assert round(x, 1) == x


def test_lengths_follow_params():
    family = get_family("softmax")
    lengths = {len(make_variant(family, {}, s).givens["z"]) for s in range(80)}
    assert lengths == {3, 4, 5, 6}
    fixed = {
        len(make_variant(family, {"min_length": 5, "max_length": 5}, s).givens["z"])
        for s in range(10)
    }
    assert fixed == {5}


def test_scaled_dot_widths_default_to_4_through_16():
    family = get_family("scaled-dot")
    widths = {len(make_variant(family, {}, s).givens["q"]) for s in range(200)}
    assert min(widths) == 4
    assert max(widths) == 16


def test_saturation_draws_one_clearly_largest_logit():
    family = get_family("saturation-max-prob")
    for seed in range(50):
        z = sorted(make_variant(family, {}, seed).givens["z"])
        assert z[-1] - z[-2] >= 0.5 - 1e-9


def test_mistake_within_tolerance_is_not_offered():
    # d_k = 16, σq = σk = 0.5: the variance 16·0.25·0.25 = 1 equals the std √16·0.5·0.5 = 1.
    family = get_family("dot-variance")
    params = {"d_k_choices": [16], "sigma_choices": [0.5]}
    variant = make_variant(family, params, 0)
    assert variant.givens == {"d_k": 16, "sigma_q": 0.5, "sigma_k": 0.5}
    assert float(variant.answer) == 1.0
    assert float(family.solve(variant.givens).mistakes["std-for-variance"]) == 1.0
    assert "std-for-variance" not in variant.mistakes
    # σ unsquared gives 16·0.5·0.5 = 4; σ ignored gives 16, the same as d_k² σq² σk², and √16
    # is the same 4, so each of those two is named by the mistake listed before it.
    assert set(variant.mistakes) == {
        "width-ignored",
        "width-squared",
        "variances-added",
        "sigma-not-squared",
    }


def test_wider_tolerance_withholds_more_mistakes():
    # d_k = 64, σq = σk = 2: answer 1024; mistakes std-for-variance 32, width-ignored 16,
    # width-squared 65536, variances-added 512, sigma-not-squared 256, unit-variance-assumed 64,
    # root-width-for-width 8. Within 60%: 512 lies near the answer, and 16 lies near 32, which
    # is offered first, so neither can be named; the rest stay apart.
    family = get_family("dot-variance")
    params = {"d_k_choices": [64], "sigma_choices": [2.0]}
    default = make_variant(family, params, 0)
    assert float(default.answer) == 1024.0
    assert set(default.mistakes) == set(family.mistakes)
    wide = make_variant(family, params, 0, tolerance=Tolerance(atol=0.0, rtol=0.6))
    assert set(wide.mistakes) == {
        "std-for-variance",
        "width-squared",
        "sigma-not-squared",
        "unit-variance-assumed",
        "root-width-for-width",
    }


def test_mistakes_that_coincide_are_offered_once():
    # For a tiny p_i the diagonal formula p_i(1 − p_i) is about p_i itself.
    family = get_family("softmax-slope")
    givens = {"z": [3.0, 0.0, -0.5], "i": 2, "j": 0}
    solution = family.solve(givens)
    from grading.engine.problems import offered_mistakes

    offered = offered_mistakes(solution, family.default_tolerance)
    assert "probability-not-slope" in offered
    assert "diagonal-formula" not in offered
    assert not family.discriminates(givens)


def test_non_finite_mistake_is_not_offered():
    family = get_family("softmax")
    solution = family.solve({"z": [1.0, -1.0, 0.0]})
    assert not np.isfinite(solution.mistakes["linear-normalisation"]).all()
    from grading.engine.problems import offered_mistakes

    assert "linear-normalisation" not in offered_mistakes(solution, family.default_tolerance)


def test_reproducible_in_a_fresh_interpreter():
    script = (
        "import json\n"
        "from grading.engine import FAMILIES, make_variant\n"
        "print(json.dumps({k: make_variant(f, {}, 987654321).givens\n"
        "                  for k, f in FAMILIES.items() if k != 'formula'}, sort_keys=True))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    here = {k: make_variant(get_family(k), {}, 987654321).givens for k in BUILT_IN}
    assert json.loads(result.stdout) == here


def test_get_family_unknown_key_lists_known_keys():
    with pytest.raises(UnknownFamily) as caught:
        get_family("dot-varaince")
    error = caught.value
    assert isinstance(error, KeyError)
    assert isinstance(error, ValueError)
    assert "unknown problem family 'dot-varaince'" in str(error)
    assert "dot-variance" in str(error)
    assert "softmax-jacobian" in str(error)


def test_validate_params_fills_defaults():
    family = get_family("softmax-slope")
    assert validate_params(family, {}) == {
        "min_length": 3,
        "max_length": 5,
        "logit_max": 2.0,
        "same_index_probability": 0.5,
    }
    assert validate_params(family, None)["min_length"] == 3


def test_validate_params_coerces_json_numbers():
    family = get_family("dot-variance")
    cleaned = validate_params(family, {"d_k_choices": [64.0, 128], "sigma_choices": [1]})
    assert cleaned == {"d_k_choices": [64, 128], "sigma_choices": [1.0]}
    assert type(cleaned["d_k_choices"][0]) is int
    assert type(cleaned["sigma_choices"][0]) is float


@pytest.mark.parametrize(
    ("key", "params", "errors"),
    [
        (
            "dot-variance",
            {"d_k": 64},
            {"d_k": "Unknown parameter; the known parameters are: d_k_choices, sigma_choices."},
        ),
        ("dot-variance", {"d_k_choices": 64}, {"d_k_choices": "Must be a list of numbers."}),
        ("dot-variance", {"d_k_choices": []}, {"d_k_choices": "Must not be empty."}),
        (
            "dot-variance",
            {"d_k_choices": [64, 0.5]},
            {"d_k_choices": "Entry 2 must be a whole number."},
        ),
        (
            "dot-variance",
            {"sigma_choices": [1, "2"]},
            {"sigma_choices": "Entry 2 must be a number."},
        ),
        (
            "dot-variance",
            {"sigma_choices": [0.0]},
            {"sigma_choices": "Entry 1 must be at least 0.01."},
        ),
        ("softmax", {"min_length": True}, {"min_length": "Must be a whole number."}),
        ("softmax", {"max_length": 40}, {"max_length": "Must be at most 12."}),
        ("softmax", {"logit_max": float("nan")}, {"logit_max": "Must be a number."}),
        (
            "softmax",
            {"min_length": 6, "max_length": 3},
            {"max_length": "Must be at least min_length."},
        ),
        (
            "softmax-slope",
            {"same_index_probability": 1.5},
            {"same_index_probability": "Must be at most 1."},
        ),
    ],
)
def test_validate_params_errors(key, params, errors):
    with pytest.raises(ParamError) as caught:
        validate_params(get_family(key), params)
    assert caught.value.errors == errors


def test_validate_params_reports_every_bad_field_at_once():
    with pytest.raises(ParamError) as caught:
        validate_params(get_family("scaled-dot"), {"min_length": 1, "entry_max": -1, "x": 1})
    assert set(caught.value.errors) == {"min_length", "entry_max", "x"}


def test_make_variant_rejects_bad_seeds():
    family = get_family("softmax")
    for seed in (-1, 1.5, True):
        with pytest.raises(ValueError, match="seed"):
            make_variant(family, {}, seed)


def test_instructor_params_that_force_collisions_still_generate():
    # d_k = 1 makes width-ignored and width-squared equal the answer for every draw.
    variant = make_variant(get_family("dot-variance"), {"d_k_choices": [1]}, 0)
    assert variant.givens["d_k"] == 1
    assert "width-ignored" not in variant.mistakes
    assert "width-squared" not in variant.mistakes


# A formula problem with mistakes and a variable its prompt never shows.
FORMULA_WITH_MISTAKES = {
    "variables": {
        "d_k": {"choices": [16, 64, 256]},
        "s": {"min": 0.5, "max": 2, "step": 0.5},
        "offset": {"choices": [0.25, 0.75]},
    },
    "answer": "d_k * s^2 + offset",
    "mistakes": {"std-for-variance": "sqrt(d_k) * s + offset"},
    "prompt": "Components have standard deviation {@s@} and $d_k = {@d_k@}$. Var(q·k)?",
}


def _leaves(value, path=()):
    """(path, leaf) for every number and string inside nested dicts and lists."""
    if isinstance(value, dict):
        for name, inner in value.items():
            yield from _leaves(inner, (*path, name))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _leaves(inner, (*path, index))
    else:
        yield path, value


def _replaced(value, path, new):
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replaced(value[head], rest, new)}
    return [_replaced(inner, rest, new) if i == head else inner for i, inner in enumerate(value)]


@pytest.mark.parametrize("key", sorted(FAMILIES))
def test_every_given_is_shown_to_the_learner(key):
    """Givens are what the learner sees: changing any one of them changes the prompt."""
    family = get_family(key)
    params = FORMULA_WITH_MISTAKES if key == "formula" else {}
    for seed in range(5):
        givens = make_variant(family, params, seed).givens
        prompt = family.prompt(givens)
        for path, leaf in _leaves(givens):
            if isinstance(leaf, str):
                changed = leaf + " (changed)"
            else:
                changed = leaf + 1 if isinstance(leaf, int) else leaf + 1.25
            assert family.prompt(_replaced(givens, path, changed)) != prompt, (seed, path)
