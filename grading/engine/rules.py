"""Every rule the engine names a wrong answer by, in one table: its code, kind, title and sentence.

A rule explains a wrong answer that the instructor's checks and the family's named mistakes left
unexplained. Two kinds, as `Finding.kind` has them:

- "near-miss": the right value changed in a recognisable way (a flipped sign, a power of ten, a
  percentage, a stray factor of √d_k or d_k, squared, rooted, the reciprocal, the right values in
  the wrong order, too few significant figures). It is matched against the right value, so it is
  precise, and it is tried first.
- "structure": a property every right answer of its kind has (probabilities in [0, 1] summing to
  1, a symmetric Jacobian whose rows sum to 0, a variance that is not negative...). It needs no
  right value and is the fallback for a wrong answer nothing else explains
  (grading.engine.structure).

The learner's sentence speaks the lesson's terms and never states the right value (nor a value it
can be read from, such as the right sum or the right p). `code` is stored with the response
(`detail["diagnosis"]`), so codes never change; the instructor pages read `title` and `kind`
through `rule_for(code)`. The older generic slips keep their codes ("sign-flipped",
"power-of-ten", "factor-sqrt-dk", "factor-dk", "squared", "square-rooted",
"rounded-too-coarsely") and are near misses.

Margins (tests/grading/engine/test_rules.py proves each): a near miss fires only on a value within
the grading tolerance of its trigger value (NEAR_MISS_MARGIN tolerances), the significant-figure
near miss only within one unit in the last figure the learner typed (SIG_FIG_MARGIN units); a
structural rule fires only when its property fails by more than STRUCTURE_MARGIN times the most
a within-tolerance right answer could move it, so none fires on a right answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from grading.engine.i18n import gettext_noop

RuleKind = Literal["structure", "near-miss"]

# What a family's answer is (Family.answer_kind); the structural rules are chosen by it.
ANSWER_KINDS = (
    "probabilities",  # a softmax output vector
    "probability",  # one probability
    "largest-probability",  # the largest entry of a softmax output
    "jacobian",  # the softmax Jacobian diag(p) − p pᵀ
    "slope",  # one entry ∂pᵢ/∂zⱼ of that Jacobian (givens i, j)
    "largest-slope",  # max |∂pᵢ/∂zⱼ|
    "variance",
    "standard-deviation",
    "scaled-score",  # a score divided by a scale, q·k / √d_k
    "divisor",  # the positive number a score is divided by
)
FRACTION_KINDS = frozenset({"probabilities", "probability", "largest-probability"})

# A near miss fires only within this many grading tolerances of its trigger value.
NEAR_MISS_MARGIN = 1.0
# Too few significant figures fires only within this many units in the learner's last figure.
SIG_FIG_MARGIN = 1.0
# A structural rule fires only beyond this many times the most a right answer could move.
# The table's order is the order rules are tried in: near misses first, then structure.
STRUCTURE_MARGIN = 1.0
# The largest softmax slope: p(1 − p) and p_i p_j are at most 1/4.
MAX_SLOPE = 0.25


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: stable code, kind, instructor-facing title, learner sentence, when it fires.

    title and sentence are English, marked for translation (grading.engine.sentences translates
    them); sentence may hold %(fields)s the engine fills (a factor, a count, the
    learner's own p);
    kinds: the answer kinds it applies to (empty: every answer); misconception: the
    misconception it points to, used only where the family lists that misconception."""

    code: str
    kind: RuleKind
    title: str
    sentence: str
    fires: str
    kinds: frozenset[str] = frozenset()
    costs_try: bool = True
    misconception: str | None = None


def _rule(
    code: str,
    kind: RuleKind,
    title: str,
    sentence: str,
    fires: str,
    kinds: tuple[str, ...] = (),
    *,
    costs_try: bool = True,
    misconception: str | None = None,
) -> Rule:
    return Rule(code, kind, title, sentence, fires, frozenset(kinds), costs_try, misconception)


