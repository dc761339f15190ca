"""Every request in its person's time zone (accounts/time_zones.py decides which) and language
(accounts/languages.py).

Activated for the whole request, admin included: templates, Django's forms and the admin's date
and time inputs read and write times in it, and messages name times in it. The API and CSV
files write UTC whatever is active (their serializers and writers say so themselves).
"""

from __future__ import annotations

from django.utils import timezone, translation
from django.utils.cache import patch_vary_headers

from accounts.languages import PersonLanguage, browser_language, request_language
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


def _activate(request, language: PersonLanguage) -> None:
    """Speak `language` for the rest of the request, and say so on it (`request.LANGUAGE_CODE`,
    as Django's own LocaleMiddleware would, and where it came from)."""
    request.LANGUAGE_CODE = language.code
    request.language_source = language.source
    translation.activate(language.code)


class BrowserLanguageMiddleware:
    """Activates the language the browser alone asks for (the selector's cookie, else
    `Accept-Language`), reading no database, for the whole response phase: a page that fails
    before the person is known (an outage's 503) is still in their language. Responses vary by
    what may choose the language. Listed early; LanguageMiddleware refines it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        _activate(request, browser_language(request))
        try:
            response = self.get_response(request)
        finally:
            translation.deactivate()
        patch_vary_headers(response, ("Accept-Language", "Cookie"))
        response.headers.setdefault("Content-Language", request.LANGUAGE_CODE)
        return response


class LanguageMiddleware:
    """Activates the person's language (accounts/languages.py decides which: their profile and
    their LMS's locale come in here, once the user and the session are read) and leaves it on
    the request as `request.LANGUAGE_CODE`, as Django's own LocaleMiddleware would. Innermost
    beside TimeZoneMiddleware: reading the user may meet an outage, whose 503 then goes out
    through every middleware above, in the browser's language."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        _activate(request, request_language(request))
        return self.get_response(request)
