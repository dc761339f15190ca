"""A moment as a person reads it: in the active time zone (the person's, activated for every
request by accounts/middleware.py), the zone named: "2 Dec 2026, 19:40 NZDT".

The one way softgrade writes a time for people: the `{% local_time %}` tag
(accounts/templatetags/local_times.py) and every message that names a time call it. CSV files and
the API write UTC in ISO 8601 instead (machines read those).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from django.utils import dateformat, timezone
from django.utils.translation import pgettext_lazy

# Date and time; a time of day alone (for a deadline within the hour, beside its date); date and
# time to the second (for tries, seconds apart). Django date-format letters, in the reader's
# language: German writes the day with a dot ("2. Dez. 2026, 19:40").
FORMATS = {
    "datetime": pgettext_lazy("date format: day month year, hour:minute", "j M Y, H:i"),
    "time": "H:i",
    "seconds": pgettext_lazy("date format: day month year, hour:minute:second", "j M Y, H:i:s"),
}
NUMERIC_ABBREVIATION = re.compile(r"^([+-])(\d{2})(\d{2})?$")


def zone_abbreviation(local: datetime) -> str:
    """The zone's short name at that moment, e.g. "NZDT", "UTC"; where the tz database has no
    letters for it, its offset: "UTC+5:45" (not "+0545")."""
    name = local.tzname() or "UTC"
    numeric = NUMERIC_ABBREVIATION.match(name)
    if numeric is None:
        return name
    sign, hours, minutes = numeric.groups()
    offset = f"{sign}{int(hours)}" + (f":{minutes}" if minutes and minutes != "00" else "")
    return f"UTC{offset}"


def moment_text(moment: datetime, style: str = "datetime") -> str:
    """The moment in the active zone, the zone named: "2 Dec 2026, 19:40 NZDT"."""
    if style not in FORMATS:
        raise ValueError(f"no time style {style!r}; one of {', '.join(FORMATS)}")
    local = timezone.localtime(moment)
    return f"{dateformat.format(local, str(FORMATS[style]))} {zone_abbreviation(local)}"


def iso_utc(moment: datetime) -> str:
    """The moment in UTC, ISO 8601 with a Z, to the second: what <time datetime> carries."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
