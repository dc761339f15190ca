"""Grading learners' responses against a variant's stored givens and grading key.

The answer is recomputed from the givens (and the grading key, for families that keep part of a
variant from the learner) every time, so a stored response grades the same way after a family's
generator changes or its problem is edited: regrading never needs the seed or the generator.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from grading.engine.answers import ParseError, parse
from grading.engine.checks import Tolerance, describe_tolerance
from grading.engine.feedback import (
    Slips,
    Targets,
    describe_entries,
    drop_coincidences,
    explain_after_slips,
    slips_for,
    width_of,
)
from grading.engine.i18n import gettext as _
from grading.engine.problems.base import (
    NO_KEY,
    Family,
    Finding,
    offered_mistakes,
    offered_scalar_mistakes,
)
from grading.engine.rules import RULES

Status = Literal["correct", "incorrect", "invalid"]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome for one response; detail is JSON-able for storage and the API.

    costs_try is False only for a near miss a quiz may let the learner retry for free (the
    quiz decides whether it does: grading.services.verdicts)."""

    status: Status
    score: float
    misconception: str | None
    feedback: str
    detail: dict[str, Any]
    costs_try: bool = True


def _entry_index(flat: int, shape: tuple[int, ...]) -> int | list[int]:
    # Learners count from 1; lists (not tuples) so the detail survives a JSON round trip.
    if len(shape) == 1:
        return flat + 1
    row, col = divmod(flat, shape[1])
    return [row + 1, col + 1]


