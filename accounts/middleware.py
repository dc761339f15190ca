"""Every request in its person's time zone (accounts/time_zones.py decides which).

Activated for the whole request, admin included: templates, Django's forms and the admin's date
and time inputs read and write times in it, and messages name times in it. The API and CSV
files write UTC whatever is active (their serializers and writers say so themselves).
"""

from __future__ import annotations

from django.utils import timezone

from accounts.time_zones import BROWSER_ZONE_COOKIE, person_zone


def profile_zone_of(user) -> str:
    """The zone a signed-in person chose, "" for none (fetched with the user: accounts/backends)."""
    if not getattr(user, "is_authenticated", False):
        return ""
    profile = getattr(user, "profile", None)
    return profile.time_zone if profile is not None else ""


class TimeZoneMiddleware:
    """Activates the person's zone (listed after AuthenticationMiddleware) and leaves it on the
    request as `request.time_zone` (a PersonZone: the zone and where it came from)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        zone = person_zone(
            profile_zone=profile_zone_of(request.user),
            browser_zone=request.COOKIES.get(BROWSER_ZONE_COOKIE),
        )
        request.time_zone = zone
        timezone.activate(zone.zone)
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
