"""How the instructor pages show durations and an item's result in the grid."""

from __future__ import annotations

from datetime import timedelta

from django import template
from django.utils.translation import gettext_lazy as _

register = template.Library()

# Each status of an item in the results grid: a mark for the eye and words for screen readers.
STATUS_MARKS = {
    "correct": ("✓", _("correct")),
    "incorrect": ("✗", _("not correct")),
    "override": ("✎", _("score set by an instructor")),
    "blank": ("–", _("not answered")),
}


@register.filter
def duration(value: timedelta | None) -> str:
    """A time taken in words: 45 s, 12 min 05 s, 1 h 02 min; empty for None."""
    if value is None:
        return ""
    seconds = max(0, round(value.total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {seconds:02d} s"
    return f"{seconds} s"


@register.filter
def status_mark(status: str) -> str:
    return STATUS_MARKS.get(status, ("?", status))[0]


@register.filter
def status_words(status: str) -> str:
    return str(STATUS_MARKS.get(status, ("?", status))[1])
