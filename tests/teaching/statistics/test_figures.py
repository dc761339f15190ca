"""Moodle's quiz statistics: the worked example of docs/statistics.md recomputed by hand, the edge
cases, and properties every quiz has."""

from __future__ import annotations

import math
import re
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from teaching.statistics import figures as qs
from teaching.statistics.figures import quiz_statistics, random_guess_score

DOC = Path(__file__).resolve().parents[3] / "docs" / "statistics.md"

# docs/statistics.md, "Worked example": fractions per attempt A–E; E left item 3 unanswered.
SCORES = [[1, 1, 1], [1, 1, 0.5], [0, 0.5, 0.5], [1, 0, 0.5], [0, 1, math.nan]]
MAX_MARKS = [1, 2, 2]
TOTALS = [5, 4, 2, 2, 2]
GUESSES = [random_guess_score("true_false", 2), random_guess_score("single", 4), 0.0]


def example() -> qs.QuizReport:
    return quiz_statistics(SCORES, MAX_MARKS, TOTALS, GUESSES)


# Each figure as the example works it out, by hand: deviations and sums written out.
HAND_QUIZ = {
    "mean": 15 / 5 / 5,
    "median": 2 / 5,
    "sd": math.sqrt(8 / 4) / 5,
    "skewness": (25 * (6 / 5) / (4 * 3)) / (8 / 4) ** 1.5,
    "kurtosis": (25 * ((6 * 20 / 5) - 3 * 4 * (8 / 5) ** 2) / (4 * 3 * 2)) / (8 / 4) ** 2,
    "cronbach_alpha": 3 / 2 * (1 - (0.3 + 0.8 + 0.5) / 2),
}
HAND_QUIZ["error_ratio"] = math.sqrt(1 - HAND_QUIZ["cronbach_alpha"])
HAND_QUIZ["standard_error"] = HAND_QUIZ["error_ratio"] * HAND_QUIZ["sd"]

_cov1 = (0.4 * 1.6 + 0.4 * 0.6 + (-0.6) * (-0.4) + 0.4 * (-1.4) + (-0.6) * (-0.4)) / 4
_cov2 = (0.6 * 1.4 + 0.6 * 0.4 + (-0.4) * (-0.6) + (-1.4) * 0.4 + 0.6 * (-1.6)) / 4
_cov3 = (1 * 1 + 0 * 1 + 0 * (-1) + 0 * (-1) + (-1) * 0) / 4
_max1 = ((-0.6) * (-1.4) + (-0.6) * (-0.4) + 0.4 * (-0.4) + 0.4 * 0.6 + 0.4 * 1.6) / 4
_max2 = ((-1.4) * (-1.6) + (-0.4) * (-0.6) + 0.6 * 0.4 + 0.6 * 0.4 + 0.6 * 1.4) / 4
_max3 = ((-1) * (-1) + 0 * (-1) + 0 * 0 + 0 * 1 + 1 * 1) / 4
_total1 = (0.4 * 2 + 0.4 * 1 + (-0.6) * (-1) + 0.4 * (-1) + (-0.6) * (-1)) / 4
_total2 = (0.6 * 2 + 0.6 * 1 + (-0.4) * (-1) + (-1.4) * (-1) + 0.6 * (-1)) / 4
_total3 = (1 * 2 + 0 * 1 + 0 * (-1) + 0 * (-1) + (-1) * (-1)) / 4
_weights = math.sqrt(_total1) + math.sqrt(_total2) + math.sqrt(_total3)
HAND_ITEMS = [
    {
        "facility": 3 / 5,
        "sd": math.sqrt(1.2 / 4) / 1,
        "random_guess_score": 1 / 2,
        "intended_weight": 1 / 5,
        "discrimination_index": _cov1 / math.sqrt(0.3 * 1.3),
        "discriminative_efficiency": _cov1 / _max1,
        "effective_weight": math.sqrt(_total1) / _weights,
    },
    {
        "facility": (1 + 1 + 0.5 + 0 + 1) / 5,
        "sd": math.sqrt(3.2 / 4) / 2,
        "random_guess_score": 1 / 4,
        "intended_weight": 2 / 5,
        "discrimination_index": _cov2 / math.sqrt(0.8 * 1.3),
        "discriminative_efficiency": _cov2 / _max2,
        "effective_weight": math.sqrt(_total2) / _weights,
    },
    {
        "facility": (1 + 0.5 + 0.5 + 0.5 + 0) / 5,
        "sd": math.sqrt(2 / 4) / 2,
        "random_guess_score": 0.0,
        "intended_weight": 2 / 5,
        "discrimination_index": _cov3 / math.sqrt(0.5 * 1),
        "discriminative_efficiency": _cov3 / _max3,
        "effective_weight": math.sqrt(_total3) / _weights,
    },
]


