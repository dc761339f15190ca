"""The page's decimal separator: one reader for both, through a transform of the text.

With a decimal point (English) the reader reads text as it always has: `0.5`, entries apart with
commas, rows with `;` or new lines. With a decimal comma (German) a learner writes `0,5`, entries
apart with `;` and rows on new lines or in brackets: `[0,2; 0,5; 0,3]`. `decimal_commas` turns
such text into the first form (`,` → `.`, `;` → `,`), so the rest of the reader is the same for
both; `0.5` still reads 0.5, as a learner may type it on any page.

A thousands separator is never taken for a decimal one: with a decimal comma, `1.000`, `12.345`,
`1.000.000` and `1.000,5` are refused with a message that says how to write them (a point before
exactly three digits is how German groups thousands); with a decimal point, a single number such
as `1,000` is refused alike.
"""

from __future__ import annotations

import re

from grading.engine.answers.errors import ParseError
from grading.engine.i18n import gettext as _

# A dotted thousands group: 1 to 3 digits (not starting with 0), then groups of exactly three
# after a point, as a whole number (not part of a longer one), with an optional decimal comma.
_DOTTED_GROUPS = re.compile(r"(?<![\w.,])([1-9][0-9]{0,2}(?:\.[0-9]{3})+)(,[0-9]+)?(?![0-9.])")
# The same with commas, as the whole of a single number on a decimal-point page.
_COMMA_GROUPS = re.compile(r"\s*[+-]?([1-9][0-9]{0,2}(?:,[0-9]{3})+)(\.[0-9]+)?\s*")
# A comma is a decimal comma only before a digit and not after a name or a closing bracket.
_STRAY_COMMA = re.compile(r",(?![0-9])|(?<=[A-Za-z_)\]]),")
_TWO_COMMAS = re.compile(r"[0-9],[0-9]+,[0-9]")
_EMPTY_ENTRY = re.compile(r";\s*;")


def _grouped(number: str, groups: str, fraction: str | None, decimal: str) -> ParseError:
    whole = number.replace(groups, "")
    if fraction or number.count(groups) > 1:
        return ParseError(
            _("%(number)s has thousands separators: write it without them, as %(whole)s")
            % {"number": number + (fraction or ""), "whole": whole + (fraction or "")}
        )
    if decimal == ",":
        message = _(
            "%(number)s is ambiguous: write %(whole)s for the whole number, or %(decimal)s "
            "with a decimal comma"
        )
    else:
        message = _(
            "%(number)s is ambiguous: write %(whole)s for the whole number, or %(decimal)s "
            "with a decimal point"
        )
    return ParseError(
        message % {"number": number, "whole": whole, "decimal": number.replace(groups, decimal)}
    )


def decimal_commas(text: str) -> str:
    """Text written with a decimal comma as the reader's decimal-point form, e.g. '[0,2; 0,8]' →
    '[0.2, 0.8]'; ParseError for a thousands group ('1.000') or a comma that is no decimal one."""
    for match in _DOTTED_GROUPS.finditer(text):
        raise _grouped(match.group(1), ".", match.group(2), ",")
    if "," in text:
        if _TWO_COMMAS.search(text):
            raise ParseError(
                _("a number has two decimal commas: separate entries with ;, e.g. [0,2; 0,8]")
            )
        if _STRAY_COMMA.search(text):
            raise ParseError(
                _(
                    "the comma is the decimal separator here, e.g. 0,5: separate entries "
                    "with ;, e.g. [0,2; 0,8]"
                )
            )
    if _EMPTY_ENTRY.search(text):
        raise ParseError(_("a number is missing between two semicolons"))
    return text.replace(",", ".").replace(";", ",")


def check_thousands_commas(text: str) -> None:
    """Refuse a single number written with thousands commas on a decimal-point page, e.g.
    '1,000' (a learner used to decimal commas may mean 1.0: the message offers both)."""
    match = _COMMA_GROUPS.fullmatch(text)
    if match is not None:
        raise _grouped(match.group(1), ",", match.group(2), ".")
