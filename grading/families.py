"""The Django side of the engine: a Problem row to an engine family, its tolerance and its seeds.

The engine knows nothing of Django; this module translates between the two, so services, the admin,
the commands and the bank importer all reach the engine through the same few functions.
"""

from __future__ import annotations

from django.conf import settings

from courses.models import Problem
from grading import engine
from grading.engine import ParamError, Tolerance, UnknownFamily


def problem_errors(
    family_key: str, params: dict, atol: float | None, rtol: float | None
) -> dict[str, str]:
    """Why a family key, its parameters and tolerance cannot make variants; empty when they can.

    Named in settings as SOFTGRADE_PROBLEM_VALIDATOR, so the bank importer and the admin use it
    without the courses app importing grading.
    """
    return _checked(family_key, params, atol, rtol)[1]


def formula_report(
    params: dict, atol: float | None, rtol: float | None
) -> tuple[engine.FormulaReport | None, dict[str, str]]:
    """problem_errors for a formula problem, with its 50-seed report when it has no errors."""
    return _checked(engine.FORMULA_FAMILY, params, atol, rtol)


def _checked(
    family_key: str, params: dict, atol: float | None, rtol: float | None
) -> tuple[engine.FormulaReport | None, dict[str, str]]:
    try:
        family = engine.get_family(family_key)
    except UnknownFamily as exc:
        return None, {"family": str(exc.args[0] if exc.args else exc)}
    if (atol is None) != (rtol is None):
        return None, {"tolerance": "set both atol and rtol, or neither"}
    try:
        tolerance = family.default_tolerance if atol is None else Tolerance(atol, rtol)
    except (TypeError, ValueError) as exc:
        return None, {"tolerance": str(exc)}
    report = None
    try:
        checked = engine.validate_params(family, params)
        if family_key == engine.FORMULA_FAMILY:
            report = engine.check_formula(checked, tolerance)
    except ParamError as exc:
        return None, {f"params.{name}": message for name, message in exc.errors.items()}
    return report, {}


def problem_tolerance(problem: Problem) -> Tolerance:
    """The problem's own tolerance, or its family's default when the instructor set none."""
    return problem_tolerance_from(engine.get_family(problem.family), problem.atol, problem.rtol)


def problem_tolerance_from(family: engine.Family, atol: float | None, rtol: float | None):
    """The tolerance atol and rtol give, or the family's default when they are not set."""
    if atol is None:
        return family.default_tolerance
    return Tolerance(atol, rtol)


def practice_seed(*, user_id: int, problem_id: int, counter: int) -> int:
    """A learner's n-th practice variant: derived on the server, never chosen by the learner."""
    return engine.derive_seed(settings.SECRET_KEY, "practice", user_id, problem_id, counter)


def attempt_seed(*, attempt_id: int, item_id: int) -> int:
    """The variant of one quiz item in one attempt."""
    return engine.derive_seed(settings.SECRET_KEY, "attempt", attempt_id, item_id)


def variant_data(problem: Problem, seed: int) -> engine.VariantData:
    """Generate a problem's variant for a seed (for previews, commands and new variants)."""
    family = engine.get_family(problem.family)
    params = engine.validate_params(family, problem.params)
    return engine.make_variant(family, params, seed, tolerance=problem_tolerance(problem))
