"""Property checks an instructor writes on a formula problem's answer, each with its feedback:

    "properties": [{"check": "sum(x) = 1", "feedback": "Probabilities add up to 1."},
                   {"check": "x >= 0", "feedback": "A probability is never negative.",
                    "misconception": "negative-probability"}]

The language is answers/property_checks.py. The checks describe the answer, so a variant keeps
them in its grading key, never in its givens. A wrong response is checked against them in the
instructor's order before the named mistakes: the first it fails explains it, with the
instructor's feedback and misconception (code "property-N", N counting from 1). A check that
cannot be evaluated for a response (a square root of a negative entry) says nothing about it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from grading.engine.answers import ParseError
from grading.engine.answers.formatting import format_count
from grading.engine.answers.property_checks import PropertyCheck, compile_check
from grading.engine.checks import Tolerance
from grading.engine.i18n import gettext as _
from grading.engine.problems.base import Finding
from grading.engine.problems.formula_mistakes import MAX_FEEDBACK_LENGTH

MAX_PROPERTIES = 20
PROPERTY = "property"
_KEYS = {"check", "feedback", "misconception"}
_CODE = re.compile(r"^[a-z0-9][a-z0-9-]*$")


@lru_cache(maxsize=1024)
def compiled_check(text: str, variables: frozenset[str], shape: tuple[int, ...]) -> PropertyCheck:
    """compile_check, cached: grading compiles the same few checks again and again."""
    return compile_check(text, variables, shape)


def property_code(number: int) -> str:
    """The stable code of the check at this place (from 1), stored as a response's diagnosis."""
    return f"property-{number}"


def clean_properties(
    raw: object, variables: frozenset[str] | None, shape: tuple[int, ...] | None
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The checks as given and the errors per field ("properties.2.check"). variables or shape
    is None when the variables or the answer have errors of their own: the check text is then
    not compiled (its message would blame the check for them)."""
    if not isinstance(raw, list | tuple):
        return [], {"properties": _("Give the property checks as a list of {check, feedback}.")}
    if len(raw) > MAX_PROPERTIES:
        return [], {
            "properties": _("Write at most %(count)s property checks.") % {"count": MAX_PROPERTIES}
        }
    cleaned: list[dict[str, Any]] = []
    errors: dict[str, str] = {}
    for number, entry in enumerate(raw, start=1):
        field = f"properties.{number}"
        if not isinstance(entry, Mapping):
            errors[field] = _('Give each check as {"check": ..., "feedback": ...}.')
            continue
        if extra := sorted(map(str, set(entry) - _KEYS)):
            errors[f"{field}.check"] = _("Unknown key %(key)s; use %(keys)s.") % {
                "key": repr(extra[0]),
                "keys": ", ".join(sorted(_KEYS)),
            }
        text = entry.get("check")
        if not isinstance(text, str) or not text.strip():
            errors[f"{field}.check"] = _("Write the check, e.g. sum(x) = 1 or x >= 0.")
        elif variables is not None and shape is not None:
            try:
                compiled_check(text, variables, shape)
            except ParseError as error:
                errors[f"{field}.check"] = _("In check %(number)s: %(message)s.") % {
                    "number": number,
                    "message": error.message,
                }
        feedback = entry.get("feedback")
        if not isinstance(feedback, str) or not feedback.strip():
            errors[f"{field}.feedback"] = _("Write the feedback a learner reads when this fails.")
        elif len(feedback) > MAX_FEEDBACK_LENGTH:
            errors[f"{field}.feedback"] = _("Feedback is text of at most %(count)s characters.") % {
                "count": format_count(MAX_FEEDBACK_LENGTH)
            }
        misconception = entry.get("misconception")
        if misconception not in (None, "") and (
            not isinstance(misconception, str) or not _CODE.match(misconception)
        ):
            errors[f"{field}.misconception"] = _(
                "A misconception code uses lowercase letters, digits, hyphens."
            )
        if isinstance(text, str):
            kept = {"check": text, "feedback": feedback}
            if misconception:
                kept["misconception"] = misconception
            cleaned.append(kept)
    return cleaned, errors


def property_misconceptions(params: Mapping[str, Any]) -> dict[str, str]:
    """Each property code of formula params and the misconception it names (only those that do)."""
    raw = params.get("properties") if isinstance(params, Mapping) else None
    if not isinstance(raw, list | tuple):
        return {}
    return {
        property_code(number): str(entry["misconception"])
        for number, entry in enumerate(raw, start=1)
        if isinstance(entry, Mapping) and entry.get("misconception")
    }


def first_failures(
    properties: Sequence[Mapping[str, Any]],
    responses: npt.NDArray[np.float64],
    values: Mapping[str, float],
    tolerance: Tolerance,
) -> list[Finding | None]:
    """Per response (first axis), the first check it fails as a Finding, or None."""
    shape = tuple(responses.shape[1:])
    checks = [compiled_check(entry["check"], frozenset(values), shape) for entry in properties]
    found: list[Finding | None] = []
    for response in responses:
        answer = float(response) if not shape else response
        found.append(None)
        for number, (entry, check) in enumerate(zip(properties, checks, strict=True), start=1):
            try:
                holds = check.holds(answer, values, tolerance)
            except ParseError:
                continue  # cannot be evaluated for this response: it says nothing about it
            if not holds:
                found[-1] = Finding(
                    kind=PROPERTY,
                    code=property_code(number),
                    feedback=entry["feedback"],
                    misconception=entry.get("misconception") or None,
                )
                break
    return found


def right_answer_results(
    properties: Sequence[Mapping[str, Any]],
    answer: npt.NDArray[np.float64],
    values: Mapping[str, float],
    tolerance: Tolerance,
) -> list[tuple[bool, str]]:
    """Per check, whether the right answer has the property, and a phrase saying so, e.g.
    (False, "fails for the right answer"), for the instructor's preview and validation."""
    shape = tuple(answer.shape)
    results = []
    for entry in properties:
        check = compiled_check(entry["check"], frozenset(values), shape)
        try:
            holds = check.holds(float(answer) if not shape else answer, values, tolerance)
        except ParseError as error:
            results.append(
                (
                    False,
                    _("cannot be evaluated for the right answer: %(message)s")
                    % {"message": error.message},
                )
            )
            continue
        results.append(
            (holds, _("holds for the right answer") if holds else _("fails for the right answer"))
        )
    return results


def right_answer_failure(
    properties: Sequence[Mapping[str, Any]],
    answer: npt.NDArray[np.float64],
    values: Mapping[str, float],
    tolerance: Tolerance,
) -> tuple[int, str] | None:
    """The first check (its number and why) the right answer fails or cannot be evaluated for,
    or None when it has every property."""
    results = right_answer_results(properties, answer, values, tolerance)
    return next(
        ((number, why) for number, (holds, why) in enumerate(results, start=1) if not holds),
        None,
    )
