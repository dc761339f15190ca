"""Problems instructors author without Python: variables, an answer formula, mistake formulas.

Params look like::

    {"variables": {"d_k": {"choices": [16, 64]}, "s": {"min": 0.5, "max": 2, "step": 0.5}},
     "answer": "d_k * s^2",
     "mistakes": {"std-for-variance": "sqrt(d_k) * s",          (code: formula, or
                  "width-ignored": {"formula": "s^2",           code: an object with the formula,
                                    "misconception": "width",   the misconception it shows
                                    "feedback": "Where is d_k?"}},   and its own feedback)
     "prompt": "Components have standard deviation {@s@} and $d_k = {@d_k@}$. Var(q·k)?",
     "solution": ["Var(q·k) = d_k s^2 = {@d_k@} · {@s@}^2."],   (optional worked-solution steps)
     "version": 1}

A variant keeps what it needs to grade, so a stored variant grades the same way after the
instructor edits the problem; but only what the learner is shown goes into its givens:

    givens       {"values": {name: value the prompt shows}, "prompt": the instructor's text}
    grading key  {"answer": formula, "mistakes": {code: formula}, "version": 1,
                  "hidden_values": {name: value the prompt does not show},  (only if any)
                  "solution": [step template, ...]}  (only if the instructor wrote one)

The formulas are the answer in disguise, so they live in the grading key, which no learner
sees until a worked solution is shown to them (grading.policy decides when): once answers are
released the answer's value may show, and only a worked solution shows how it is computed.
"""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Iterable, Mapping
from decimal import Decimal
from functools import lru_cache
from typing import Any

import numpy as np

from grading.engine.answers import (
    RESERVED_NAMES,
    Expression,
    ParseError,
    compile_expression,
)
from grading.engine.answers.formatting import format_count
from grading.engine.checks import Tolerance
from grading.engine.i18n import gettext as _
from grading.engine.i18n import gettext_noop
from grading.engine.problems.base import (
    NO_KEY,
    Drawn,
    Family,
    Finding,
    FloatArray,
    ParamError,
    Solution,
    pick,
)
from grading.engine.problems.formula_mistakes import mistake_entry_errors, mistake_formula
from grading.engine.problems.formula_placeholders import (
    placeholder_errors,
    placeholder_names,
    substitute_placeholders,
)
from grading.engine.problems.formula_properties import clean_properties, first_failures
from grading.engine.problems.formula_shape import (
    SHAPES,
    ShapedFormula,
    answer_request,
    dimensions,
    entries,
    map_entries,
    shape_error,
)

MAX_VARIABLES = 20
MAX_CHOICES = 100
MAX_STEPS = 1_000_000
MAX_PROMPT_LENGTH = 10_000
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_CODE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_KEYS = {"variables", "answer", "shape", "mistakes", "properties", "prompt", "solution", "version"}
MAX_SOLUTION_STEPS = 20


@lru_cache(maxsize=1024)
def _compiled(text: str, variables: frozenset[str]) -> Expression:
    # Grading a formula problem compiles the same few formulas again and again.
    return compile_expression(text, variables)


def _decimals(value: float) -> int:
    exponent = Decimal(repr(value)).normalize().as_tuple().exponent
    return max(0, -int(exponent))


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _clean_variable(name: object, spec: object) -> tuple[dict[str, Any] | None, str | None]:
    if not isinstance(name, str) or not _NAME.match(name):
        return None, _("A variable name must start with a letter and use letters, digits or _.")
    if name in RESERVED_NAMES or keyword.iskeyword(name):
        return None, _("'%(name)s' is reserved; choose another variable name.") % {"name": name}
    if not isinstance(spec, Mapping):
        return None, _('Give {"choices": [...]} or {"min": a, "max": b, "step": s}.')
    shown: dict[str, int] = {}
    if "decimals" in spec:
        decimals = spec["decimals"]
        if isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 10:
            return None, _("decimals (how the prompt shows the value) is a whole number 0 to 10.")
        shown = {"decimals": decimals}
        spec = {key: value for key, value in spec.items() if key != "decimals"}
    if set(spec) == {"choices"}:
        choices = spec["choices"]
        if not isinstance(choices, list | tuple) or not choices:
            return None, _("choices must be a non-empty list of numbers.")
        if len(choices) > MAX_CHOICES:
            return None, _("choices may list at most %(count)s numbers.") % {"count": MAX_CHOICES}
        if not all(_is_number(c) for c in choices):
            return None, _("every choice must be a finite number.")
        return {"choices": list(choices), **shown}, None
    if set(spec) == {"min", "max", "step"}:
        low, high, step = spec["min"], spec["max"], spec["step"]
        if not all(_is_number(v) for v in (low, high, step)):
            return None, _("min, max and step must be finite numbers.")
        if step <= 0:
            return None, _("step must be positive.")
        if low > high:
            return None, _("min must not exceed max.")
        if (high - low) / step > MAX_STEPS:
            return None, _("the range may hold at most %(count)s steps.") % {
                "count": format_count(MAX_STEPS)
            }
        return {"min": low, "max": high, "step": step, **shown}, None
    return None, _('Give either {"choices": [...]} or {"min": a, "max": b, "step": s}.')


