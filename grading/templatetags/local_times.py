"""Times as learners read them: UTC from the server, the learner's own zone in the browser.

`{% local_time moment %}` writes a <time> whose text is the UTC time, labelled so, and whose
datetime attribute static/js/local-time.js reads to write the same moment in the browser's own
time zone. Without the script the UTC text stands, and says which zone it is in.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()

# What the server writes for each style; the script has the same styles (date and time, or a
# time of day alone, as for a deadline within the hour).
FORMATS = {"datetime": "%Y-%m-%d %H:%M", "time": "%H:%M"}


@register.simple_tag
def local_time(moment: datetime | None, style: str = "datetime") -> SafeString | str:
    """A <time> with the moment in UTC, e.g. '2027-01-20 12:00 UTC'; '' for no moment."""
    if moment is None:
        return ""
    if style not in FORMATS:
        raise template.TemplateSyntaxError(f"local_time: no style {style!r}")
    utc = moment.astimezone(UTC)
    return format_html(
        '<time datetime="{}" data-local-time="{}">{} UTC</time>',
        utc.strftime("%Y-%m-%dT%H:%M:%SZ"),
        style,
        utc.strftime(FORMATS[style]),
    )


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
