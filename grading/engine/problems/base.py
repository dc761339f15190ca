"""What every problem family shares: parameters, solutions, variant generation."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from grading.engine.checks import Tolerance, within_tolerance
from grading.engine.i18n import gettext as _

ParamKind = Literal["int", "float", "int_list", "float_list"]
FloatArray = npt.NDArray[np.float64]

# A drawn variant must keep 0 and every mistake this many tolerances away from the answer, so
# a learner who rounds while following a misconception is still caught by it.
DRAW_MARGIN = 3.0
MAX_DRAWS = 100
MAX_LIST_LENGTH = 100
# The grading key of a variant whose family needs nothing beyond its givens (most families).
NO_KEY: Mapping[str, Any] = MappingProxyType({})


class ParamError(ValueError):
    """Problem parameters an instructor gave are not usable; .errors maps field → message."""

    def __init__(self, errors: Mapping[str, str]) -> None:
        self.errors: dict[str, str] = dict(errors)
        summary = "; ".join(f"{name}: {message}" for name, message in self.errors.items())
        super().__init__(f"invalid parameters: {summary}")


@dataclass(frozen=True, slots=True)
class ParamSpec:
    """One instructor-settable parameter, e.g. ParamSpec('d_k_choices', 'int_list', (64,), ...)."""

    name: str
    kind: ParamKind
    default: Any
    help: str
    min: float | None = None
    max: float | None = None


@dataclass(frozen=True, slots=True)
class Solution:
    """The correct answer of one variant and the value each named mistake would produce."""

    answer: FloatArray
    mistakes: dict[str, FloatArray] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Finding:
    """What is wrong with a wrong answer, found by one of the engine's rules or by a property
    check the instructor wrote. Its feedback never states the right value.

    kind: "property" (an instructor's check), "structure" (a property every right answer of its
    shape has) or "near-miss" (the right value, changed in a recognisable way); code: a stable
    identifier stored with the response; costs_try: False for a near miss the quiz may let the
    learner retry for free (too few significant figures)."""

    kind: str
    code: str
    feedback: str
    misconception: str | None = None
    costs_try: bool = True


@dataclass(frozen=True, slots=True)
class Drawn:
    """One draw, split in two: the givens (JSON-able, everything the learner is shown) and the
    grading key (JSON-able, whatever else grading needs: never shown to a learner)."""

    givens: dict[str, Any]
    grading_key: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class VariantData:
    """One learner's variant: its givens and grading key, the answer, and the mistakes worth
    diagnosing."""

    givens: dict[str, Any]
    answer: FloatArray
    mistakes: dict[str, FloatArray]
    grading_key: dict[str, Any] = field(default_factory=dict)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _clean_one(spec: ParamSpec, value: object) -> tuple[Any, str | None]:
    """Coerce one value to the spec's kind; return (value, None) or (None, message)."""
    whole = spec.kind.startswith("int")
    if spec.kind.endswith("_list"):
        if not isinstance(value, list | tuple):
            return None, _("Must be a list of numbers.")
        if not value:
            return None, _("Must not be empty.")
        if len(value) > MAX_LIST_LENGTH:
            return None, _("Must have at most %(count)s entries.") % {"count": MAX_LIST_LENGTH}
        items = list(value)
    else:
        items = [value]
    cleaned: list[int | float] = []
    listed = spec.kind.endswith("_list")
    for position, item in enumerate(items, start=1):
        fields = {"entry": position}
        if not _is_number(item) or not math.isfinite(item) or (whole and float(item) != int(item)):
            if whole:
                message = _("Entry %(entry)s must be a whole number.") if listed else None
                return None, message % fields if message else _("Must be a whole number.")
            if listed:
                return None, _("Entry %(entry)s must be a number.") % fields
            return None, _("Must be a number.")
        number: int | float = int(item) if whole else float(item)
        if spec.min is not None and number < spec.min:
            fields["bound"] = f"{spec.min:g}"
            if listed:
                return None, _("Entry %(entry)s must be at least %(bound)s.") % fields
            return None, _("Must be at least %(bound)s.") % fields
        if spec.max is not None and number > spec.max:
            fields["bound"] = f"{spec.max:g}"
            if listed:
                return None, _("Entry %(entry)s must be at most %(bound)s.") % fields
            return None, _("Must be at most %(bound)s.") % fields
        cleaned.append(number)
    return (cleaned if spec.kind.endswith("_list") else cleaned[0]), None


