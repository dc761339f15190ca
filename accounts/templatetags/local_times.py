"""`{% local_time moment %}`: every time a page shows, in its reader's zone, the zone named.

It writes <time datetime="2026-12-02T06:40:00Z" title="Pacific/Auckland">2 Dec 2026, 19:40
NZDT</time>: the text in the active zone (accounts/moments.py), the exact UTC moment for
machines, the zone's full name on hover. The page is right as the server sends it; no script
rewrites it.
"""

from __future__ import annotations

from datetime import datetime

from django import template
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString

from accounts.moments import FORMATS, iso_utc, moment_text

register = template.Library()


@register.simple_tag
def local_time(moment: datetime | None, style: str = "datetime") -> SafeString | str:
    """A <time> with the moment in the reader's zone, e.g. '20 Jan 2027, 17:30 IST'; '' for no
    moment. Styles: "datetime" (the default), "time" (a time of day), "seconds"."""
    if moment is None:
        return ""
    if style not in FORMATS:
        raise template.TemplateSyntaxError(f"local_time: no style {style!r}")
    return format_html(
        '<time datetime="{}" title="{}">{}</time>',
        iso_utc(moment),
        timezone.get_current_timezone_name(),
        moment_text(moment, style),
    )


@register.simple_tag
def current_time_zone() -> str:
    """The reader's zone by its full name, e.g. "Pacific/Auckland" (what form inputs are in)."""
    return timezone.get_current_timezone_name()