class _Marker:
    """Everything about one variant that does not depend on the response, computed once."""

    def __init__(
        self,
        family: Family,
        givens: Mapping[str, Any],
        tolerance: Tolerance,
        grading_key: Mapping[str, Any] = NO_KEY,
        decimal: str = ".",
    ) -> None:
        self.family = family
        self.decimal = decimal
        self.givens = givens
        self.grading_key = grading_key
        self.tolerance = tolerance
        self.tolerance_text = describe_tolerance(tolerance, decimal)
        self.correct_feedback = _("Correct: %(tolerance)s.") % {"tolerance": self.tolerance_text}
        self.shape = tuple(family.answer_shape(givens))
        solution = family.solve(givens, grading_key)
        self.answer = solution.answer
        self.allowed = np.maximum(tolerance.atol, tolerance.rtol * np.abs(self.answer))
        self.solution = solution
        self._mistakes: tuple[tuple[str, ...], Targets] | None = None
        self.width = width_of(givens)
        self._slips: Slips | None = None
        self._slip_targets: Targets | None = None
        self._feedback: dict[tuple[Any, ...], str] = {}
        self.answer_kind = family.answer_kind

    def mistakes(self) -> tuple[tuple[str, ...], Targets]:
        """Codes and stacked values of the offered mistakes, built when a response is wrong."""
        if self._mistakes is None:
            offered = offered_mistakes(self.solution, self.tolerance)
            values = np.array(list(offered.values())) if offered else np.empty((0, *self.shape))
            self._mistakes = (tuple(offered), Targets(values, self.tolerance))
        return self._mistakes

    def slips(self) -> tuple[Slips, Targets]:
        """The generic slips, built only when a response matches no named mistake."""
        if self._slips is None or self._slip_targets is None:
            self._slips = slips_for(self.answer, self.tolerance, self.width, self.answer_kind)
            self._slip_targets = Targets(self._slips.values, self.tolerance)
        return self._slips, self._slip_targets

    def feedback(self, mistake: str | None, sentence: str | None, wrong: list[Any]) -> str:
        """Feedback text for an incorrect response, memoised: regrades repeat it often."""
        key = (mistake, sentence, tuple(map(str, wrong)))
        text = self._feedback.get(key)
        if text is None:
            parts = []
            if mistake is not None:
                _code, own = self.family.mistake_feedback(mistake, self.grading_key)
                # A mistake code is an internal name: learners read the mistake's own sentence
                # or this one, with the misconception's title and explanation beside it.
                parts.append(own or _("That value matches a known mistake."))
            else:
                parts.append(_("Not correct."))
            if wrong:
                parts.append(describe_entries(wrong))
            if sentence is not None:
                parts.append(sentence)
            parts.append(self.counts_as_correct())
            text = " ".join(parts)
            self._feedback[key] = text
        return text

    def counts_as_correct(self) -> str:
        """The closing sentence of feedback on a wrong answer: which answers count as correct."""
        return _("Answers count as correct %(tolerance)s.") % {"tolerance": self.tolerance_text}

    def details(self, **fields: Any) -> dict[str, Any]:
        """A verdict's detail (_detail) with this variant's tolerance."""
        return _detail(self.tolerance_text, self.decimal, **fields)

    def invalid(self, message: str) -> Verdict:
        """Verdict for text that could not be read."""
        return invalid_verdict(message, self.tolerance_text, self.decimal)

    def correct(self, parsed: Any) -> Verdict:
        """The verdict for a right response (judge and judge_number build the same ones)."""
        return Verdict(
            "correct",
            1.0,
            None,
            self.correct_feedback,
            self.details(wrong_entries=[], diagnosis=None, finding=None, parsed=parsed, error=None),
        )

    def incorrect(
        self,
        parsed: Any,
        wrong: list[Any],
        mistake: str | None,
        code: str | None,
        sentence: str | None,
    ) -> Verdict:
        """The verdict for a wrong response: its wrong entries and what it was taken for (a
        named mistake, or the engine rule whose code is given)."""
        misconception = (
            None if mistake is None else self.family.mistake_feedback(mistake, self.grading_key)[0]
        )
        rule = None if code is None else RULES[code]
        if rule is not None and rule.misconception in self.family.mistakes:
            # A rule points to a misconception only where the family lists it.
            misconception = rule.misconception
        return Verdict(
            "incorrect",
            0.0,
            misconception,
            self.feedback(mistake, sentence, wrong),
            self.details(
                wrong_entries=wrong,
                diagnosis=code,
                finding=None if rule is None else rule.kind,
                parsed=parsed,
                error=None,
            ),
            costs_try=True if rule is None else rule.costs_try,
        )

    def found(self, parsed: Any, wrong: list[Any], finding: Finding) -> Verdict:
        """The verdict for a wrong response a rule or an instructor's check explained."""
        parts = [finding.feedback]
        if wrong:
            parts.append(describe_entries(wrong))
        parts.append(self.counts_as_correct())
        return Verdict(
            "incorrect",
            0.0,
            finding.misconception,
            " ".join(parts),
            self.details(
                wrong_entries=wrong,
                diagnosis=finding.code,
                finding=finding.kind,
                parsed=parsed,
                error=None,
            ),
            costs_try=finding.costs_try,
        )

    def authored(self, values: FloatArray) -> list[Finding | None] | None:
        """The instructor's checks on a stack of wrong responses (None: the variant has none)."""
        return self.family.authored_findings(
            values, self.givens, self.grading_key, tolerance=self.tolerance
        )

    def after_slips(self, values: FloatArray) -> list[tuple[str, str] | None]:
        """explain_after_slips for wrong responses no mistake or slip explained."""
        return explain_after_slips(
            values,
            self.answer,
            self.allowed,
            self.tolerance,
            self.answer_kind,
            self.givens,
            self.decimal,
        )

    def judge_number(self, value: float) -> Verdict:
        """judge() for one response to a number answer, in plain floats.

        Grading one answer is the common case, and for a single number the array machinery
        cost several times the comparisons themselves. The steps and their order are judge()'s
        (the instructor's checks, a named mistake, a slip, the other near misses, the
        structural rules); IEEE arithmetic
        gives the same results on floats as on float64 arrays, and tests/grading/engine checks
        the verdicts are identical.
        """
        answer = float(self.answer)
        if abs(value - answer) <= float(self.allowed):
            return self.correct(value)
        authored = self.authored(np.array([value]))
        if authored is not None and authored[0] is not None:
            return self.found(value, [], authored[0])
        atol, rtol = self.tolerance.atol, self.tolerance.rtol
        code = sentence = misconception = None
        offered = offered_scalar_mistakes(self.solution, self.tolerance)
        misconception = next(
            (
                name
                for name, mistake in offered.items()
                if abs(value - mistake) <= max(atol, rtol * abs(mistake))
            ),
            None,
        )
        if misconception is None:
            slips, targets = self.slips()
            found = next(
                (
                    index
                    for index, (slip, allowed) in enumerate(
                        zip(targets.values.tolist(), targets.allowed.tolist(), strict=True)
                    )
                    if abs(value - slip) <= allowed
                ),
                -1,
            )
            if found >= 0:
                found = int(drop_coincidences(slips, np.array([found]), np.array([value]))[0])
            if found >= 0:
                code, sentence = slips.codes[found], slips.sentence(found, self.decimal)
            else:
                explained = self.after_slips(np.array([value]))[0]
                if explained is not None:
                    code, sentence = explained
        return self.incorrect(value, [], misconception, code, sentence)

    def judge(self, values: FloatArray) -> list[Verdict]:
        """Verdicts for a stack of parsed responses (first axis = response)."""
        count = values.shape[0]
        ok_entries = (np.abs(values - self.answer) <= self.allowed).reshape(count, -1)
        correct = ok_entries.all(axis=1)
        mistake_index = np.full(count, -1, dtype=np.intp)
        slip_index = np.full(count, -1, dtype=np.intp)
        explained: dict[int, tuple[str, str]] = {}
        wrong_rows = np.flatnonzero(~correct)
        findings: dict[int, Finding] = {}
        if wrong_rows.size:
            # The instructor's own checks come before every named mistake.
            authored = self.authored(values[wrong_rows])
            if authored is not None:
                findings = {
                    row: finding
                    for row, finding in zip(wrong_rows.tolist(), authored, strict=True)
                    if finding is not None
                }
                wrong_rows = np.array(
                    [row for row in wrong_rows.tolist() if row not in findings], dtype=np.intp
                )
        if wrong_rows.size:
            mistake_targets = self.mistakes()[1]
            mistake_index[wrong_rows] = mistake_targets.first_match(values[wrong_rows])
            unexplained = wrong_rows[mistake_index[wrong_rows] < 0]
            if unexplained.size:
                slips, targets = self.slips()
                slip_index[unexplained] = drop_coincidences(
                    slips, targets.first_match(values[unexplained]), values[unexplained]
                )
                rest = unexplained[slip_index[unexplained] < 0]
                if rest.size:
                    # Structural rules run only here, on the rows nothing else explained.
                    for row, found in zip(
                        rest.tolist(), self.after_slips(values[rest]), strict=True
                    ):
                        if found is not None:
                            explained[row] = found

        parsed = values.tolist()
        verdicts: list[Verdict] = []
        mistake_list = mistake_index.tolist()
        slip_list = slip_index.tolist()
        for index, is_correct in enumerate(correct.tolist()):
            if is_correct:
                verdicts.append(self.correct(parsed[index]))
                continue
            wrong: list[Any] = []
            if self.shape:
                wrong = [
                    _entry_index(flat, self.shape)
                    for flat in np.flatnonzero(~ok_entries[index]).tolist()
                ]
            if index in findings:
                verdicts.append(self.found(parsed[index], wrong, findings[index]))
                continue
            code = sentence = misconception = None
            if mistake_list[index] >= 0:
                misconception = self.mistakes()[0][mistake_list[index]]
            elif slip_list[index] >= 0:
                slips = self.slips()[0]
                code = slips.codes[slip_list[index]]
                sentence = slips.sentence(slip_list[index], self.decimal)
            elif index in explained:
                code, sentence = explained[index]
            verdicts.append(self.incorrect(parsed[index], wrong, misconception, code, sentence))
        return verdicts


