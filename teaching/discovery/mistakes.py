"""New misconceptions: unexplained wrong answers to a problem, grouped by a simple relation to the
true answer, so an instructor can turn a group into a named mistake of a formula problem.

Pure Python + NumPy, no Django import: the data layer hands over the wrong answers that neither a
named mistake nor a generic diagnosis explained (`WrongAnswer`, one per response to a problem
whose answer is one number) and gets back
the groups (`MistakeGroup`), each with its relation in words and as a formula in the answer
syntax over `answer` and the givens' names (`mistake_formula` puts the problem's answer formula
in place of `answer`).

**Relations, simplest first.** A value that several relations explain goes to the first that
forms a group: the wrong sign; × or ÷ 10, 100, 1000; the reciprocal; the square; the square root;
× or ÷ √g, then g, for each *width* given g (named `d` or `d_…`, like d_k, or one of
WIDTH_NAMES); × or ÷ each other given; + or − each given; × or ÷ the product of two givens, × their
quotient either way; then a constant ratio (answer × r) and a constant difference (answer + c),
whose constant the answers themselves propose.

**Tolerance.** A value fits a relation when it is within 1% (RTOL, the formula problems' default
tolerance) of the relation's value for the learner's variant. A relation's value that is 0, or
itself within 1% of the answer (the square of 1), explains nothing on that variant.

**Against coincidence.** Small answers make small numbers fit many relations: a 4 typed when
the answer is 2 is its square, the answer × 2 and the answer + 2 at once. A relation is reported
only when

1. answers of at least two learners fit it, and its value is not the same for all of them: it
   holds for at least two different values on different variants (twin variants that share
   their numbers are one coincidence, not two); and
2. more answers fit it than chance explains. The chance that an answer fits is measured by
   pairing each relation value with the answers given to the variants where the relation's value
   differs (a 4 typed whatever the variant lands there as often as on its own). Counting each
   learner once per variant, the binomial probability of at least the observed number of fits,
   times the number of relations tried, must be below 1% (ALPHA). For a constant ratio or
   difference, the answer that proposed the constant is not counted, and every answer counts as
   one relation tried (each could have proposed its own constant).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
Givens = Mapping[str, FloatArray]
Factor = Callable[[Givens], FloatArray]

RTOL = 0.01
ALPHA = 0.01
MIN_LEARNERS = 2
MIN_VALUES = 2
EXAMPLES = 5
# Givens that are a width or a count, like d_k: a stray factor of g or √g is a likely slip.
WIDTH_NAMES = frozenset({"n", "N", "T", "L", "h", "heads", "width", "dim"})
_WIDTH = re.compile(r"^d(_\w+)?$")


@dataclass(frozen=True, slots=True)
class WrongAnswer:
    """One unexplained wrong answer (a Response): who, on which variant, the value typed, and
    that variant's answer and givens (numeric_givens of Variant.givens); with the response's id,
    so a group can name the responses behind it."""

    learner: int
    variant: int
    value: float
    answer: float
    givens: Mapping[str, float]
    response: int | None = None


@dataclass(frozen=True, slots=True)
class Example:
    """One answer of a group, as the instructor sees it."""

    learner: int
    value: float
    answer: float


@dataclass(frozen=True, slots=True)
class MistakeGroup:
    """Answers one relation explains, e.g. 'times-sqrt-d-k', formula 'answer * sqrt(d_k)'."""

    code: str  # usable as a mistake code: lowercase letters, digits, hyphens
    description: str
    formula: str  # answer syntax, over `answer` and the givens' names
    count: int  # answers
    variants: int  # distinct variants among them
    learners: tuple[int, ...]
    examples: tuple[Example, ...]
    responses: tuple[int, ...] = ()  # of the answers that fit, those given with a response id


@dataclass(frozen=True, slots=True)
class Relation:
    """A candidate relation: its names, and its value per variant from answers and givens."""

    code: str
    description: str
    formula: str
    value: Callable[[FloatArray, Givens], FloatArray]
    proposed: bool = False  # its constant was proposed by one of the answers


def numeric_givens(givens: Mapping[str, Any]) -> dict[str, float]:
    """The finite numbers among a variant's givens, a formula problem's `values` included."""
    found: dict[str, float] = {}
    for source in (givens, givens.get("values")):
        if not isinstance(source, Mapping):
            continue
        for name, value in source.items():
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if number and math.isfinite(value):
                found[str(name)] = float(value)
    return found


def mistake_formula(relation_formula: str, answer_formula: str) -> str:
    """The relation over the problem's variables, e.g. ('answer^2', 'd_k * s') → '(d_k * s)^2'."""
    return re.sub(r"\banswer\b", lambda _: f"({answer_formula})", relation_formula)


