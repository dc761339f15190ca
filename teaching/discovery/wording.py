"""A discovered group's relation in the page's language, at render time.

teaching.discovery.mistakes describes each relation in English ("the answer × √d_k"), and the
discovery is cached (teaching.discovery.data) for every instructor whatever their language, so
the words are read back here, when a page is drawn, rather than stored translated. A description
this module does not recognise is shown as it is.
"""

from __future__ import annotations

import re

from django.utils.formats import number_format
from django.utils.translation import gettext, gettext_noop

# The descriptions without an operand, word for word (marked for the catalog, looked up when shown).
FIXED = {
    text: text
    for text in (
        gettext_noop("the answer with the wrong sign"),
        gettext_noop("the reciprocal of the answer"),
        gettext_noop("the square of the answer"),
        gettext_noop("the square root of the answer"),
    )
}
_RATIO = re.compile(r"^the answer × (?P<operand>\S+) \(a constant ratio\)$")
_DIFFERENCE = re.compile(r"^the answer (?P<sign>[+-]) (?P<operand>\S+) \(a constant difference\)$")
_OPERATION = re.compile(r"^the answer (?P<sign>[×÷+−]) (?P<operand>.+)$")
_NUMBER = re.compile(r"^-?[0-9][0-9,]*(\.[0-9]+)?(e[+-]?[0-9]+)?$")


def _operand(text: str) -> str:
    """A number in the page's language (1,000 → 1.000 in German); a name or formula as it is."""
    if not _NUMBER.match(text) or "e" in text:
        return text
    plain = text.replace(",", "")
    value = float(plain) if "." in plain else int(plain)
    return number_format(value, force_grouping="," in text)


def relation_description(description: str) -> str:
    """The English description of a discovered relation in the active language."""
    if description in FIXED:
        return gettext(description)
    if found := _RATIO.match(description):
        return gettext("the answer × %(factor)s (a constant ratio)") % {
            "factor": _operand(found["operand"])
        }
    if found := _DIFFERENCE.match(description):
        values = {"constant": _operand(found["operand"])}
        if found["sign"] == "+":
            return gettext("the answer + %(constant)s (a constant difference)") % values
        return gettext("the answer - %(constant)s (a constant difference)") % values
    if found := _OPERATION.match(description):
        values = {"operand": _operand(found["operand"])}
        return {
            "×": gettext("the answer × %(operand)s"),
            "÷": gettext("the answer ÷ %(operand)s"),
            "+": gettext("the answer + %(operand)s"),
            "−": gettext("the answer − %(operand)s"),
        }[found["sign"]] % values
    return description