def _draw_value(rng: np.random.Generator, spec: Mapping[str, Any]) -> int | float:
    if "choices" in spec:
        return pick(rng, spec["choices"])
    low, high, step = spec["min"], spec["max"], spec["step"]
    count = math.floor((high - low) / step + 1e-9) + 1
    value = low + int(rng.integers(count)) * step
    if all(isinstance(v, int) for v in (low, step)):
        return int(value)
    # Round away float noise (0.1 * 3) so prompts and givens show the intended value.
    return round(float(value), max(_decimals(low), _decimals(step)))


FORMULA_FAMILY = "formula"


class FormulaFamily(Family):
    """A family defined by the instructor's formulas instead of Python code."""

    key = FORMULA_FAMILY
    version = 1
    title = gettext_noop("Instructor formula")
    param_specs = ()
    default_tolerance = Tolerance(atol=0.0, rtol=0.01)
    # Codes and their explanations belong to the lesson's misconceptions, not to the engine.
    mistakes: dict[str, str] = {}

    def clean_params(self, params: Mapping[str, Any] | None) -> dict[str, Any]:
        """Check structure, variable specs and every formula; raise ParamError per field."""
        if not isinstance(params, Mapping):
            raise ParamError({"params": _("Parameters must be an object.")})
        errors: dict[str, str] = {}
        for name in params:
            if name not in _KEYS:
                errors[str(name)] = _("Unknown parameter; use %(keys)s.") % {
                    "keys": ", ".join(sorted(_KEYS))
                }
        variables: dict[str, dict[str, Any]] = {}
        raw_variables = params.get("variables")
        # No variables is allowed: a numerical question brought from another system has one
        # fixed answer, and grading it as a formula keeps every answer graded in one place.
        if not isinstance(raw_variables, Mapping):
            errors["variables"] = _("Give the variables as an object ({} for a fixed answer).")
        elif len(raw_variables) > MAX_VARIABLES:
            errors["variables"] = _("Use at most %(count)s variables.") % {"count": MAX_VARIABLES}
        else:
            for name, spec in raw_variables.items():
                cleaned, message = _clean_variable(name, spec)
                if message is not None:
                    errors[f"variables.{name}"] = message
                else:
                    variables[name] = cleaned  # type: ignore[assignment]
        names = frozenset(variables)
        shape = params.get("shape", "number")
        if shape not in SHAPES:
            errors["shape"] = _("The shape is one of %(shapes)s.") % {"shapes": ", ".join(SHAPES)}
            shape = "number"
        answer = params.get("answer")
        message = shape_error(answer, shape)
        if message is None and "variables" not in errors:
            message = _formula_error(answer, names)
        if message is not None:
            errors["answer"] = message
        mistakes = params.get("mistakes", {})
        if not isinstance(mistakes, Mapping):
            errors["mistakes"] = _("Give mistakes as an object mapping codes to formulas.")
            mistakes = {}
        for code, entry in mistakes.items():
            field = f"mistakes.{code}"
            formula = mistake_formula(entry)
            if not isinstance(code, str) or not _CODE.match(code):
                errors[field] = _("A mistake code uses lowercase letters, digits and hyphens.")
            elif isinstance(entry, Mapping) and (entry_errors := mistake_entry_errors(entry)):
                errors.update({f"{field}.{key}": text for key, text in entry_errors.items()})
            elif not isinstance(formula, str | list):
                errors[field] = _("Give the mistake as a formula.")
            elif shape_error(formula, shape) is not None or (
                "answer" not in errors and dimensions(formula) != dimensions(answer)
            ):
                errors[field] = _("Give the mistake in the answer's shape (%(shape)s).") % {
                    "shape": shape
                }
            elif "variables" not in errors and (message := _formula_error(formula, names, code)):
                errors[field] = message
        properties, found_errors = clean_properties(
            params.get("properties", []),
            None if "variables" in errors else names,
            None if "answer" in errors or "shape" in errors else dimensions(answer),
        )
        errors.update(found_errors)
        prompt = params.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            errors["prompt"] = _("Give the prompt text; {@name@} shows a variable's value.")
        elif len(prompt) > MAX_PROMPT_LENGTH:
            errors["prompt"] = _("The prompt may be at most %(count)s characters.") % {
                "count": format_count(MAX_PROMPT_LENGTH)
            }
        elif "variables" not in errors and (found := placeholder_errors(prompt, names)):
            errors["prompt"] = " ".join(found)
        solution = params.get("solution", [])
        if (
            not isinstance(solution, list | tuple)
            or not all(isinstance(step, str) and step.strip() for step in solution)
            or len(solution) > MAX_SOLUTION_STEPS
            or sum(len(step) for step in solution) > MAX_PROMPT_LENGTH
        ):
            errors["solution"] = _(
                "Give the worked solution as a list of at most %(steps)s steps of text, "
                "%(count)s characters in all; {@name@} shows a variable's value."
            ) % {"steps": MAX_SOLUTION_STEPS, "count": format_count(MAX_PROMPT_LENGTH)}
        elif "variables" not in errors:
            found = [
                _("Step %(number)s: %(message)s") % {"number": number, "message": message}
                for number, step in enumerate(solution, start=1)
                for message in placeholder_errors(step, names)
            ]
            if found:
                errors["solution"] = " ".join(found)
        version = params.get("version", 1)
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            errors["version"] = _("The version must be a whole number of at least 1.")
        if errors:
            raise ParamError(errors)
        cleaned = {
            "variables": variables,
            "answer": answer,
            "shape": shape,
            "mistakes": dict(mistakes),
            "prompt": prompt,
            "solution": list(solution) if isinstance(solution, list | tuple) else [],
            "version": version,
        }
        if properties:
            cleaned["properties"] = properties
        return cleaned

    def generate(self, rng: np.random.Generator, params: Mapping[str, Any]) -> Drawn:
        """One draw, never redrawn: check_formula tells the instructor about bad values."""
        return self.split(self.draw(rng, self.clean_params(params)))

    def draw(self, rng: np.random.Generator, params: dict[str, Any]) -> dict[str, Any]:
        """Draw each variable (in name order, so reordering the JSON keeps the numbers); the
        formulas, prompt and version come along, for split() to sort out."""
        variables = params["variables"]
        values = {name: _draw_value(rng, variables[name]) for name in sorted(variables)}
        drawn = {
            "values": values,
            "answer": params["answer"],
            "mistakes": dict(params["mistakes"]),
            "prompt": params["prompt"],
            "version": params["version"],
        }
        if params.get("solution"):
            drawn["solution"] = list(params["solution"])
        if params.get("properties"):
            drawn["properties"] = [dict(entry) for entry in params["properties"]]
        decimals = {n: spec["decimals"] for n, spec in variables.items() if "decimals" in spec}
        if decimals:
            drawn["decimals"] = decimals
        return drawn

    def split(self, drawn: dict[str, Any]) -> Drawn:
        """Givens: the prompt and the values it shows. Grading key: the formulas, the version
        and any value the prompt does not show."""
        return split_formula_draw(drawn)

    def evaluate(
        self, givens: Mapping[str, Any], grading_key: Mapping[str, Any]
    ) -> tuple[dict[str, float], dict[str, str]]:
        """Values of the answer ('') and of each mistake code, and messages for those that fail."""
        if "answer" not in grading_key:
            # Without it there is nothing to grade against; never guess from the givens.
            raise ValueError("a formula variant is graded with its grading key; none was given")
        values = {**givens["values"], **grading_key.get("hidden_values", {})}
        names = frozenset(values)
        formulas = {
            "": grading_key["answer"],
            **{code: mistake_formula(entry) for code, entry in grading_key["mistakes"].items()},
        }
        results: dict[str, Any] = {}
        failures: dict[str, str] = {}
        for code, formula in formulas.items():
            try:
                results[code] = map_entries(
                    formula, lambda text: _compiled(text, names).evaluate(values)
                )
            except ParseError as error:
                failures[code] = error.message
        return results, failures

    def solve(self, givens: Mapping[str, Any], grading_key: Mapping[str, Any] = NO_KEY) -> Solution:
        """Evaluate the formulas; one that cannot be evaluated gives NaN (never offered)."""
        results, _failures = self.evaluate(givens, grading_key)
        unknown = np.full(self.answer_shape(givens), math.nan)
        answer = np.array(results.get("", unknown), dtype=np.float64)
        # In code order: a value that fits two mistakes is named by the first (offered_mistakes),
        # and the stored order of the codes is no authored order (PostgreSQL's jsonb sorts its
        # keys by length), so only the codes' own order names it alike on every database.
        mistakes = {
            code: np.array(results.get(code, unknown), dtype=np.float64)
            for code in sorted(grading_key["mistakes"])
        }
        return Solution(answer=answer, mistakes=mistakes)

    def mistake_feedback(
        self, code: str, grading_key: Mapping[str, Any] = NO_KEY
    ) -> tuple[str, str | None]:
        """The misconception the instructor tied to the mistake (its code when none), and the
        mistake's own feedback if it has one; both kept in the variant's grading key."""
        entry = grading_key.get("mistakes", {}).get(code) if grading_key else None
        if isinstance(entry, Mapping):
            return entry.get("misconception") or code, entry.get("feedback") or None
        return code, None

    def authored_findings(
        self,
        values: FloatArray,
        givens: Mapping[str, Any],
        grading_key: Mapping[str, Any] = NO_KEY,
        tolerance: Tolerance | None = None,
    ) -> list[Finding | None] | None:
        """Per wrong response, the first of the instructor's property checks (kept in the
        grading key) it fails; None for a variant without checks (every older one)."""
        properties = grading_key.get("properties") if grading_key else None
        if not properties:
            return None
        named = {**givens["values"], **grading_key.get("hidden_values", {})}
        stack = np.asarray(values, dtype=np.float64)
        return first_failures(properties, stack, named, tolerance or self.default_tolerance)

    def answer_shape(self, givens: Mapping[str, Any]) -> tuple[int, ...]:
        """() for a number; a vector's or matrix's dimensions, which its givens state."""
        return tuple(givens.get("shape", ()))

    def prompt(self, givens: Mapping[str, Any], decimal: str = ".") -> str:
        """The instructor's text with {@name@} replaced by the drawn value (braces stay, the
        value written with the page's decimal separator), and for a vector or matrix the
        dimensions the answer takes. The instructor's own words are never translated."""
        text = substitute_placeholders(
            givens["prompt"], givens["values"], givens.get("decimals"), decimal
        )
        shape = givens.get("shape")
        if not shape:
            return text
        # Every given shows: the dimensions are said in words as well as by the input grid.
        return f"{text}\n\n{answer_request(shape)}"