def clean_with_specs(
    specs: tuple[ParamSpec, ...], params: Mapping[str, Any] | None
) -> tuple[dict[str, Any], dict[str, str]]:
    """Fill defaults and type/range-check params against specs; return (cleaned, errors)."""
    if params is None:
        params = {}
    if not isinstance(params, Mapping):
        return {}, {"params": _("Parameters must be an object mapping names to values.")}
    known = {spec.name for spec in specs}
    errors: dict[str, str] = {}
    for name in params:
        if name not in known:
            listed = ", ".join(sorted(known)) or _("none")
            errors[str(name)] = _("Unknown parameter; the known parameters are: %(listed)s.") % {
                "listed": listed
            }
    cleaned: dict[str, Any] = {}
    for spec in specs:
        value, message = _clean_one(spec, params.get(spec.name, spec.default))
        if message is None:
            cleaned[spec.name] = value
        else:
            errors[spec.name] = message
    return cleaned, errors


class Family(ABC):
    """A kind of problem: draws givens, solves them, and knows the mistakes learners make."""

    key: str
    version: int
    title: str
    param_specs: tuple[ParamSpec, ...]
    default_tolerance: Tolerance
    mistakes: dict[str, str]
    # What the answer is, one of grading.engine.rules.ANSWER_KINDS ("probabilities",
    # "jacobian", "variance"...): it chooses the structural rules and the kind-specific near
    # misses a wrong answer is checked against. None: only the rules every answer gets.
    answer_kind: str | None = None

    def clean_params(self, params: Mapping[str, Any] | None) -> dict[str, Any]:
        """Fill defaults and check params; raise ParamError listing every bad field."""
        cleaned, errors = clean_with_specs(self.param_specs, params)
        if not errors:
            errors = self.check_params(cleaned)
        if errors:
            raise ParamError(errors)
        return cleaned

    def check_params(self, params: dict[str, Any]) -> dict[str, str]:
        """Checks across fields of already type-checked params; field → message."""
        return {}

    def generate(self, rng: np.random.Generator, params: Mapping[str, Any]) -> Drawn:
        """Draw givens and grading key; redraws (at most MAX_DRAWS times) until they
        discriminate."""
        cleaned = self.clean_params(params)
        drawn = self.split(self.draw(rng, cleaned))
        for _draw in range(MAX_DRAWS - 1):
            if self.discriminates(drawn.givens, drawn.grading_key):
                break
            drawn = self.split(self.draw(rng, cleaned))
        # If instructor parameters make every draw ambiguous, the last draw stands and
        # make_variant withholds the mistakes that cannot be told apart.
        return drawn

    def split(self, drawn: dict[str, Any]) -> Drawn:
        """Separate what draw() made into givens and grading key. Most families show the
        learner everything they draw, so by default it is all givens."""
        return Drawn(givens=drawn)

    def discriminates(
        self, givens: Mapping[str, Any], grading_key: Mapping[str, Any] = NO_KEY
    ) -> bool:
        """True if 0 and every mistake are well outside the default tolerance of the answer
        and of each other."""
        solution = self.solve(givens, grading_key)
        answer = solution.answer
        if not np.isfinite(answer).all():
            return False
        margin = self.default_tolerance.widened(DRAW_MARGIN)
        if within_tolerance(np.zeros_like(answer), answer, margin).all():
            return False
        mistakes = list(solution.mistakes.values())
        for value in mistakes:
            if value.shape != answer.shape or not np.isfinite(value).all():
                return False
            if within_tolerance(value, answer, margin).all():
                return False
        if len(mistakes) > 1:
            # Two mistakes with about the same value could not be told apart either.
            close = _close_pairs(np.stack(mistakes).reshape(len(mistakes), -1), margin)
            if (close & ~np.eye(len(mistakes), dtype=bool)).any():
                return False
        return True

    def mistake_feedback(
        self, code: str, grading_key: Mapping[str, Any] = NO_KEY
    ) -> tuple[str, str | None]:
        """The misconception a mistake names, and the sentence for it (None: no own sentence).

        A built-in family's mistake codes are misconception codes, each with its sentence (kept
        in English, marked for translation, and translated here)."""
        sentence = self.mistakes.get(code)
        return code, _(sentence) if sentence else None

    def authored_findings(
        self,
        values: FloatArray,
        givens: Mapping[str, Any],
        grading_key: Mapping[str, Any] = NO_KEY,
        tolerance: Tolerance | None = None,
    ) -> list[Finding | None] | None:
        """The instructor's own checks on a stack of wrong responses (first axis = response),
        "=" within the tolerance grading uses (the family's default when None): per response,
        the first check it fails, or None. None for the whole stack when the variant has no
        such checks (the built-in families have none)."""
        return None

    @abstractmethod
    def draw(self, rng: np.random.Generator, params: dict[str, Any]) -> dict[str, Any]:
        """Draw one candidate from cleaned params: the givens, plus anything split() keeps
        apart in the grading key."""

    @abstractmethod
    def solve(self, givens: Mapping[str, Any], grading_key: Mapping[str, Any] = NO_KEY) -> Solution:
        """The answer and mistake values, computed from the givens and the grading key alone."""

    @abstractmethod
    def answer_shape(self, givens: Mapping[str, Any]) -> tuple[int, ...]:
        """() for a number, (n,) for a vector, (n, m) for a matrix."""

    @abstractmethod
    def prompt(self, givens: Mapping[str, Any], decimal: str = ".") -> str:
        """Markdown with LaTeX stating the problem with these givens, in the active language,
        numbers written with the page's decimal separator ("," writes 0,5 and 0{,}5 in math)."""


