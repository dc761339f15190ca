"""The structural rules: properties every right answer of its kind has, checked on wrong answers.

Each check gets a stack of wrong responses (first axis = response) and says which fail its
property. A check never fires on a value within tolerance of the right answer: it compares with
a bound of STRUCTURE_MARGIN times the most the tolerance lets a right answer move the quantity
it checks (a sum moves by at most the sum of the entries' allowances). The right answer is used
only for those allowances and, where the kind says so, its sign or order, never in feedback.
Codes, sentences and the order of the checks per kind live in grading.engine.rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from grading.engine.checks import Tolerance
from grading.engine.rules import (
    MAX_SLOPE,
    NEAR_MISS_MARGIN,
    RULES,
    STRUCTURE_MARGIN,
    STRUCTURES,
    applies,
)

FloatArray = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]
# A Jacobian built from probabilities this close (largest entry difference) to softmax(z) is
# not called "built from other probabilities": printing them would all but print the answer.
OTHER_P_MARGIN = 0.01
# A matrix is "not diag(q) − q qᵀ for any q" only when no q comes within this many tolerances:
# a right Jacobian nudged within tolerance moves its fitted q, and the fit's own error with it.
FORM_MARGIN = 4.0
# Float noise in a bound computed from allowances of exactly 0.
_EPSILON = 1e-12
_RIDGE = 1e-12  # keeps the normal equations solvable where a qᵢ leaves them singular


class _Context:
    """What the checks of one variant share: the answer, its allowances, the tolerance."""

    def __init__(self, answer: FloatArray, tol: Tolerance, givens: Mapping[str, Any]) -> None:
        self.answer = answer
        self.tol = tol
        self.givens = givens
        self.allowed = np.maximum(tol.atol, tol.rtol * np.abs(answer)) * STRUCTURE_MARGIN
        self.allowed = self.allowed + _EPSILON
        self._p: FloatArray | None = None

    def wrong(self, values: FloatArray) -> Bools:
        """Per response, whether some entry is out of tolerance of the answer: the rules that
        fit probabilities to a matrix are ill-conditioned near pᵢ = 1/2, so they ask this too."""
        outside = np.abs(values - self.answer) > self.allowed
        return outside.reshape(values.shape[0], -1).any(axis=1)

    @property
    def p(self) -> FloatArray:
        """The probabilities the right Jacobian is built from."""
        if self._p is None:
            fitted, _ = fit_probabilities(self.answer[np.newaxis], self.tol)
            self._p = fitted[0]
        return self._p


Check = Callable[[FloatArray, _Context], Bools | tuple[Bools, list[dict[str, object]]]]


def _flat(values: FloatArray) -> FloatArray:
    return values.reshape(values.shape[0], -1)


def _out_of_range(values: FloatArray, ctx: _Context) -> Bools:
    allowed = ctx.allowed.reshape(-1)
    flat = _flat(values)
    return ((flat < -allowed) | (flat > 1 + allowed)).any(axis=1)


def _sum_not_1(values: FloatArray, ctx: _Context) -> Bools:
    return np.abs(_flat(values).sum(axis=1) - 1) > ctx.allowed.sum()


def _order_broken(values: FloatArray, ctx: _Context) -> Bools:
    # softmax is increasing, so the answer's order is the logits' order; equal logits give
    # equal probabilities, which no pair below compares.
    answer = ctx.answer.reshape(-1)
    above = answer[:, np.newaxis] > answer[np.newaxis, :]
    bound = ctx.allowed.reshape(-1)[:, np.newaxis] + ctx.allowed.reshape(-1)[np.newaxis, :]
    flat = _flat(values)
    reversed_pairs = (flat[:, np.newaxis, :] - flat[:, :, np.newaxis]) > bound
    return (reversed_pairs & above).any(axis=(1, 2))


def _below_uniform(values: FloatArray, ctx: _Context) -> tuple[Bools, list[dict[str, object]]]:
    logits = ctx.givens.get("z")
    if not logits:
        return np.zeros(values.shape[0], dtype=bool), []
    n = len(logits)
    below = _flat(values)[:, 0] < 1 / n - ctx.allowed.reshape(-1)[0]
    return below, [{"n": n}] * values.shape[0]


def _slope_sign(values: FloatArray, ctx: _Context) -> Bools:
    # The answer's sign is the slope's: positive on the diagonal, negative off it.
    flat, answer = _flat(values)[:, 0], float(ctx.answer)
    bound = float(ctx.allowed)
    if answer > 0:
        return flat < -bound
    if answer < 0:
        return flat > bound
    return np.zeros(values.shape[0], dtype=bool)


def _too_large(values: FloatArray, ctx: _Context) -> Bools:
    return (np.abs(_flat(values)) > MAX_SLOPE + ctx.allowed.reshape(-1)).any(axis=1)


def _negative(values: FloatArray, ctx: _Context) -> Bools:
    return (_flat(values) < -ctx.allowed.reshape(-1)).any(axis=1)


def _not_symmetric(values: FloatArray, ctx: _Context) -> Bools:
    bound = ctx.allowed + ctx.allowed.T
    return (np.abs(values - values.transpose(0, 2, 1)) > bound).any(axis=(1, 2))


def _rows_not_0(values: FloatArray, ctx: _Context) -> Bools:
    rows = np.abs(values.sum(axis=2)) > ctx.allowed.sum(axis=1)
    columns = np.abs(values.sum(axis=1)) > ctx.allowed.sum(axis=0)
    return (rows | columns).any(axis=1)


def _sign_pattern(values: FloatArray, ctx: _Context) -> Bools:
    n = values.shape[1]
    diagonal = np.eye(n, dtype=bool)
    below = values < -ctx.allowed
    above = values > ctx.allowed
    return ((below & diagonal) | (above & ~diagonal)).any(axis=(1, 2))


def fit_probabilities(values: FloatArray, tol: Tolerance) -> tuple[FloatArray, Bools]:
    """Per matrix (first axis), a probability vector q with diag(q) − q qᵀ closest to it
    (entry by entry), and whether it is within tolerance of the matrix everywhere.

    J_ii = qᵢ(1 − qᵢ) gives each qᵢ as one of two roots; at most one qᵢ exceeds 1/2, so the
    candidates are all small roots, or all small but one large: n + 1 in all."""
    count, n = values.shape[0], values.shape[1]
    diagonal = np.clip(np.diagonal(values, axis1=1, axis2=2), 0.0, 0.25)
    spread = np.sqrt(1 - 4 * diagonal)
    small, large = (1 - spread) / 2, (1 + spread) / 2
    candidates = np.repeat(small[:, np.newaxis, :], n + 1, axis=1)  # (count, n + 1, n)
    index = np.arange(n)
    candidates[:, index + 1, index] = large
    built = np.eye(n) * candidates[..., np.newaxis] - (
        candidates[..., :, np.newaxis] * candidates[..., np.newaxis, :]
    )
    allowed = np.maximum(tol.atol, tol.rtol * np.abs(built)) * NEAR_MISS_MARGIN + _EPSILON
    error = np.abs(built - values[:, np.newaxis]) / allowed
    worst = error.reshape(count, n + 1, -1).max(axis=2)
    best = worst.argmin(axis=1)
    chosen = candidates[np.arange(count), best]
    sums_to_1 = np.abs(chosen.sum(axis=1) - 1) <= n * tol.atol + tol.rtol + _EPSILON
    fits = (worst[np.arange(count), best] <= 1 + _EPSILON) & sums_to_1
    return chosen, fits


def _signs_flipped(values: FloatArray, ctx: _Context) -> Bools:
    _, fits = fit_probabilities(-values, ctx.tol)
    return fits


def _permuted_probabilities(values: FloatArray, ctx: _Context) -> Bools:
    fitted, fits = fit_probabilities(values, ctx.tol)
    same_set = np.abs(np.sort(fitted, axis=1) - np.sort(ctx.p)).max(axis=1) <= OTHER_P_MARGIN
    same_order = np.abs(fitted - ctx.p).max(axis=1) <= OTHER_P_MARGIN
    return fits & same_set & ~same_order & ctx.wrong(values)


def _other_probabilities(
    values: FloatArray, ctx: _Context
) -> tuple[Bools, list[dict[str, object]]]:
    fitted, fits = fit_probabilities(values, ctx.tol)
    other = np.abs(fitted - ctx.p).max(axis=1) > OTHER_P_MARGIN
    # The learner's own probabilities, written out by rules.sentence in the page's numbers.
    fields: list[dict[str, object]] = [{"p": tuple(row)} for row in fitted.tolist()]
    return fits & other & ctx.wrong(values), fields


def _form_error(matrix: FloatArray, start: FloatArray, tol: Tolerance) -> float:
    """How far, in tolerances, the matrix is from diag(q) − q qᵀ for the q a few least-squares
    steps reach from `start` (fitting from the diagonal alone is ill-conditioned near qᵢ = 1/2,
    where a tolerance on Jᵢᵢ moves qᵢ by its square root)."""
    n = matrix.shape[0]
    q = start.astype(np.float64).copy()
    eye = np.eye(n)
    for _ in range(8):
        residual = (matrix - (np.diag(q) - np.outer(q, q))).reshape(-1)
        # ∂(diag(q) − q qᵀ)_ij / ∂q_k = δ_ij δ_ik − δ_ik q_j − q_i δ_jk
        slopes = (
            eye[:, :, np.newaxis] * eye[:, np.newaxis, :]
            - eye[:, np.newaxis, :] * q[np.newaxis, :, np.newaxis]
            - q[:, np.newaxis, np.newaxis] * eye[np.newaxis, :, :]
        ).reshape(n * n, n)
        # The normal equations: n unknowns, so a small solve instead of an SVD per step.
        normal = slopes.T @ slopes + _RIDGE * eye
        step = np.linalg.solve(normal, slopes.T @ residual)
        q += step
        if np.abs(step).max() < 1e-6:  # settled, far finer than any tolerance
            break
    built = np.diag(q) - np.outer(q, q)
    allowed = np.maximum(tol.atol, tol.rtol * np.abs(built)) + _EPSILON
    return float((np.abs(built - matrix) / allowed).max())


def _not_softmax_form(values: FloatArray, ctx: _Context) -> Bools:
    fitted, _ = fit_probabilities(values, ctx.tol)
    # From the q the diagonal suggests, then (only if that fails) from softmax(z) itself.
    return np.array(
        [
            all(_form_error(matrix, start, ctx.tol) > FORM_MARGIN for start in (fitted[i], ctx.p))
            for i, matrix in enumerate(values)
        ],
        dtype=bool,
    )


# Each structural rule's check; they are tried in the rule table's order (rules.STRUCTURES).
CHECKS: dict[str, Check] = {
    "probability-out-of-range": _out_of_range,
    "probabilities-do-not-sum-to-1": _sum_not_1,
    "logit-order-not-kept": _order_broken,
    "largest-probability-below-uniform": _below_uniform,
    "slope-sign": _slope_sign,
    "slope-magnitude-negative": _negative,
    "jacobian-not-symmetric": _not_symmetric,
    "jacobian-rows-do-not-sum-to-0": _rows_not_0,
    "jacobian-signs-flipped": _signs_flipped,
    "jacobian-sign-pattern": _sign_pattern,
    "slope-too-large": _too_large,
    "jacobian-probabilities-permuted": _permuted_probabilities,
    "jacobian-from-other-probabilities": _other_probabilities,
    "jacobian-not-softmax-form": _not_softmax_form,
    "negative-variance": _negative,
    "negative-standard-deviation": _negative,
    "divisor-not-positive": _negative,
}


def checks_for(answer_kind: str | None) -> tuple[tuple[str, Check], ...]:
    """The structural checks an answer of this kind gets, in order (none for no kind)."""
    if answer_kind is None:
        return ()
    return tuple((code, CHECKS[code]) for code in STRUCTURES if applies(RULES[code], answer_kind))


def first_failures(
    answer_kind: str | None,
    values: FloatArray,
    answer: FloatArray,
    tol: Tolerance,
    givens: Mapping[str, Any],
) -> list[tuple[str, dict[str, object]] | None]:
    """Per response (first axis of values), the first structural rule it fails, with the
    fields its sentence needs, or None, e.g. ("probabilities-do-not-sum-to-1", {})."""
    found: list[tuple[str, dict[str, object]] | None] = [None] * values.shape[0]
    checks = checks_for(answer_kind)
    if not checks or not values.shape[0]:
        return found
    ctx = _Context(np.asarray(answer, dtype=np.float64), tol, givens)
    pending = np.arange(values.shape[0])
    for code, check in checks:
        with np.errstate(all="ignore"):
            outcome = check(values[pending], ctx)
        fails, fields = outcome if isinstance(outcome, tuple) else (outcome, None)
        for position in np.flatnonzero(fails).tolist():
            found[int(pending[position])] = (code, fields[position] if fields else {})
        pending = pending[~fails]
        if not pending.size:
            break
    return found
