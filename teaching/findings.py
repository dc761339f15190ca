"""What grading found in a wrong answer, as instructors read it: a stored diagnosis code
(Response.detail["diagnosis"]) named by the engine's rule (grading.engine.rules) or by the
formula problem's own property check, and grouped by kind.

Codes are stable identifiers stored with each response, so an answer graded by an older engine
is labelled by the rule of the same code today; a code no rule knows keeps its code as its title.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext

from grading.engine import rule_for

# Each kind's heading, in the order the pages show them.
KINDS = {
    "property": "Property checks",
    "structure": "Structural findings",
    "near-miss": "Near misses",
    "other": "Other diagnoses",
}
KIND_CODES = tuple(KINDS)  # as the statistics API names them (its schema's DiagnosisKindEnum)
PROPERTY_PREFIX = "property-"


@dataclass(frozen=True, slots=True)
class FindingLabel:
    """One diagnosis code as the pages show it: its kind and a title in words."""

    code: str
    kind: str
    title: str

    @property
    def heading(self) -> str:
        return KINDS[self.kind]


def _property_check(code: str, problem_params: Any) -> str | None:
    """The check text of a formula problem's `property-N` (N from 1), as the problem has it
    now; None when it has no such check."""
    number = code.removeprefix(PROPERTY_PREFIX)
    checks = problem_params.get("properties") if isinstance(problem_params, Mapping) else None
    if not number.isdigit() or not isinstance(checks, list):
        return None
    index = int(number) - 1
    if not 0 <= index < len(checks) or not isinstance(checks[index], Mapping):
        return None
    check = checks[index].get("check")
    return check if isinstance(check, str) else None


def finding_label(code: str, problem_params: Any = None) -> FindingLabel:
    """The label of a stored diagnosis code; `problem_params` (a formula problem's params)
    names its property checks by their text."""
    if code.startswith(PROPERTY_PREFIX):
        check = _property_check(code, problem_params)
        number = code.removeprefix(PROPERTY_PREFIX)
        title = f"Property check {number}" + (f": {check}" if check else "")
        return FindingLabel(code, "property", title)
    rule = rule_for(code)
    if rule is None:
        return FindingLabel(code, "other", code)
    return FindingLabel(code, rule.kind if rule.kind in KINDS else "other", gettext(rule.title))


def kind_counts(codes: Iterable[str | None]) -> list[tuple[str, int]]:
    """How many of the codes are of each kind, as (heading, count), in the pages' order; kinds
    with none left out. None (no diagnosis) is not counted."""
    counts = dict.fromkeys(KINDS, 0)
    for code in codes:
        if code:
            counts[finding_label(code).kind] += 1
    return [(KINDS[kind], count) for kind, count in counts.items() if count]