_PROBABILITY_KINDS = ("probability", "largest-probability")

_TABLE = (
    # --- near misses: the right value, changed in a recognisable way (checked in this order)
    _rule(
        "sign-flipped",
        "near-miss",
        gettext_noop("sign flipped"),
        gettext_noop("Your value has the wrong sign."),
        "within tolerance of −answer",
    ),
    _rule(
        "percentage-for-fraction",
        "near-miss",
        gettext_noop("a percentage for a probability"),
        gettext_noop(
            "Your value looks like a percentage: the question asks for a probability, a fraction "
            "between 0 and 1, so divide by 100."
        ),
        "within tolerance of 100 × answer, for a probability",
        ("probabilities", *_PROBABILITY_KINDS),
    ),
    _rule(
        "factor-sqrt-dk",
        "near-miss",
        gettext_noop("off by a factor √d_k"),
        gettext_noop(
            "Your value is %(direction)s by a factor of √dₖ = %(factor)s: check where dₖ enters "
            "the formula and whether it is under a root."
        ),
        "within tolerance of answer × √d_k or answer / √d_k (givens with a width d_k > 1)",
    ),
    _rule(
        "factor-dk",
        "near-miss",
        gettext_noop("off by a factor d_k"),
        gettext_noop(
            "Your value is %(direction)s by a factor of dₖ = %(factor)s: check where dₖ enters the "
            "formula and whether it is under a root."
        ),
        "within tolerance of answer × d_k or answer / d_k (givens with a width d_k > 1)",
    ),
    _rule(
        "standard-deviation-for-variance",
        "near-miss",
        gettext_noop("a standard deviation for a variance"),
        gettext_noop(
            "Your value looks like a standard deviation: the question asks for a variance, the "
            "square of the standard deviation."
        ),
        "within tolerance of √answer, for a variance",
        ("variance",),
        misconception="std-for-variance",
    ),
    _rule(
        "variance-for-standard-deviation",
        "near-miss",
        gettext_noop("a variance for a standard deviation"),
        gettext_noop(
            "Your value looks like a variance: the question asks for a standard deviation, the "
            "square root of the variance."
        ),
        "within tolerance of answer², for a standard deviation",
        ("standard-deviation",),
        misconception="variance-for-std",
    ),
    _rule(
        "squared",
        "near-miss",
        gettext_noop("squared"),
        gettext_noop(
            "Your value is the square of the correct one: check whether something was squared "
            "that should not be."
        ),
        "within tolerance of answer² (not for a standard deviation)",
    ),
    _rule(
        "square-rooted",
        "near-miss",
        gettext_noop("square-rooted"),
        gettext_noop(
            "Your value is the square root of the correct one: check whether a square root was "
            "taken too early, or a square left out."
        ),
        "within tolerance of √answer, for an answer ≥ 0 (not for a variance)",
    ),
    _rule(
        "reciprocal",
        "near-miss",
        gettext_noop("the reciprocal"),
        gettext_noop(
            "Your value is the reciprocal of the correct one: check what divides what; the score "
            "is divided by the scale, not multiplied by it."
        ),
        "within tolerance of 1 / answer, for a scaled score or a divisor",
        ("scaled-score", "divisor"),
    ),
    _rule(
        "power-of-ten",
        "near-miss",
        gettext_noop("off by a power of ten"),
        gettext_noop(
            "Your value is %(direction)s by a factor of %(factor)s: check the decimal point, "
            "percentages and powers of ten."
        ),
        "within tolerance of answer × 10^k, k = ±1 … ±6",
    ),
    _rule(
        "probabilities-permuted",
        "near-miss",
        gettext_noop("right probabilities, wrong order"),
        gettext_noop(
            "These look like the right probabilities in the wrong order: each pᵢ belongs to its "
            "own logit zᵢ, and the largest logit gets the largest probability."
        ),
        "sorted, within tolerance of the sorted answer",
        ("probabilities",),
    ),
    _rule(
        "rounded-too-coarsely",
        "near-miss",
        gettext_noop("too few significant figures"),
        gettext_noop(
            "Your value is rounded to too few significant figures for the tolerance: give at "
            "least %(needed)s significant figures, and keep more in intermediate steps."
        ),
        "every wrong entry is the answer rounded or cut to fewer figures than it needs",
        costs_try=False,
    ),
    # --- structure: what every right answer of its kind is (checked in this order)
    _rule(
        "probability-out-of-range",
        "structure",
        gettext_noop("probability outside [0, 1]"),
        gettext_noop(
            "A probability is never negative and never above 1: softmax takes exponentials, which "
            "are positive, and divides them by their sum."
        ),
        "an entry below 0 or above 1",
        ("probabilities", *_PROBABILITY_KINDS),
    ),
    _rule(
        "probabilities-do-not-sum-to-1",
        "structure",
        gettext_noop("probabilities do not sum to 1"),
        gettext_noop(
            "Your probabilities do not add up to 1: softmax divides every exponential by the sum "
            "of them all, so its outputs always sum to 1."
        ),
        "the entries' sum is not 1",
        ("probabilities",),
        misconception="no-normalisation",
    ),
    _rule(
        "logit-order-not-kept",
        "structure",
        gettext_noop("logit order not kept"),
        gettext_noop(
            "The order of the logits is not kept: softmax is increasing, so a larger logit always "
            "gets a larger probability."
        ),
        "zᵢ > zⱼ but pᵢ < pⱼ",
        ("probabilities",),
    ),
    _rule(
        "largest-probability-below-uniform",
        "structure",
        gettext_noop("largest probability below 1/n"),
        gettext_noop(
            "The largest of %(n)s probabilities that sum to 1 is at least 1/%(n)s: your value is "
            "too small to be the largest."
        ),
        "below 1/n for n logits",
        ("largest-probability",),
    ),
    _rule(
        "slope-sign",
        "structure",
        gettext_noop("slope with the wrong sign"),
        gettext_noop(
            "A slope of softmax has a fixed sign: ∂pᵢ/∂zᵢ = pᵢ(1 − pᵢ) is positive, and "
            "∂pᵢ/∂zⱼ = −pᵢpⱼ for i ≠ j is negative."
        ),
        "a diagonal slope below 0 or an off-diagonal one above 0",
        ("slope",),
        misconception="sign-flipped",
    ),
    _rule(
        "slope-magnitude-negative",
        "structure",
        gettext_noop("negative magnitude"),
        gettext_noop("A magnitude |∂pᵢ/∂zⱼ| is never negative."),
        "below 0",
        ("largest-slope",),
    ),
    _rule(
        "jacobian-not-symmetric",
        "structure",
        gettext_noop("Jacobian not symmetric"),
        gettext_noop(
            "Your matrix is not symmetric: the softmax Jacobian diag(p) − p pᵀ has "
            "∂pᵢ/∂zⱼ = ∂pⱼ/∂zᵢ = −pᵢpⱼ."
        ),
        "some |J_ij − J_ji| too large",
        ("jacobian",),
    ),
    _rule(
        "jacobian-rows-do-not-sum-to-0",
        "structure",
        gettext_noop("rows do not sum to 0"),
        gettext_noop(
            "The rows (and columns) of your matrix do not sum to 0: the probabilities always sum "
            "to 1, so raising any logit moves them by amounts that cancel."
        ),
        "some row or column sum is not 0",
        ("jacobian",),
    ),
    _rule(
        "jacobian-signs-flipped",
        "structure",
        gettext_noop("every sign flipped"),
        gettext_noop(
            "Every sign in your matrix is flipped: raising zᵢ raises pᵢ (a positive diagonal) and "
            "lowers every other probability (negative entries off the diagonal)."
        ),
        "the negated matrix is diag(q) − q qᵀ for some probability vector q",
        ("jacobian",),
        misconception="sign-flipped",
    ),
    _rule(
        "jacobian-sign-pattern",
        "structure",
        gettext_noop("diagonal not positive or off-diagonal positive"),
        gettext_noop(
            "The signs are off: raising zᵢ raises pᵢ, so the diagonal is positive, and lowers "
            "every other probability, so the entries off the diagonal are not positive."
        ),
        "a diagonal entry below 0 or an off-diagonal entry above 0",
        ("jacobian",),
    ),
    _rule(
        "slope-too-large",
        "structure",
        gettext_noop("slope larger than 1/4"),
        gettext_noop(
            "No slope of softmax is larger than 1/4 in size: pᵢ(1 − pᵢ) and pᵢpⱼ (with "
            "pᵢ + pⱼ ≤ 1) are at most 1/4."
        ),
        "|value| above 1/4",
        ("slope", "largest-slope", "jacobian"),
    ),
    _rule(
        "jacobian-probabilities-permuted",
        "structure",
        gettext_noop("Jacobian of reordered probabilities"),
        gettext_noop(
            "Your matrix has the structure of a softmax Jacobian, diag(p) − p pᵀ, but with the "
            "probabilities in the wrong order: row and column i belong to pᵢ = softmax(z)ᵢ."
        ),
        "equal to diag(q) − q qᵀ for q a reordering of softmax(z)",
        ("jacobian",),
    ),
    _rule(
        "jacobian-from-other-probabilities",
        "structure",
        gettext_noop("Jacobian of other probabilities"),
        gettext_noop(
            "Your matrix has the structure of a softmax Jacobian, diag(p) − p pᵀ, but for "
            "p = %(p)s: those are not softmax(z) for these logits; recompute the probabilities "
            "first."
        ),
        "equal to diag(q) − q qᵀ for a probability vector q that is not softmax(z)",
        ("jacobian",),
    ),
    _rule(
        "jacobian-not-softmax-form",
        "structure",
        gettext_noop("not diag(p) − ppᵀ for any p"),
        gettext_noop(
            "Your matrix is symmetric and its rows sum to 0, but no probability vector p gives it "
            "as diag(p) − p pᵀ: each diagonal entry is pᵢ(1 − pᵢ) and each off-diagonal entry "
            "−pᵢ pⱼ, for the same p throughout."
        ),
        "no probability vector q gives diag(q) − q qᵀ within FORM_MARGIN tolerances",
        ("jacobian",),
    ),
    _rule(
        "negative-variance",
        "structure",
        gettext_noop("negative variance"),
        gettext_noop("A variance is never negative: it is the mean of squared deviations."),
        "below 0",
        ("variance",),
    ),
    _rule(
        "negative-standard-deviation",
        "structure",
        gettext_noop("negative standard deviation"),
        gettext_noop(
            "A standard deviation is never negative: it is the square root of the variance."
        ),
        "below 0",
        ("standard-deviation",),
    ),
    _rule(
        "divisor-not-positive",
        "structure",
        gettext_noop("divisor not positive"),
        gettext_noop(
            "The divisor is a positive number: a negative scale would flip the sign of every score."
        ),
        "below 0",
        ("divisor",),
    ),
)
RULES: MappingProxyType[str, Rule] = MappingProxyType({rule.code: rule for rule in _TABLE})
NEAR_MISSES = tuple(rule.code for rule in _TABLE if rule.kind == "near-miss")
STRUCTURES = tuple(rule.code for rule in _TABLE if rule.kind == "structure")


def rule_for(code: str | None) -> Rule | None:
    """The rule a stored diagnosis code names, e.g. rule_for("sign-flipped").title, or None
    for a code no rule has (None itself, or a code from an older engine)."""
    return RULES.get(code) if isinstance(code, str) else None


def applies(rule: Rule, answer_kind: str | None) -> bool:
    """Whether a rule is tried on an answer of this kind (a rule with no kinds: on every one)."""
    return not rule.kinds or answer_kind in rule.kinds
