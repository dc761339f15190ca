"""The words of the engine's rules as a person reads them: a rule's sentence for the learner and
its title for the instructor, in the active language, numbers written with the page's decimal
separator. The rule table (grading.engine.rules) keeps both in English, marked for translation."""

from __future__ import annotations

from grading.engine.answers.formatting import entry_separator, format_count, format_number
from grading.engine.i18n import gettext as _
from grading.engine.i18n import gettext_noop
from grading.engine.rules import RULES

_DIRECTIONS = {"large": gettext_noop("too large"), "small": gettext_noop("too small")}


def _written(name: str, value: object, decimal: str) -> str:
    """A field of a sentence as the learner reads it, numbers with the page's separator."""
    if name == "direction":
        return _(_DIRECTIONS[str(value)])
    if isinstance(value, tuple | list):  # a probability vector, e.g. (0.2, 0.3, 0.5)
        between = entry_separator(decimal) + " "
        return "(" + between.join(format_number(x, 3, decimal) for x in value) + ")"
    if isinstance(value, int):
        return format_count(value, decimal)
    if isinstance(value, float):
        return format_number(value, 4, decimal)
    return str(value)


def sentence(code: str, decimal: str = ".", **fields: object) -> str:
    """The learner's sentence of a rule in the active language, its %(fields)s filled (numbers
    written with the page's decimal separator), e.g. sentence("reciprocal"). Fields: direction
    ("large" or "small"), a factor (int or float), needed and n (int), p (the probabilities)."""
    text = _(RULES[code].sentence)
    if not fields:
        return text
    return text % {name: _written(name, value, decimal) for name, value in fields.items()}


def title(code: str) -> str:
    """The instructor-facing title of a rule in the active language, e.g. title("squared")."""
    return _(RULES[code].title)