def is_width(name: str) -> bool:
    """Whether a given is a width or a count, like d_k (named d, d_…, or in WIDTH_NAMES)."""
    return bool(_WIDTH.match(name)) or name in WIDTH_NAMES


def _slug(text: str) -> str:
    text = text.replace("-", "minus-").replace(".", "-").replace("_", "-").lower()
    return re.sub(r"[^a-z0-9-]+", "-", text).strip("-")


def _times(
    slug: str, label: str, formula: str, factor: Factor, *, divide: bool = True
) -> list[Relation]:
    """answer × factor, and answer ÷ factor unless told not to (a formula that is not atomic
    comes bracketed)."""
    relations = [
        Relation(f"times-{slug}", f"the answer × {label}", f"answer * {formula}",
                 lambda a, g: a * factor(g)),
    ]  # fmt: skip
    if divide:
        relations.append(
            Relation(f"over-{slug}", f"the answer ÷ {label}", f"answer / {formula}",
                     lambda a, g: a / factor(g))
        )  # fmt: skip
    return relations


def _plus_minus(name: str) -> list[Relation]:
    return [
        Relation(f"plus-{_slug(name)}", f"the answer + {name}", f"answer + {name}",
                 lambda a, g: a + g[name]),
        Relation(f"minus-{_slug(name)}", f"the answer − {name}", f"answer - {name}",
                 lambda a, g: a - g[name]),
    ]  # fmt: skip


def fixed_relations(names: Iterable[str]) -> list[Relation]:
    """Every relation without a constant to find, simplest first, for givens of these names."""
    relations = [Relation("sign-flipped", "the answer with the wrong sign", "-answer", _negative)]
    for power in (10, 100, 1000):
        relations += _times(str(power), f"{power:,}", str(power), lambda g, p=power: float(p))
    relations += [
        Relation("reciprocal", "the reciprocal of the answer", "1 / answer", lambda a, g: 1 / a),
        Relation("squared", "the square of the answer", "answer^2", lambda a, g: a * a),
        Relation("square-rooted", "the square root of the answer", "sqrt(answer)",
                 lambda a, g: np.sqrt(a)),
    ]  # fmt: skip
    names = sorted(set(names))
    widths = [name for name in names if is_width(name)]
    for n in widths:
        relations += _times(f"sqrt-{_slug(n)}", f"√{n}", f"sqrt({n})", lambda g, n=n: np.sqrt(g[n]))
    for n in widths + [name for name in names if name not in widths]:
        relations += _times(_slug(n), n, n, lambda g, n=n: g[n])
    for n in names:
        relations += _plus_minus(n)
    for x, y in combinations(names, 2):
        sx, sy = _slug(x), _slug(y)
        relations += _times(
            f"{sx}-times-{sy}", f"{x}·{y}", f"({x} * {y})", lambda g, x=x, y=y: g[x] * g[y]
        )
        relations += _times(
            f"{sx}-over-{sy}",
            f"{x} ÷ {y}",
            f"{x} / {y}",
            lambda g, x=x, y=y: g[x] / g[y],
            divide=False,
        )
        relations += _times(f"{sy}-over-{sx}", f"{y} ÷ {x}", f"{y} / {x}",
                            lambda g, x=x, y=y: g[y] / g[x], divide=False)  # fmt: skip
    return relations


def _negative(answer: FloatArray, givens: Givens) -> FloatArray:
    return -answer