def test_the_worked_example_at_quiz_level():
    quiz = example().quiz
    assert quiz.n == 5
    assert quiz.undefined == {}
    for name, value in HAND_QUIZ.items():
        assert getattr(quiz, name) == pytest.approx(value, abs=1e-12), name


def test_the_worked_example_at_item_level():
    items = example().items
    assert [item.position for item in items] == [1, 2, 3]
    assert [item.answered for item in items] == [5, 5, 4]
    for item, hand in zip(items, HAND_ITEMS, strict=True):
        assert item.n == 5
        assert item.undefined == {}
        for name, value in hand.items():
            assert getattr(item, name) == pytest.approx(value, abs=1e-12), (item.position, name)


def test_the_example_works_out_to_round_figures():
    """The hand arithmetic itself, against the figures chosen for the example."""
    assert HAND_QUIZ["skewness"] == pytest.approx(2.5 / 2**1.5)
    assert HAND_QUIZ["kurtosis"] == pytest.approx(-1.75)
    assert HAND_QUIZ["cronbach_alpha"] == pytest.approx(0.3)
    assert (_cov1, _cov2, _cov3) == pytest.approx((0.2, -0.05, 0.25))
    assert (_max1, _max2, _max3) == pytest.approx((0.45, 0.95, 0.5))
    # C(x_i, S) = V(x_i) + C(x_i, X_i): the covariance with the whole splits into two parts.
    assert (_total1, _total2, _total3) == pytest.approx((0.3 + 0.2, 0.8 - 0.05, 0.5 + 0.25))


def _worked_example_section() -> str:
    text = DOC.read_text()
    return text[text.index("## Worked example") : text.index("## Where this differs")]


def test_the_document_shows_every_figure_of_the_example():
    """Every bold figure of the example, in reading order, is the hand-computed one (5 places)."""
    shown = [
        float(n.replace("−", "-"))
        for n in re.findall(r"\*\*([−\d.]+)\*\*", _worked_example_section())
    ]
    item = HAND_ITEMS
    expected = [HAND_QUIZ[name] for name in qs.QUIZ_FIGURES]
    for name in ("facility", "sd", "random_guess_score", "intended_weight"):
        expected += [row[name] for row in item]
    for name in ("discrimination_index", "discriminative_efficiency", "effective_weight"):
        expected += [row[name] for row in item]
    assert shown == pytest.approx([round(value, 5) for value in expected], abs=1e-12)


def test_one_attempt_has_a_mean_and_a_facility_and_nothing_that_needs_spread():
    report = quiz_statistics([[1, 0.5]], [1, 1], [1.5])
    assert (report.quiz.n, report.quiz.mean, report.quiz.median) == (1, 0.75, 0.75)
    spread = ("sd", "skewness", "kurtosis", "cronbach_alpha", "error_ratio", "standard_error")
    assert report.quiz.undefined == dict.fromkeys(spread, qs.FEWER_THAN_TWO)
    assert all(getattr(report.quiz, name) is None for name in spread)
    first, second = report.items
    assert (first.facility, second.facility) == (1.0, 0.5)
    for item in report.items:
        assert item.sd is item.discrimination_index is item.effective_weight is None
        assert item.undefined["discriminative_efficiency"] == qs.FEWER_THAN_TWO