def _detail(tolerance_text: str, decimal: str, **fields: Any) -> dict[str, Any]:
    """A verdict's detail: the fields, the tolerance, and the decimal separator the answer was
    read with when it is not the point (a regrade reads the stored text alike)."""
    detail = {**fields, "tolerance": tolerance_text}
    if decimal != ".":
        detail["decimal"] = decimal
    return detail


def invalid_verdict(message: str, tolerance_text: str, decimal: str = ".") -> Verdict:
    """The verdict for unreadable text: score 0, feedback is the reader's own message."""
    fields = {"wrong_entries": [], "diagnosis": None, "finding": None, "parsed": None}
    detail = _detail(tolerance_text, decimal, **fields, error=message)
    return Verdict("invalid", 0.0, None, message, detail)


def grade(
    family: Family,
    givens: Mapping[str, Any],
    text: str,
    tolerance: Tolerance | None = None,
    *,
    grading_key: Mapping[str, Any] = NO_KEY,
    decimal: str = ".",
) -> Verdict:
    """Grade one response against stored givens (and grading key, for a family that keeps one),
    e.g. grade(fam, givens, '√64').status. decimal: the separator of the page the answer was
    typed on ("." or ","; answers.parse), which the feedback's numbers use too."""
    tol = tolerance or family.default_tolerance
    shape = tuple(family.answer_shape(givens))
    try:
        value = parse(text, shape, decimal)
    except ParseError as error:
        return invalid_verdict(error.message, describe_tolerance(tol, decimal), decimal)
    marker = _Marker(family, givens, tol, grading_key, decimal)
    if not shape:
        return marker.judge_number(float(value))
    return marker.judge(value[np.newaxis])[0]


