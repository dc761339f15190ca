"""Moodle's quiz statistics (docs/statistics.md gives every formula and a worked example).

Pure Python + NumPy: no Django import, so the data layer picks the rows (first attempts or all
attempts, submitted ones only) and this module only computes. Its input:

- `scores`: one row per attempt, one column per quiz item in quiz order, each entry the item's
  score as a fraction of its maximum (0 to 1). NaN marks an item the attempt has no counted answer
  for. Moodle scores such an item 0 (a submitted attempt's unanswered question has no mark, and
  its sums count it as 0), and so does this module; `ItemStatistics.answered` still tells how many
  attempts did answer, so a page can say "nobody answered".
- `max_marks`: each item's maximum in points (its `QuizItem.points`).
- `totals`: each attempt's total in points (`Attempt.score`). The quiz-level figures describe
  these totals, as Moodle's describe the attempts' grades; the item-level ones use the sum of the
  item marks, as Moodle's do, so an attempt whose total differs from its marks' sum (an override
  of the total alone) moves only the quiz-level figures.

Moodle shows most figures as percentages; here every one is a fraction (mean 0.6, facility 0.6,
discrimination index 0.32, coefficient of internal consistency 0.3), as the API sends them.
A figure that cannot be computed (too few attempts, zero variance) is None, never NaN or inf, and
`undefined` maps its name to the reason, in words an instructor can read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

NO_ATTEMPTS = "no attempts"
FEWER_THAN_TWO = "fewer than two attempts"
FEWER_THAN_THREE = "fewer than three attempts"
FEWER_THAN_FOUR = "fewer than four attempts"
EQUAL_TOTALS = "every attempt has the same total, so the totals have no variance"
ONE_ITEM = "a quiz of one item has no internal consistency"
ABOVE_ONE = "the coefficient of internal consistency exceeds 1 (totals differ from item marks)"
ITEM_CONSTANT = "every attempt has the same score on this item, so it has no variance"
REST_CONSTANT = "every attempt has the same score on the rest of the quiz, so it has no variance"
NEGATIVE_COVARIANCE = "the item's marks vary against the total (negative covariance)"
NO_COVARIANCE = "no item's marks vary with the total"
NO_GUESS = "no random guess score for this kind of item"

# Item kinds for random_guess_score: Question.Kind's values, and "problem" for a typed answer.
SINGLE, MULTIPLE, TRUE_FALSE, PROBLEM = "single", "multiple", "true_false", "problem"


@dataclass(frozen=True, slots=True)
class QuizStatistics:
    """The quiz level: the attempts' totals, scores as fractions of the quiz's maximum."""

    n: int
    mean: float | None
    median: float | None
    sd: float | None
    skewness: float | None
    kurtosis: float | None
    cronbach_alpha: float | None  # Moodle's coefficient of internal consistency (CIC)
    error_ratio: float | None
    standard_error: float | None
    undefined: dict[str, str] = field(default_factory=dict)


# The quiz level's figures, in the order Moodle's report and the API list them.
QUIZ_FIGURES = tuple(f.name for f in fields(QuizStatistics) if f.name not in ("n", "undefined"))

# The figures that are shares of a maximum (of the quiz's or an item's): pages show them as
# percentages and the CSV names them fractions (teaching/numbers.py); the others (skewness,
# kurtosis, the coefficient of internal consistency, the error ratio, discrimination) are
# coefficients, shown as plain decimals.
SHARES = frozenset(
    {
        "mean",
        "median",
        "sd",
        "standard_error",
        "facility",
        "random_guess_score",
        "intended_weight",
        "effective_weight",
    }
)


@dataclass(frozen=True, slots=True)
class ItemStatistics:
    """One item (a column), scores as fractions of the item's maximum."""

    position: int  # 1 for the quiz's first item
    n: int  # attempts counted
    answered: int  # of those, the attempts with a counted answer to this item
    facility: float | None
    sd: float | None
    random_guess_score: float | None
    intended_weight: float
    effective_weight: float | None
    discrimination_index: float | None
    discriminative_efficiency: float | None
    undefined: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class QuizReport:
    """The quiz level and its items in quiz order."""

    quiz: QuizStatistics
    items: tuple[ItemStatistics, ...]


def random_guess_score(kind: str, choices: int = 0, correct: int = 1) -> float | None:
    """The mean score of a learner who guesses, as Moodle counts it, e.g. ('single', 4) → 0.25.

    A single choice or true/false question: the share of choices that are right. A multiple
    choice question: None, as in Moodle (what a guess scores depends on how many boxes a guesser
    ticks). A problem: 0, since a typed number is not found by guessing.
    """
    if kind in (SINGLE, TRUE_FALSE):
        if choices < 1 or not 0 <= correct <= choices:
            raise ValueError(f"{kind}: {correct} correct of {choices} choices is not a question")
        return correct / choices
    if kind == MULTIPLE:
        return None
    if kind == PROBLEM:
        return 0.0
    raise ValueError(f"unknown item kind {kind!r}")