def test_equal_scores_give_zero_spread_and_no_ratio_of_spreads():
    # 0.1 three times: a mean that differs from the values in the last bit must not make noise.
    report = quiz_statistics([[0.1, 1]] * 4, [3, 1], [1.3] * 4)
    quiz = report.quiz
    assert quiz.sd == 0.0
    for name in ("skewness", "kurtosis", "cronbach_alpha", "error_ratio", "standard_error"):
        assert getattr(quiz, name) is None
        assert quiz.undefined[name] == qs.EQUAL_TOTALS
    for item in report.items:
        assert item.sd == 0.0
        assert item.discrimination_index is item.discriminative_efficiency is None
        assert item.undefined["discrimination_index"] == qs.ITEM_CONSTANT
        assert item.effective_weight is None
        assert item.undefined["effective_weight"] == qs.NO_COVARIANCE


def test_totals_equal_but_for_rounding_are_equal():
    """0.1 + 0.2 is 0.30000000000000004: the same total as 0.3, not a variance of 1e-33."""
    scores = [[0.1, 0.2], [0.2, 0.1], [0.3, 0.0]]
    sums = [sum(row) for row in scores]
    assert len(set(sums)) == 2
    quiz = quiz_statistics(scores, [1, 1], sums).quiz
    assert quiz.sd == 0.0
    assert quiz.cronbach_alpha is None
    assert quiz.undefined["cronbach_alpha"] == qs.EQUAL_TOTALS


def test_an_item_nobody_answered_scores_0_and_says_so():
    scores = [[1, math.nan], [0, math.nan], [1, math.nan], [0.5, math.nan]]
    report = quiz_statistics(scores, [1, 1], [1, 0, 1, 0.5])
    unanswered = report.items[1]
    assert unanswered.answered == 0
    assert (unanswered.facility, unanswered.sd) == (0.0, 0.0)
    assert unanswered.discrimination_index is None
    assert unanswered.undefined["discrimination_index"] == qs.ITEM_CONSTANT
    assert unanswered.effective_weight == 0.0
    answered = report.items[0]
    assert answered.effective_weight == 1.0
    # The rest of the quiz (the unanswered item) never varies: item 1 has nothing to discriminate.
    assert answered.undefined["discrimination_index"] == qs.REST_CONSTANT
    # Nothing NaN leaks into the quiz level: item 2 adds 0 to every total and 0 variance.
    assert report.quiz.cronbach_alpha == pytest.approx(2 / 1 * (1 - 1))


def test_no_attempts():
    report = quiz_statistics(np.empty((0, 2)), [1, 1], [])
    assert report.quiz.n == 0
    assert report.quiz.mean is None
    assert report.quiz.undefined["median"] == qs.NO_ATTEMPTS
    assert [item.facility for item in report.items] == [None, None]
    assert report.items[0].undefined["facility"] == qs.NO_ATTEMPTS
    assert [item.intended_weight for item in report.items] == [0.5, 0.5]


def test_three_attempts_have_skewness_but_no_kurtosis():
    quiz = quiz_statistics([[1, 1], [1, 0], [0, 0]], [1, 1], [2, 1, 0]).quiz
    assert quiz.skewness == pytest.approx(0.0)
    assert quiz.kurtosis is None
    assert quiz.undefined == {"kurtosis": qs.FEWER_THAN_FOUR}


def test_a_quiz_of_one_item_has_no_internal_consistency():
    quiz = quiz_statistics([[1], [0], [0.5]], [2], [2, 0, 1]).quiz
    assert quiz.sd == pytest.approx(1 / 2)
    assert quiz.cronbach_alpha is quiz.error_ratio is quiz.standard_error is None
    assert quiz.undefined["cronbach_alpha"] == qs.ONE_ITEM


def test_an_item_that_runs_against_the_total_has_no_effective_weight():
    # Item 3 is right exactly when the others are wrong.
    scores = [[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 1, 0]]
    sums = [2, 2, 1, 1]
    items = quiz_statistics(scores, [1, 1, 1], sums).items
    assert items[2].effective_weight is None
    assert items[2].undefined["effective_weight"] == qs.NEGATIVE_COVARIANCE
    # Deviations of item 3: −¼, −¼, ¾, −¼; of the rest (2, 2, 0, 1): ¾, ¾, −1¼, −¼.
    assert items[2].discrimination_index == pytest.approx(-1.25 / math.sqrt(0.75 * 2.75))
    # The others share the weight among themselves.
    assert items[0].effective_weight + items[1].effective_weight == pytest.approx(1.0)


