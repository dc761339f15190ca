"""Problem families: generators, solvers and the mistakes each one recognises."""

from grading.engine.problems.base import (
    NO_KEY,
    Drawn,
    Family,
    Finding,
    ParamError,
    ParamSpec,
    Solution,
    VariantData,
    make_variant,
    offered_mistakes,
    validate_params,
)
from grading.engine.problems.formula import FORMULA, FORMULA_FAMILY
from grading.engine.problems.formula_check import (
    VALIDATION_SEEDS,
    FormulaReport,
    check_formula,
    validate_formula,
)
from grading.engine.problems.formula_mistakes import mistake_formula, mistake_misconceptions
from grading.engine.problems.formula_properties import (
    property_misconceptions,
    right_answer_failure,
)
from grading.engine.problems.registry import FAMILIES, UnknownFamily, get_family

__all__ = [
    "FAMILIES",
    "FORMULA",
    "FORMULA_FAMILY",
    "NO_KEY",
    "VALIDATION_SEEDS",
    "Drawn",
    "Family",
    "Finding",
    "FormulaReport",
    "ParamError",
    "ParamSpec",
    "Solution",
    "UnknownFamily",
    "VariantData",
    "check_formula",
    "get_family",
    "make_variant",
    "mistake_formula",
    "mistake_misconceptions",
    "offered_mistakes",
    "property_misconceptions",
    "right_answer_failure",
    "validate_formula",
    "validate_params",
]