def _read_scalars(texts: Sequence[str]) -> tuple[FloatArray, list[int]]:
    """Plain numbers straight into an array; indices of the rest go to the full reader."""
    values = np.empty(len(texts), dtype=np.float64)
    slow: list[int] = []
    isfinite = math.isfinite
    for index, text in enumerate(texts):
        # The same guard as answers.parse: float() alone would accept '1_0', 'nan' and
        # non-ASCII digits, which the full reader refuses or explains.
        if type(text) is str and text.isascii() and "_" not in text:
            try:
                number = float(text)
            except ValueError:
                slow.append(index)
                continue
            if isfinite(number):
                values[index] = number
                continue
        slow.append(index)
    return values, slow


def grade_many(
    family: Family,
    givens: Mapping[str, Any],
    texts: Sequence[str],
    tolerance: Tolerance | None = None,
    *,
    grading_key: Mapping[str, Any] = NO_KEY,
    decimal: str = ".",
) -> list[Verdict]:
    """Regrade many stored responses to one variant; same verdicts as grade(), one by one."""
    tol = tolerance or family.default_tolerance
    marker = _Marker(family, givens, tol, grading_key, decimal)
    shape = marker.shape
    count = len(texts)
    if shape or decimal != ".":
        # float() reads '1.000' as 1, which a decimal-comma page refuses: every text is read.
        values = np.empty((count, *shape), dtype=np.float64)
        slow = list(range(count))
    else:
        values, slow = _read_scalars(texts)
    valid = np.ones(count, dtype=bool)
    errors: dict[int, str] = {}
    # Stored responses repeat a lot (the same right or wrong value), so parse each text once.
    seen: dict[str, FloatArray | str] = {}
    for index in slow:
        text = texts[index]
        key = text if type(text) is str else repr(text)
        outcome = seen.get(key)
        if outcome is None:
            try:
                outcome = parse(text, shape, decimal)
            except ParseError as error:
                outcome = error.message
            seen[key] = outcome
        if isinstance(outcome, str):
            valid[index] = False
            errors[index] = outcome
        else:
            values[index] = outcome
    judged = iter(marker.judge(values[valid]) if valid.any() else [])
    return [
        next(judged) if is_valid else marker.invalid(errors[index])
        for index, is_valid in enumerate(valid.tolist())
    ]
