"""Reading what learners type: numbers, expressions, vectors and matrices.

Every entry is a small arithmetic expression evaluated by simpleeval with our own operator,
function and name tables (arithmetic.py), after a lexical check of the text (text.py), a layout
of its entries against the expected shape (layout.py) and a syntax-tree check (expressions.py)
that refuse anything beyond numbers, + − × / ^, sqrt, exp, ln, log, e and pi. Every failure is
a ParseError whose message tells the learner what to fix. reader.py puts the phases together;
formatting.py writes numbers back as text a learner could type.
"""

from grading.engine.answers.arithmetic import RESERVED_NAMES
from grading.engine.answers.errors import ParseError
from grading.engine.answers.expressions import Expression, compile_expression
from grading.engine.answers.formatting import format_answer, format_number
from grading.engine.answers.reader import parse

__all__ = [
    "RESERVED_NAMES",
    "Expression",
    "ParseError",
    "compile_expression",
    "format_answer",
    "format_number",
    "parse",
]
