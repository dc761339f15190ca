"""Let an LMS show softgrade in its iframe, for LTI sessions only.

softgrade's pages refuse to be framed (CSP frame-ancestors 'self', X-Frame-Options), and its
cookies are SameSite=Lax, which a browser does not send inside another site's iframe. A learner
who arrived by an LTI launch works inside the LMS's iframe, so for their session (and the login
and launch pages themselves) these two middlewares allow framing by that LMS's origin only and,
over HTTPS, mark the cookies SameSite=None; Secure; Partitioned. Every other page and session is
unchanged.

Partitioned (CHIPS) keeps such a cookie in a jar of the top-level site, the LMS's: browsers that
block third-party cookies (private windows, Safari, Firefox, Chrome when asked) still keep and
send it inside that LMS's frame, and nowhere else.
"""

from __future__ import annotations

from http.cookies import Morsel
from urllib.parse import urlsplit

from django.utils.csp import CSP

from security.content_policy import relax

# The session key holding the origins of the LMS that launched this session.
SESSION_FRAME_ANCESTORS = "lti_frame_ancestors"


def platform_origin(url: str) -> str:
    """scheme://host[:port] of an LMS URL: what CSP frame-ancestors names."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def frame_ancestors(request) -> list[str]:
    """The LMS origins allowed to frame this response: set by a login/launch view, or kept in
    the session of a learner who arrived by a launch."""
    origins = getattr(request, "lti_frame_ancestors", None)
    if origins:
        return list(origins)
    session = getattr(request, "session", None)
    if session is None:
        return []
    return list(session.get(SESSION_FRAME_ANCESTORS, []))


class PartitionedMorsel(Morsel):
    """A cookie written with the Partitioned attribute (Python's Morsel knows it only from 3.14)."""

    def OutputString(self, attrs=None):
        return super().OutputString(attrs) + "; Partitioned"


def embeddable(morsel: Morsel) -> Morsel:
    """The same cookie, kept and sent inside an LMS's frame: SameSite=None; Secure; Partitioned."""
    embedded = PartitionedMorsel()
    embedded.set(morsel.key, morsel.value, morsel.coded_value)
    embedded.update(morsel)
    embedded["samesite"] = "None"
    embedded["secure"] = True
    return embedded


class EmbeddedCookiesMiddleware:
    """Over HTTPS, an LTI session's cookies (and the login's state cookie) become embeddable
    (listed before the session middleware, so it sees the cookies that the session and CSRF
    middlewares set)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        # Over plain HTTP a browser drops SameSite=None cookies, so nothing changes there.
        if request.is_secure() and response.cookies and frame_ancestors(request):
            for name, morsel in list(response.cookies.items()):
                response.cookies[name] = embeddable(morsel)
        return response


class PlatformFramingMiddleware:
    """An LTI session's pages may be framed by its LMS (listed last, so it runs before the CSP
    and X-Frame-Options middlewares write their headers)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code >= 500:
            # An error page frames as the handler decided (the outage page anywhere): reading
            # the session here would fail again when the database is what is down.
            return response
        origins = frame_ancestors(request)
        if origins:
            relax(response, "frame-ancestors", [CSP.SELF, *origins])
            response.xframe_options_exempt = True
        return response
