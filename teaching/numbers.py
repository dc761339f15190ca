"""How every instructor page and export shows a number, decided once.

- A score is in points, as "3.5 / 5" (the points, then the most there are), to two decimals at
  most with no trailing zeros: 3.5, 2, 0.33. A column of scores says so in its header, with the
  maximum when every row shares it: "Total (points of 10)".
- A share (a part of a whole: a mean score of the maximum, a facility, a weight) is a
  percentage to one decimal at most, "60 %", "4.9 %"; its header says "%".
- A statistical coefficient that is no share (a correlation, a skewness) stays a plain decimal.
- CSV files and the API carry plain numbers (points, fractions 0 to 1) for programs to read;
  their headers name the unit, as the page's do (POINTS_UNIT, FRACTION_UNIT).
- On a page every number is written in the page's language (3,5 in German): the functions here
  round in Python, then hand the digits to Django's number_format; exports never call them.

The templates use them through teaching/templatetags/teaching_numbers.py.
"""

from __future__ import annotations

from decimal import Decimal

from django.utils.formats import number_format
from django.utils.translation import gettext

POINTS_UNIT = "points"
FRACTION_UNIT = "fraction"


def points_text(value: float | None) -> str:
    """Points to two decimals at most, no trailing zeros: 3.5, 2, 0.33; "" for None.

    >>> points_text(3.5), points_text(2.0), points_text(1 / 3), points_text(None)
    ('3.5', '2', '0.33', '')
    """
    if value is None:
        return ""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else localized(text)


def localized(text: str) -> str:
    """Digits as Python writes them ("-3.5") in the page's language ("-3,5" in German)."""
    return number_format(Decimal(text))


def decimal(value: float, digits: int) -> str:
    """A value to exactly `digits` decimals in the page's language: 0.46, 0,46 in German
    (rounded here: Django's number_format cuts a float's digits instead)."""
    return localized(f"{value:.{digits}f}")


def points_of(value: float | None, maximum: float | None) -> str:
    """A score out of its maximum: "3.5 / 5"; "" for no score.

    >>> points_of(3.5, 5)
    '3.5 / 5'
    """
    if value is None:
        return ""
    return f"{points_text(value)} / {points_text(maximum)}"


def percent(fraction: float | None) -> str:
    """A share (0 to 1) as a percentage to one decimal at most: "60 %"; "" for None.

    >>> percent(0.6), percent(1 / 3), percent(-0.0491)
    ('60 %', '33.3 %', '−4.9 %')
    """
    if fraction is None:
        return ""
    text = f"{100 * fraction:.1f}".rstrip("0").rstrip(".")
    if text in ("-0", ""):
        text = "0"
    return f"{localized(text).replace('-', '−')} %"


def points_header(label: str, maximum: float | None = None) -> str:
    """A column of points says so: "Total (points of 10)", or "Score (points)".

    >>> points_header("Total", 10), points_header("Score")
    ('Total (points of 10)', 'Score (points)')
    """
    if maximum is None:
        return gettext("%(label)s (points)") % {"label": label}
    return gettext("%(label)s (points of %(maximum)s)") % {
        "label": label,
        "maximum": points_text(maximum),
    }


def csv_header(name: str, unit: str) -> str:
    """A CSV column's header naming its unit: score_points, facility_fraction."""
    return f"{name}_{unit}"