def discover(answers: Sequence[WrongAnswer]) -> list[MistakeGroup]:
    """The groups these wrong answers form (see the module docstring), largest first."""
    if not answers:
        return []
    sample = _Sample(answers)
    fixed = fixed_relations(sample.names)
    tried = len(fixed) + 2 * len(answers)
    found: list[tuple[Relation, npt.NDArray[np.bool_]]] = []
    for relation in fixed:
        fits = sample.test(relation, tried)
        if fits is not None:
            found.append((relation, fits))
    for propose in (_ratios, _differences):
        for relation in propose(sample):
            fits = sample.test(relation, tried)
            if fits is not None:
                found.append((relation, fits))
    groups = [sample.group(relation, fits) for relation, fits in found]
    return sorted(groups, key=lambda group: -group.count)


class _Sample:
    """The answers as arrays, by variant, and which are already claimed by a group."""

    def __init__(self, answers: Sequence[WrongAnswer]) -> None:
        self.answers = answers
        variant_ids = sorted({answer.variant for answer in answers})
        index = {variant: i for i, variant in enumerate(variant_ids)}
        first = {}
        for answer in answers:
            first.setdefault(answer.variant, answer)
        self.names = sorted({name for answer in answers for name in answer.givens})
        self.answer = np.array([first[v].answer for v in variant_ids], dtype=np.float64)
        self.givens = {
            name: np.array([first[v].givens.get(name, math.nan) for v in variant_ids])
            for name in self.names
        }
        self.values = np.array([answer.value for answer in answers], dtype=np.float64)
        if not np.isfinite(self.values).all() or not np.isfinite(self.answer).all():
            raise ValueError("every wrong answer and true answer must be a finite number")
        self.variant = np.array([index[answer.variant] for answer in answers], dtype=np.intp)
        self.sorted_values = np.sort(self.values)
        self.claimed = np.zeros(len(answers), dtype=bool)
        # Each learner counts once per variant in the test, however often they retried.
        firsts: dict[tuple[int, int], int] = {}
        for i, answer in enumerate(answers):
            firsts.setdefault((answer.learner, answer.variant), i)
        self.first_of_pair = np.zeros(len(answers), dtype=bool)
        self.first_of_pair[list(firsts.values())] = True

    def test(self, relation: Relation, tried: int) -> npt.NDArray[np.bool_] | None:
        """The open answers the relation explains (now claimed) if it passes the rule, else None."""
        with np.errstate(all="ignore"):
            target = relation.value(self.answer, self.givens)
            width = RTOL * np.abs(target)
            usable = np.isfinite(target) & (target != 0) & (np.abs(self.answer - target) > width)
            fits = usable[self.variant] & (
                np.abs(self.values - target[self.variant]) <= width[self.variant]
            )
        open_fits = fits & ~self.claimed
        learners = {self.answers[i].learner for i in np.flatnonzero(open_fits)}
        if len(learners) < MIN_LEARNERS or _distinct(target[self.variant][open_fits]) < MIN_VALUES:
            return None
        per_answer = np.where(usable, target, np.nan)[self.variant]
        chance = self._chance(target[usable], width[usable], per_answer, fits)
        counted = self.first_of_pair & ~self.claimed
        observed = int((open_fits & counted).sum())
        eligible = int((usable[self.variant] & counted).sum())
        if relation.proposed:
            observed, eligible = observed - 1, eligible - 1
        if tried * _binomial_tail(observed, eligible, chance) >= ALPHA:
            return None
        self.claimed |= open_fits
        return open_fits

    def _chance(
        self,
        windows: FloatArray,
        width: FloatArray,
        targets: FloatArray,
        fits: npt.NDArray[np.bool_],
    ) -> float:
        """How often an answer lands in a window of the relation's value for another variant
        whose value differs (a variant with the same value would fit for the same reason), with
        one fit and one miss added so that a handful of answers never reads as certainty."""
        # The sums below do not depend on the windows' order, and binary searches for sorted
        # keys run several times faster (they stay in the cache): this is discovery's hot loop.
        order = np.argsort(windows)
        low, high = windows[order] - width[order], windows[order] + width[order]

        def inside(sorted_values: FloatArray) -> npt.NDArray[np.intp]:
            return np.searchsorted(sorted_values, high, "right") - np.searchsorted(
                sorted_values, low, "left"
            )

        known = np.isfinite(targets)
        landed = np.maximum(inside(self.sorted_values) - inside(np.sort(targets[fits])), 0)
        pairs = len(self.values) - inside(np.sort(targets[known]))
        return (float(landed.sum()) + 1) / (float(pairs.sum()) + 2)

    def group(self, relation: Relation, fits: npt.NDArray[np.bool_]) -> MistakeGroup:
        chosen = [self.answers[i] for i in np.flatnonzero(fits)]
        examples: list[Example] = []
        for answer in chosen:
            if len(examples) < EXAMPLES and all(e.value != answer.value for e in examples):
                examples.append(Example(answer.learner, answer.value, answer.answer))
        return MistakeGroup(
            code=relation.code,
            description=relation.description,
            formula=relation.formula,
            count=len(chosen),
            variants=len({answer.variant for answer in chosen}),
            learners=tuple(sorted({answer.learner for answer in chosen})),
            examples=tuple(examples),
            responses=tuple(a.response for a in chosen if a.response is not None),
        )


