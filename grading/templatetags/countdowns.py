"""How the waiting room's countdown reads before its script takes over."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def countdown_ms(milliseconds: int | None) -> str:
    """A time left as a countdown shows it, from milliseconds rounded up to the second:
    '4:05', or '1:02:03' from an hour on (static/js/waiting-room.js writes the same)."""
    seconds = -(-int(milliseconds or 0) // 1000)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:02d}"
    return f"{minutes}:{seconds:02d}"
