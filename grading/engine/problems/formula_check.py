"""What fifty seeds tell an instructor about a formula problem before learners see it.

A mistake that equals the answer for some seeds is simply not offered for those variants
(make_variant withholds it, as for every family), so the instructor is told how often that
happens; the problem is refused only when a value is not a finite number, when the answer is 0
(typing 0 would pass), when a mistake equals the answer for every seed (it could never be
told apart), or when the right answer fails one of the instructor's property checks (or it
cannot be evaluated for it) on any seed: a learner who is right would be told they are wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from grading.engine.answers import format_number
from grading.engine.checks import Tolerance, within_tolerance
from grading.engine.i18n import gettext as _
from grading.engine.problems.base import ParamError
from grading.engine.problems.formula import FORMULA
from grading.engine.problems.formula_properties import right_answer_failure

VALIDATION_SEEDS = 50


@dataclass(frozen=True, slots=True)
class FormulaReport:
    """Seeds 0..seeds-1 all make variants; withheld counts, per mistake code, the seeds on
    which that mistake equals the answer and is therefore not offered."""

    seeds: int
    withheld: dict[str, int] = field(default_factory=dict)


def _describe_values(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{name}={format_number(value)}" for name, value in values.items())


def check_formula(params: Mapping[str, Any], tolerance: Tolerance | None = None) -> FormulaReport:
    """Try seeds 0..49; raise ParamError (field → message) for what makes the problem unusable,
    else report how often each mistake is withheld, e.g. FormulaReport(50, {"halved": 0})."""
    cleaned = FORMULA.clean_params(params)
    tol = tolerance or FORMULA.default_tolerance
    errors: dict[str, str] = {}
    codes = list(cleaned["mistakes"])
    withheld = dict.fromkeys(codes, 0)
    first_equal: dict[str, str] = {}
    for seed in range(VALIDATION_SEEDS):
        drawn = FORMULA.generate(np.random.default_rng(seed), cleaned)
        values = {**drawn.givens["values"], **drawn.grading_key.get("hidden_values", {})}
        where = _("seed %(seed)s") % {"seed": seed}
        if values:
            where = _("seed %(seed)s (%(values)s)") % {
                "seed": seed,
                "values": _describe_values(dict(sorted(values.items()))),
            }
        results, failures = FORMULA.evaluate(drawn.givens, drawn.grading_key)
        answer = None
        if "" in failures:
            errors.setdefault(
                "answer",
                _("the answer is not a finite number for %(where)s: %(why)s")
                % {"where": where, "why": failures[""]},
            )
        else:
            answer = np.asarray(results[""], dtype=np.float64)
            if within_tolerance(np.zeros_like(answer), answer, tol).all():
                errors.setdefault(
                    "answer",
                    _("the answer is 0 (within tolerance) for %(where)s, so typing 0 would pass")
                    % {"where": where},
                )
            properties = cleaned.get("properties", [])
            if failed := right_answer_failure(properties, answer, values, tol):
                number, why = failed
                errors.setdefault(
                    f"properties.{number}.check",
                    _("check %(number)s %(why)s for %(where)s")
                    % {"number": number, "why": why, "where": where},
                )
        for code in codes:
            if code in failures:
                errors.setdefault(
                    f"mistakes.{code}",
                    _("mistake '%(code)s' is not a finite number for %(where)s: %(why)s")
                    % {"code": code, "where": where, "why": failures[code]},
                )
            elif (
                answer is not None
                and within_tolerance(np.asarray(results[code], dtype=np.float64), answer, tol).all()
            ):
                withheld[code] += 1
                first_equal.setdefault(code, where)
    for code, count in withheld.items():
        if count == VALIDATION_SEEDS:
            errors.setdefault(
                f"mistakes.{code}",
                _(
                    "mistake '%(code)s' equals the answer for every one of %(seeds)s seeds "
                    "(first %(first)s), so it could never be told apart"
                )
                % {"code": code, "seeds": VALIDATION_SEEDS, "first": first_equal[code]},
            )
    if errors:
        raise ParamError(errors)
    return FormulaReport(seeds=VALIDATION_SEEDS, withheld=withheld)


def validate_formula(params: Mapping[str, Any], tolerance: Tolerance | None = None) -> None:
    """check_formula without the report: raise ParamError if the problem cannot be used."""
    check_formula(params, tolerance)
