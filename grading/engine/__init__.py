"""softgrade's grading engine: problem families, answer reading and grading.

Pure Python and NumPy (plus simpleeval): nothing here imports Django, so the engine can be
tested, benchmarked and reused on its own.
"""

from grading.engine.answers import ParseError, format_answer, parse
from grading.engine.checks import Tolerance, describe_tolerance, within_tolerance
from grading.engine.seeds import derive_seed

__all__ = [
    "ParseError",
    "Tolerance",
    "derive_seed",
    "describe_tolerance",
    "format_answer",
    "parse",
    "within_tolerance",
]