def _distinct(values: FloatArray) -> int:
    """How many different values (more than the tolerance apart) there are among these."""
    ordered = np.sort(values)
    return int(1 + (np.diff(ordered) > 2 * RTOL * np.abs(ordered[1:])).sum()) if values.size else 0


def _binomial_tail(k: int, n: int, p: float) -> float:
    """P(X ≥ k) for X ~ Binomial(n, p), 0 < p < 1."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    log_term = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
    term = math.exp(log_term + k * math.log(p) + (n - k) * math.log1p(-p))
    total = 0.0
    for i in range(k, n + 1):
        total += term
        if term <= total * 1e-15:
            break
        term *= (n - i) / (i + 1) * p / (1 - p)
    return min(total, 1.0)


def _format_constant(value: float) -> str:
    return f"{value:.4g}"


def _clusters(values: FloatArray, scale: FloatArray) -> list[float]:
    """Centres (medians) of runs of sorted values each within 2·RTOL·scale of the run's first,
    largest runs first: the constants the answers propose."""
    order = np.argsort(values)
    runs: list[list[float]] = []
    start = None
    for i in order:
        if start is None or abs(values[i] - values[start]) > 2 * RTOL * scale[start]:
            runs.append([])
            start = i
        runs[-1].append(float(values[i]))
    runs = [run for run in runs if len(run) >= MIN_LEARNERS]
    return [float(np.median(run)) for run in sorted(runs, key=len, reverse=True)]


def _ratios(sample: _Sample) -> list[Relation]:
    open_ = ~sample.claimed
    answer = sample.answer[sample.variant][open_]
    with np.errstate(all="ignore"):
        ratio = sample.values[open_] / answer
    keep = np.isfinite(ratio) & (ratio != 0)
    relations = []
    for centre in _clusters(ratio[keep], np.abs(ratio[keep])):
        text = _format_constant(centre)
        r = float(text)
        fixed = (-1.0, 1.0, 10.0, 100.0, 1000.0, 0.1, 0.01, 0.001)
        if any(abs(r - f) <= RTOL * abs(f) for f in fixed):
            continue  # the sign and powers of ten had their own, stricter, test
        relations.append(
            Relation(
                f"ratio-{_slug(text)}",
                f"the answer × {text} (a constant ratio)",
                f"answer * {text}",
                lambda a, g, r=r: a * r,
                proposed=True,
            )
        )
    return relations


def _differences(sample: _Sample) -> list[Relation]:
    open_ = ~sample.claimed
    difference = sample.values[open_] - sample.answer[sample.variant][open_]
    relations = []
    for centre in _clusters(difference, np.abs(sample.values[open_])):
        text = _format_constant(centre)
        c = float(text)
        sign = "+" if c >= 0 else "-"
        relations.append(
            Relation(
                f"difference-{_slug(text)}",
                f"the answer {sign} {abs(c):g} (a constant difference)",
                f"answer {sign} {_format_constant(abs(c))}",
                lambda a, g, c=c: a + c,
                proposed=True,
            )
        )
    return relations