def test_totals_far_from_the_item_marks_give_no_error_ratio():
    scores = [[1, 1], [0, 0], [1, 1], [0, 1]]
    # Totals ten times the marks' sums: the coefficient passes 1 and its root is not real.
    quiz = quiz_statistics(scores, [1, 1], [20, 0, 20, 10]).quiz
    assert quiz.cronbach_alpha > 1
    assert quiz.error_ratio is quiz.standard_error is None
    assert quiz.undefined["error_ratio"] == qs.ABOVE_ONE


def test_totals_not_the_item_sums_move_only_the_quiz_level():
    same_marks = quiz_statistics(SCORES, MAX_MARKS, [5, 4, 2, 2, 1], GUESSES)
    assert same_marks.quiz.mean == pytest.approx(14 / 5 / 5)
    assert same_marks.items == example().items


def test_an_item_without_a_guess_says_why():
    items = quiz_statistics([[1, 0], [0, 1], [1, 1]], [1, 1], [1, 1, 2], [None, 0.25]).items
    assert (items[0].random_guess_score, items[1].random_guess_score) == (None, 0.25)
    assert items[0].undefined == {"random_guess_score": qs.NO_GUESS}
    assert items[1].undefined == {}


@pytest.mark.parametrize(
    ("kind", "choices", "correct", "expected"),
    [
        ("single", 4, 1, 0.25),
        ("single", 5, 2, 0.4),
        ("true_false", 2, 1, 0.5),
        ("multiple", 4, 2, None),
        ("problem", 0, 1, 0.0),
    ],
)
def test_random_guess_scores_by_kind(kind, choices, correct, expected):
    assert random_guess_score(kind, choices, correct) == expected


@pytest.mark.parametrize(
    ("kind", "choices", "correct", "message"),
    [
        ("single", 0, 1, "is not a question"),
        ("single", 2, 3, "is not a question"),
        ("essay", 1, 1, "unknown item kind"),
    ],
)
def test_random_guess_score_refuses_what_is_no_question(kind, choices, correct, message):
    with pytest.raises(ValueError, match=message):
        random_guess_score(kind, choices, correct)


@pytest.mark.parametrize(
    ("scores", "max_marks", "totals", "guesses", "message"),
    [
        ([[1, 1]], [1], [2], None, "attempts × 1 items"),
        ([[1]], [0], [1], None, "positive number"),
        ([[1]], [], [1], None, "at least one item"),
        ([[math.inf]], [1], [1], None, "finite numbers or NaN"),
        ([[1], [1]], [1], [1], None, "one finite total per attempt"),
        ([[1]], [1], [math.nan], None, "one finite total per attempt"),
        ([[1]], [1], [1], [0.5, 0.5], "2 random guess scores for 1 items"),
    ],
)
def test_malformed_input_is_refused(scores, max_marks, totals, guesses, message):
    with pytest.raises(ValueError, match=message):
        quiz_statistics(scores, max_marks, totals, guesses)


# --- properties ------------------------------------------------------------------------------

FIGURES = qs.QUIZ_FIGURES
ITEM_FIGURES = [
    f.name
    for f in fields(qs.ItemStatistics)
    if f.name not in ("position", "n", "answered", "undefined")
]


@st.composite
def quizzes(draw):
    """Attempts × items of fractions (some NaN), the items' maxima, and totals = the marks' sums."""
    attempts = draw(st.integers(0, 12))
    items = draw(st.integers(1, 5))
    fraction = st.one_of(st.sampled_from([0.0, 0.5, 1.0, math.nan]), st.floats(0, 1))
    scores = draw(hnp.arrays(np.float64, (attempts, items), elements=fraction))
    max_marks = draw(st.lists(st.integers(1, 5), min_size=items, max_size=items))
    totals = (np.nan_to_num(scores) * max_marks).sum(axis=1)
    return scores, np.array(max_marks, dtype=np.float64), totals


def _figures(report: qs.QuizReport) -> list:
    quiz = [getattr(report.quiz, name) for name in FIGURES]
    items = [getattr(item, name) for item in report.items for name in ITEM_FIGURES]
    return quiz + items


def _close(first: list, second: list) -> bool:
    return all(
        (a is None and b is None)
        or (a is not None and b is not None and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9))
        for a, b in zip(first, second, strict=True)
    )