def quiz_statistics(
    scores: npt.ArrayLike,
    max_marks: Sequence[float],
    totals: Sequence[float],
    random_guess_scores: Sequence[float | None] | None = None,
) -> QuizReport:
    """Moodle's quiz and item statistics for these attempts (see the module docstring)."""
    fractions, marks_max, total = _checked(scores, max_marks, totals)
    count, items = fractions.shape
    guesses = list(random_guess_scores) if random_guess_scores is not None else [None] * items
    if len(guesses) != items:
        raise ValueError(f"{len(guesses)} random guess scores for {items} items")
    answered = (~np.isnan(fractions)).sum(axis=0)
    fractions = np.nan_to_num(fractions, nan=0.0)
    marks = fractions * marks_max
    item_variances = _variances(marks, marks_max)
    quiz = _quiz_level(total, float(marks_max.sum()), items, item_variances)
    columns = _item_level(fractions, marks, marks_max)
    report_items = []
    for index in range(items):
        guess = guesses[index]
        values = {name: column[index] for name, column in columns.items()}
        values["random_guess_score"] = NO_GUESS if guess is None else float(guess)
        undefined = {name: value for name, value in values.items() if isinstance(value, str)}
        numbers = {name: (None if isinstance(v, str) else v) for name, v in values.items()}
        report_items.append(
            ItemStatistics(
                position=index + 1,
                n=count,
                answered=int(answered[index]),
                intended_weight=float(marks_max[index] / marks_max.sum()),
                undefined=undefined,
                **numbers,
            )
        )
    return QuizReport(quiz=quiz, items=tuple(report_items))


def _checked(
    scores: npt.ArrayLike, max_marks: Sequence[float], totals: Sequence[float]
) -> tuple[FloatArray, FloatArray, FloatArray]:
    fractions = np.asarray(scores, dtype=np.float64)
    marks_max = np.asarray(max_marks, dtype=np.float64)
    total = np.asarray(totals, dtype=np.float64)
    if marks_max.ndim != 1 or not marks_max.size:
        raise ValueError("give each item's maximum mark, at least one item")
    if not (np.isfinite(marks_max) & (marks_max > 0)).all():
        raise ValueError("every item's maximum mark must be a positive number")
    if fractions.size == 0:
        fractions = fractions.reshape(0, marks_max.size)
    if fractions.ndim != 2 or fractions.shape[1] != marks_max.size:
        raise ValueError(f"scores must be attempts × {marks_max.size} items")
    if np.isinf(fractions).any():
        raise ValueError("scores must be finite numbers or NaN (no counted answer)")
    if total.shape != (fractions.shape[0],) or not np.isfinite(total).all():
        raise ValueError(f"give one finite total per attempt ({fractions.shape[0]})")
    return fractions, marks_max, total


# Values that differ by less than this share of their scale (an item's maximum, the quiz's) are
# equal: 0.1 + 0.2 and 0.3 are the same score, and a "variance" made of their last bit would
# turn into a coefficient of -1e32 or a discrimination index made of rounding noise.
SAME = 1e-9


def _deviations(values: FloatArray, scale: FloatArray | float) -> FloatArray:
    """Deviations from the mean along the first axis; exactly 0 in a column whose values
    differ by no more than SAME × its scale."""
    deviation = values - values.mean(axis=0)
    constant = np.ptp(values, axis=0) <= SAME * np.asarray(scale)
    return np.where(constant, 0.0, deviation)


def _variances(marks: FloatArray, marks_max: FloatArray) -> FloatArray:
    count = marks.shape[0]
    if count < 2:
        return np.full(marks.shape[1], np.nan)
    return (_deviations(marks, marks_max) ** 2).sum(axis=0) / (count - 1)


