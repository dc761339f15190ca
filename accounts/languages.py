"""Which language a request is in: the one place that decides it.

In order: the person's own choice (their profile when signed in, else the selector's cookie),
then their browser's `Accept-Language`, then the locale their LMS sent with an LTI launch
(`launch_presentation.locale`, kept in the session), then English. Each is taken only when
softgrade speaks it (settings.LANGUAGES); a regional variant falls back to its language
(`de-AT` reads German). Authored content (lessons, questions) is not translated: it stays in the
language its instructor wrote it in.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext_lazy

# The session key holding the locale of the LMS that launched this session (lti/views.py).
SESSION_LTI_LOCALE = "lti_locale"

CHOICE, BROWSER, LMS, DEFAULT = "choice", "browser", "lms", "default"
# How the settings page says where the language came from.
SOURCES = {
    CHOICE: gettext_lazy("your choice"),
    BROWSER: gettext_lazy("your browser's language"),
    LMS: gettext_lazy("your learning platform's language"),
    DEFAULT: gettext_lazy("the default"),
}

# One `Accept-Language` entry: a language range and its optional weight (RFC 9110, 12.5.4).
_ACCEPT_ENTRY = re.compile(
    r"^\s*([A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*|\*)\s*(?:;\s*q\s*=\s*([0-9.]+))?\s*$"
)
_MAX_HEADER = 500  # longer headers are read no further: a cap on work a request can ask for


class PersonLanguage(NamedTuple):
    code: str  # one of settings.LANGUAGES' codes
    source: str  # CHOICE, BROWSER, LMS or DEFAULT


def supported(code: str | None) -> str | None:
    """The language softgrade speaks for `code` ("de-AT" → "de"), None if none."""
    if not code or not isinstance(code, str) or len(code) > 35:
        return None
    try:
        return translation.get_supported_language_variant(code.strip().replace("_", "-").lower())
    except LookupError:
        return None


def from_accept_language(header: str | None) -> str | None:
    """The first language of the header, by weight, that softgrade speaks; None if none does."""
    ranked: list[tuple[float, int, str]] = []
    for position, entry in enumerate((header or "")[:_MAX_HEADER].split(",")):
        match = _ACCEPT_ENTRY.match(entry)
        if not match or match.group(1) == "*":
            continue
        try:
            weight = float(match.group(2)) if match.group(2) else 1.0
        except ValueError:
            continue
        if weight > 0:
            ranked.append((-weight, position, match.group(1)))
    for _weight, _position, code in sorted(ranked):
        if language := supported(code):
            return language
    return None


def person_language(
    *,
    profile_language: str = "",
    cookie_language: str | None = None,
    accept_language: str | None = None,
    lms_locale: str | None = None,
) -> PersonLanguage:
    """The language a person reads and writes in, and where it came from."""
    if language := supported(profile_language) or supported(cookie_language):
        return PersonLanguage(language, CHOICE)
    if language := from_accept_language(accept_language):
        return PersonLanguage(language, BROWSER)
    if language := supported(lms_locale):
        return PersonLanguage(language, LMS)
    return PersonLanguage(supported(settings.LANGUAGE_CODE) or "en", DEFAULT)


def browser_language(request) -> PersonLanguage:
    """`person_language` from what the browser alone sends (its cookie and `Accept-Language`):
    no database read, so it holds during an outage."""
    return person_language(
        cookie_language=request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME),
        accept_language=request.headers.get("Accept-Language"),
    )


def request_language(request) -> PersonLanguage:
    """`person_language` for a request (its user's profile is fetched with the user)."""
    user = getattr(request, "user", None)
    profile = getattr(user, "profile", None) if getattr(user, "is_authenticated", False) else None
    session = getattr(request, "session", None)
    return person_language(
        profile_language=profile.language if profile is not None else "",
        cookie_language=request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME),
        accept_language=request.headers.get("Accept-Language"),
        lms_locale=session.get(SESSION_LTI_LOCALE) if session is not None else None,
    )


def language_choices() -> list[tuple[str, str]]:
    """The languages a person can choose, each named in its own language ("Deutsch")."""
    return [
        (code, translation.get_language_info(code)["name_local"]) for code, _ in settings.LANGUAGES
    ]


def is_right_to_left(code: str) -> bool:
    return bool(translation.get_language_info(code)["bidi"])
