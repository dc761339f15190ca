"""softgrade's grading engine: problem families, answer reading and grading.

Pure Python and NumPy (plus simpleeval): nothing here imports Django, so the engine can be
tested, benchmarked and reused on its own.
"""

from grading.engine.answers import ParseError, format_answer, parse
from grading.engine.checks import Tolerance, describe_tolerance, within_tolerance
from grading.engine.grade import Verdict, grade, grade_many
from grading.engine.problems import (
    FAMILIES,
    FORMULA_FAMILY,
    NO_KEY,
    VALIDATION_SEEDS,
    Drawn,
    Family,
    Finding,
    FormulaReport,
    ParamError,
    ParamSpec,
    Solution,
    UnknownFamily,
    VariantData,
    check_formula,
    get_family,
    make_variant,
    mistake_formula,
    mistake_misconceptions,
    property_misconceptions,
    right_answer_failure,
    validate_formula,
    validate_params,
)
from grading.engine.rules import ANSWER_KINDS, RULES, Rule, rule_for
from grading.engine.seeds import derive_seed

__all__ = [
    "ANSWER_KINDS",
    "FAMILIES",
    "FORMULA_FAMILY",
    "NO_KEY",
    "RULES",
    "VALIDATION_SEEDS",
    "Drawn",
    "Family",
    "Finding",
    "FormulaReport",
    "ParamError",
    "ParamSpec",
    "ParseError",
    "Rule",
    "Solution",
    "Tolerance",
    "UnknownFamily",
    "VariantData",
    "Verdict",
    "check_formula",
    "derive_seed",
    "describe_tolerance",
    "format_answer",
    "get_family",
    "grade",
    "grade_many",
    "make_variant",
    "mistake_formula",
    "mistake_misconceptions",
    "parse",
    "property_misconceptions",
    "right_answer_failure",
    "rule_for",
    "validate_formula",
    "validate_params",
    "within_tolerance",
]
