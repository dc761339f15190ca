"""Which time zone a person reads and types times in, decided once.

Their profile's zone if they chose one; otherwise their browser's, which static/js/time-zone.js
stores in a cookie on every page; until the browser has said, UTC. Every value from a cookie or
a form is checked against the zones this server knows (zoneinfo): anything else is ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from zoneinfo import ZoneInfo, available_timezones

from django.utils.translation import gettext_lazy as _

# The cookie static/js/time-zone.js writes: the browser's IANA zone name.
BROWSER_ZONE_COOKIE = "softgrade_time_zone"
UTC_NAME = "UTC"
# Longer than any IANA name; a longer cookie is not even looked up.
ZONE_NAME_MAX_LENGTH = 64


@dataclass(frozen=True)
class PersonZone:
    """A person's zone and where it came from: "profile", "browser" or "default" (UTC)."""

    zone: ZoneInfo
    source: str

    @property
    def name(self) -> str:
        return self.zone.key


SOURCES = {
    "profile": _("your setting"),
    "browser": _("your browser's"),
    "default": _("UTC until your browser tells softgrade its zone"),
}


@cache
def zone_names() -> frozenset[str]:
    """The IANA zone names this server knows (the tz database zoneinfo reads): "UTC" and the
    Area/Location names browsers report, not the old aliases ("NZ", "EST") nor "localtime",
    which would be whatever zone the server itself is set to."""
    return frozenset(name for name in available_timezones() if "/" in name or name == UTC_NAME) - {
        "posixrules"
    }


def zone_or_none(name: str | None) -> ZoneInfo | None:
    """The zone of that name, or None for a name this server does not know (or none)."""
    if not name or len(name) > ZONE_NAME_MAX_LENGTH or name not in zone_names():
        return None
    return ZoneInfo(name)


def person_zone(*, profile_zone: str, browser_zone: str | None) -> PersonZone:
    """The zone a person's times are in: their setting, else their browser's, else UTC."""
    chosen = zone_or_none(profile_zone)
    if chosen is not None:
        return PersonZone(chosen, "profile")
    browser = zone_or_none(browser_zone)
    if browser is not None:
        return PersonZone(browser, "browser")
    return PersonZone(ZoneInfo(UTC_NAME), "default")


def zone_choices() -> list[tuple[str, str]]:
    """The zones a person may choose, by region then city, as (name, label)."""
    names = sorted(n for n in zone_names() if "/" in n and not n.startswith(("Etc/", "SystemV/")))
    return [(name, name.replace("_", " ")) for name in [UTC_NAME, *names]]