def validate_params(family: Family, params: Mapping[str, Any] | None) -> dict[str, Any]:
    """Fill defaults, type- and range-check; raise ParamError with .errors = {field: message}."""
    return family.clean_params(params)


def _close_pairs(flat: FloatArray, tolerance: Tolerance) -> npt.NDArray[np.bool_]:
    """close[i, j]: row i of flat (K, n) lies within tolerance of row j (taken as the target)."""
    allowed = np.maximum(tolerance.atol, tolerance.rtol * np.abs(flat))
    with np.errstate(invalid="ignore"):
        return (np.abs(flat[:, np.newaxis, :] - flat[np.newaxis, :, :]) <= allowed).all(axis=2)


def offered_mistakes(solution: Solution, tolerance: Tolerance) -> dict[str, FloatArray]:
    """Mistakes that can be recognised: right shape, finite, out of tolerance of the answer
    and of every mistake offered before them (the solver's order sets the priority)."""
    answer = solution.answer
    shaped = [
        (code, np.asarray(value, dtype=np.float64))
        for code, value in solution.mistakes.items()
        if np.shape(value) == answer.shape
    ]
    if not shaped:
        return {}
    # The same test as within_tolerance, on all mistakes at once: this runs for every
    # response that is not correct, so it avoids one small-array call per mistake.
    count = len(shaped)
    flat = np.array([value for _, value in shaped]).reshape(count, -1)
    target = answer.reshape(1, -1)
    allowed = np.maximum(tolerance.atol, tolerance.rtol * np.abs(target))
    with np.errstate(invalid="ignore"):
        same = (np.abs(flat - target) <= allowed).all(axis=1)
    keep = (np.isfinite(flat).all(axis=1) & ~same).tolist()
    if sum(keep) > 1:
        # A value that fits two mistakes can only be named once; the earlier one keeps it.
        close = _close_pairs(flat, tolerance).tolist()
        offered_so_far: list[int] = []
        for index in range(count):
            if keep[index] and any(close[index][earlier] for earlier in offered_so_far):
                keep[index] = False
            if keep[index]:
                offered_so_far.append(index)
    return {code: value for (code, value), kept in zip(shaped, keep, strict=True) if kept}


def offered_scalar_mistakes(solution: Solution, tolerance: Tolerance) -> dict[str, float]:
    """offered_mistakes for a number answer, in plain floats: the same codes in the same order
    with the same values, without the array overhead that dominates for one number (grading a
    single answer asks this every time). tests/grading/engine check the two agree."""
    answer = float(solution.answer)
    atol, rtol = tolerance.atol, tolerance.rtol
    allowed = max(atol, rtol * abs(answer))
    kept: list[tuple[str, float]] = []
    for code, value in solution.mistakes.items():
        if np.shape(value) != ():
            continue
        number = float(value)
        # NaN compares False, as in the array version; a non-finite value is never offered.
        if not math.isfinite(number) or abs(number - answer) <= allowed:
            continue
        # A value that fits an earlier offered mistake can only be named once.
        if any(abs(number - earlier) <= max(atol, rtol * abs(earlier)) for _, earlier in kept):
            continue
        kept.append((code, number))
    return dict(kept)


def make_variant(
    family: Family,
    params: Mapping[str, Any] | None,
    seed: int,
    tolerance: Tolerance | None = None,
) -> VariantData:
    """Givens, answer and distinguishable mistakes for one seed, e.g. make_variant(fam, {}, 7)."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    rng = np.random.default_rng(int(seed))
    drawn = family.generate(rng, params or {})
    solution = family.solve(drawn.givens, drawn.grading_key)
    mistakes = offered_mistakes(solution, tolerance or family.default_tolerance)
    return VariantData(
        givens=drawn.givens,
        answer=solution.answer,
        mistakes=mistakes,
        grading_key=drawn.grading_key,
    )


def pick(rng: np.random.Generator, choices: list[Any]) -> Any:
    """One element of choices, keeping its Python type so givens stay JSON-able."""
    return choices[int(rng.integers(len(choices)))]


def check_length_range(params: Mapping[str, Any]) -> dict[str, str]:
    """min_length must not exceed max_length."""
    if params["min_length"] > params["max_length"]:
        return {"max_length": _("Must be at least min_length.")}
    return {}


def round_logits(values: npt.NDArray[np.float64], decimals: int = 1) -> list[float]:
    """Round to what the prompt shows; + 0.0 turns -0.0 into 0.0 so prompts never show '-0'."""
    return [float(x) + 0.0 for x in np.round(values, decimals)]