@settings(max_examples=200, deadline=None)
@given(quizzes())
def test_every_figure_is_a_finite_number_or_none_with_a_reason(quiz):
    report = quiz_statistics(*quiz)
    for holder, names in [(report.quiz, FIGURES), *((item, ITEM_FIGURES) for item in report.items)]:
        for name in names:
            value = getattr(holder, name)
            assert (value is None) == (name in holder.undefined), name
            assert value is None or math.isfinite(value), name


@settings(max_examples=200, deadline=None)
@given(quizzes())
def test_figures_stay_in_their_ranges(quiz):
    report = quiz_statistics(*quiz)
    if report.quiz.cronbach_alpha is not None:
        assert report.quiz.cronbach_alpha <= 1 + 1e-9
    assert sum(item.intended_weight for item in report.items) == pytest.approx(1.0)
    weights = [item.effective_weight for item in report.items]
    if all(weight is not None for weight in weights):
        assert sum(weights) == pytest.approx(1.0)
    for item in report.items:
        if item.facility is not None:
            assert 0 <= item.facility <= 1
        if item.sd is not None:
            assert 0 <= item.sd <= 1
        if item.discrimination_index is not None:
            assert -1 <= item.discrimination_index <= 1
            # At most 1 (sorted pairing is the largest covariance), but no lower bound of -1:
            # the reverse pairing's covariance can be larger in size than the sorted one's.
            assert item.discriminative_efficiency <= 1


@settings(max_examples=150, deadline=None)
@given(quizzes(), st.randoms(use_true_random=False))
def test_the_order_of_attempts_changes_nothing(quiz, random):
    scores, max_marks, totals = quiz
    order = list(range(len(totals)))
    random.shuffle(order)
    shuffled = quiz_statistics(scores[order], max_marks, totals[order])
    assert _close(_figures(shuffled), _figures(quiz_statistics(scores, max_marks, totals)))


@settings(max_examples=150, deadline=None)
@given(quizzes(), st.sampled_from([0.5, 3.0, 10.0]))
def test_scaling_every_item_scales_nothing(quiz, factor):
    """Fractions and ratios: an item worth 10 points instead of 1, and every other in step,
    leaves every figure as it was."""
    scores, max_marks, totals = quiz
    scaled = quiz_statistics(scores, max_marks * factor, totals * factor)
    assert _close(_figures(scaled), _figures(quiz_statistics(scores, max_marks, totals)))


@settings(max_examples=150, deadline=None)
@given(quizzes(), st.randoms(use_true_random=False))
def test_reordering_items_reorders_their_figures(quiz, random):
    scores, max_marks, totals = quiz
    order = list(range(len(max_marks)))
    random.shuffle(order)
    moved = quiz_statistics(scores[:, order], max_marks[order], totals)
    original = quiz_statistics(scores, max_marks, totals)
    assert _close(_figures(moved)[: len(FIGURES)], _figures(original)[: len(FIGURES)])
    for new, old in zip(moved.items, (original.items[i] for i in order), strict=True):
        assert _close(
            [getattr(new, n) for n in ITEM_FIGURES], [getattr(old, n) for n in ITEM_FIGURES]
        )
        assert new.answered == old.answered


def test_a_covariance_with_the_total_that_is_zero_but_for_rounding_is_zero_in_any_order():
    """Item 1 does not vary with the total (its covariance with item 3 is 0 by symmetry, and
    item 2 mirrors it), so its effective weight is 0 whatever the order of the attempts; the
    last bit of the sums once made it a 1e-8 weight in one order and "negative" in another."""
    first = np.array([0.1, 0.7, 0.1, 0.7, 0.3, 0.3])
    third = np.array([0.2, 0.2, 0.9, 0.9, 0.55, 0.55])
    scores = np.stack([first, 0.9 - first, third], axis=1)
    max_marks = np.ones(3)
    totals = scores.sum(axis=1)
    weights = set()
    for seed in range(50):
        order = np.random.default_rng(seed).permutation(len(totals))
        report = quiz_statistics(scores[order], max_marks, totals[order])
        weights.add(tuple(item.effective_weight for item in report.items))
    assert weights == {(0.0, 0.0, 1.0)}