def _quiz_level(
    totals: FloatArray, quiz_max: float, items: int, item_variances: FloatArray
) -> QuizStatistics:
    count = totals.size
    figures: dict[str, float | None] = dict.fromkeys(QUIZ_FIGURES)
    undefined: dict[str, str] = {}

    def missing(reason: str, *names: str) -> None:
        for name in names:
            undefined.setdefault(name, reason)

    if count == 0:
        missing(NO_ATTEMPTS, *figures)
        return QuizStatistics(n=0, undefined=undefined, **figures)
    figures["mean"] = float(totals.mean()) / quiz_max
    figures["median"] = float(np.median(totals)) / quiz_max
    rest = ("skewness", "kurtosis", "cronbach_alpha", "error_ratio", "standard_error")
    if count < 2:
        missing(FEWER_THAN_TWO, "sd", *rest)
        return QuizStatistics(n=count, undefined=undefined, **figures)
    deviation = _deviations(totals[:, None], quiz_max)[:, 0]
    k2 = float((deviation**2).sum()) / (count - 1)
    figures["sd"] = k2**0.5 / quiz_max
    if k2 == 0:
        missing(EQUAL_TOTALS, *rest)
        return QuizStatistics(n=count, undefined=undefined, **figures)
    # Moodle's moments about the mean (m) and its sample-corrected cumulants (k).
    m2, m3, m4 = ((deviation**power).sum() / count for power in (2, 3, 4))
    if count >= 3:
        k3 = count**2 * m3 / ((count - 1) * (count - 2))
        figures["skewness"] = float(k3 / k2**1.5)
    else:
        missing(FEWER_THAN_THREE, "skewness")
    if count >= 4:
        numerator = count**2 * ((count + 1) * m4 - 3 * (count - 1) * m2**2)
        k4 = numerator / ((count - 1) * (count - 2) * (count - 3))
        figures["kurtosis"] = float(k4 / k2**2)
    else:
        missing(FEWER_THAN_FOUR, "kurtosis")
    if items < 2:
        missing(ONE_ITEM, "cronbach_alpha", "error_ratio", "standard_error")
        return QuizStatistics(n=count, undefined=undefined, **figures)
    alpha = items / (items - 1) * (1 - float(item_variances.sum()) / k2)
    figures["cronbach_alpha"] = alpha
    if alpha > 1:
        missing(ABOVE_ONE, "error_ratio", "standard_error")
    else:
        figures["error_ratio"] = (1 - alpha) ** 0.5
        figures["standard_error"] = figures["error_ratio"] * figures["sd"]
    return QuizStatistics(n=count, undefined=undefined, **figures)


def _item_level(
    fractions: FloatArray, marks: FloatArray, marks_max: FloatArray
) -> dict[str, list[float | str]]:
    """Each item statistic per column: a number, or the reason (a str) it is undefined."""
    count, items = marks.shape
    names = ("facility", "sd", "effective_weight", "discrimination_index")
    columns: dict[str, list[float | str]] = {name: [NO_ATTEMPTS] * items for name in names}
    columns["discriminative_efficiency"] = [NO_ATTEMPTS] * items
    if count == 0:
        return columns
    columns["facility"] = fractions.mean(axis=0).tolist()
    if count < 2:
        for name in ("sd", *names[2:], "discriminative_efficiency"):
            columns[name] = [FEWER_THAN_TWO] * items
        return columns
    sums = marks.sum(axis=1)
    rest = sums[:, None] - marks  # each attempt's marks on the other items
    quiz_max = marks_max.sum()
    item_dev = _deviations(marks, marks_max)
    rest_dev = _deviations(rest, quiz_max - marks_max)
    sum_dev = _deviations(sums[:, None], quiz_max)
    item_var = (item_dev**2).sum(axis=0) / (count - 1)
    rest_var = (rest_dev**2).sum(axis=0) / (count - 1)
    covariance = (item_dev * rest_dev).sum(axis=0) / (count - 1)
    # The largest covariance these two sets of values could have: pair them in sorted order.
    covariance_max = (np.sort(item_dev, axis=0) * np.sort(rest_dev, axis=0)).sum(axis=0) / (
        count - 1
    )
    with_total = (item_dev * sum_dev).sum(axis=0) / (count - 1)
    # A covariance that is zero but for rounding would flip between a tiny weight and "negative"
    # with the order of the attempts: below SAME of its scale it is zero.
    with_total = np.where(np.abs(with_total) <= SAME * marks_max * quiz_max, 0.0, with_total)
    columns["sd"] = (np.sqrt(item_var) / marks_max).tolist()
    item_flat, rest_flat = item_var == 0, rest_var == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        # Rounding can carry a perfect correlation a hair past ±1.
        index = np.clip(covariance / np.sqrt(item_var * rest_var), -1.0, 1.0)
        efficiency = np.minimum(covariance / covariance_max, 1.0)
    for name, values in (
        ("discrimination_index", index),
        ("discriminative_efficiency", efficiency),
    ):
        columns[name] = [
            ITEM_CONSTANT if item_flat[i] else REST_CONSTANT if rest_flat[i] else float(values[i])
            for i in range(items)
        ]
    positive = with_total >= 0
    denominator = float(np.sqrt(with_total[positive]).sum())
    columns["effective_weight"] = [
        NEGATIVE_COVARIANCE
        if not positive[i]
        else NO_COVARIANCE
        if denominator == 0
        else float(np.sqrt(with_total[i]) / denominator)
        for i in range(items)
    ]
    return columns
