"""How the problem pages show numbers: a learner's value, a true answer, a share."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def number(value: float | None) -> str:
    """A value as learners type them: 16384, 0.25, 1.234e-05; empty for None."""
    if value is None:
        return ""
    return f"{value:.6g}"


@register.filter
def share(part: int, whole: int) -> str:
    """part of whole as a percentage, 42 %; "–" when whole is 0."""
    if not whole:
        return "–"
    return f"{round(100 * part / whole)} %"


@register.filter
def get_item(mapping: dict, key: object) -> object:
    """mapping[key], or None: a dictionary read by a key the template holds."""
    return mapping.get(key) if isinstance(mapping, dict) else None