FORMULA = FormulaFamily()


def _formula_error(
    formula: ShapedFormula, names: frozenset[str], code: str | None = None
) -> str | None:
    """None when every entry compiles, else a sentence saying which formula (the answer's, or
    mistake `code`'s), where in it ('entry 2') and why the first entry that does not fails."""
    for where, text in entries(formula):
        try:
            _compiled(text, names)
        except ParseError as error:
            fields = {"code": code, "where": where, "message": error.message}
            if code is None and where:
                return _("In the answer formula, %(where)s: %(message)s.") % fields
            if code is None:
                return _("In the answer formula: %(message)s.") % fields
            if where:
                return _("In mistake '%(code)s', %(where)s: %(message)s.") % fields
            return _("In mistake '%(code)s': %(message)s.") % fields
    return None


def shown_names(prompt: str, names: Iterable[str]) -> set[str]:
    """The variables whose value the prompt prints: those named by a {@name@} placeholder."""
    return set(placeholder_names(prompt)) & set(names)


def split_formula_draw(drawn: Mapping[str, Any]) -> Drawn:
    """A whole formula draw (values, formulas, prompt, version) as givens and grading key."""
    values = drawn["values"]
    shown = shown_names(drawn["prompt"], values)
    grading_key: dict[str, Any] = {
        "answer": drawn["answer"],
        "mistakes": dict(drawn["mistakes"]),
        "version": drawn["version"],
    }
    hidden = {name: value for name, value in values.items() if name not in shown}
    if hidden:
        grading_key["hidden_values"] = hidden
    # The worked solution shows how the answer is computed: it is kept apart from the givens
    # like the formulas, and shown only when the learner may see a solution (grading.policy).
    if drawn.get("solution"):
        grading_key["solution"] = list(drawn["solution"])
    # The checks describe the answer ("sum(x) = 1"): like the formulas, never a given.
    if drawn.get("properties"):
        grading_key["properties"] = [dict(entry) for entry in drawn["properties"]]
    givens: dict[str, Any] = {
        "values": {name: value for name, value in values.items() if name in shown},
        "prompt": drawn["prompt"],
    }
    shown_decimals = {n: d for n, d in drawn.get("decimals", {}).items() if n in shown}
    if shown_decimals:
        givens["decimals"] = shown_decimals
    # The learner's input grid shows the dimensions anyway; a number's givens stay as they were.
    if dimensions(drawn["answer"]):
        givens["shape"] = list(dimensions(drawn["answer"]))
    return Drawn(givens=givens, grading_key=grading_key)
