"""When a part softgrade depends on is down: what counts as an outage, and the one answer to it.

An outage is the database or the shared cache not answering (a restart, a failover, a dropped
connection). The request that meets one cannot be served, but nothing is wrong with it, so it
gets a 503 with Retry-After, never a 500 or a stack trace: a page for browsers, the API's JSON
error (`{"code": "unavailable", ...}`) under /api/. The answer is given in one place, Django's
500 handler (`handler500` in the URLconf), which every uncaught exception reaches, whether a
view, a middleware (the session's save) or a template raised it. Writes are safe to retry:
a sheet of answers is saved in one transaction and every answer form carries its submission
token, so a learner who sends again after a 503 records each answer once.

Connections recover by themselves: Django closes a connection on which an error occurred at
the end of the request and opens a new one for the next; redis-py reconnects on the next
command.
"""

from __future__ import annotations

import logging
import sys

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils.translation import ngettext
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csp import csp_override
from django.views.defaults import server_error

logger = logging.getLogger("softgrade.availability")

# Seconds a client is asked to wait: PostgreSQL and Redis restart in a few seconds.
RETRY_AFTER = 5


def _cache_errors() -> tuple[type[BaseException], ...]:
    try:
        import redis
    except ImportError:  # deployments without a Redis cache
        return ()
    return (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)


DATABASE_ERRORS: tuple[type[BaseException], ...] = (OperationalError, InterfaceError)
CACHE_ERRORS: tuple[type[BaseException], ...] = _cache_errors()


def outage_part(error: BaseException | None) -> str:
    """Which part an error says is down: "database", "cache", or "" for any other error."""
    if isinstance(error, DATABASE_ERRORS):
        return "database"
    if CACHE_ERRORS and isinstance(error, CACHE_ERRORS):
        return "cache"
    return ""


def unavailable_response(request: HttpRequest, part: str) -> HttpResponse:
    """The 503 for a request that met an outage: JSON under /api/, a page elsewhere.

    The page is rendered without the request's context (no user, no messages): both would
    read the session, which lives in the database that may be the part that is down.
    """
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse(
            {
                "code": "unavailable",
                "message": ngettext(
                    "The service is briefly unavailable; nothing was changed. Send the request "
                    "again in %(seconds)s second.",
                    "The service is briefly unavailable; nothing was changed. Send the request "
                    "again in %(seconds)s seconds.",
                    RETRY_AFTER,
                )
                % {"seconds": RETRY_AFTER},
            },
            status=503,
        )
    else:
        response = HttpResponse(
            render_to_string("503.html", {"retry_after": RETRY_AFTER, "part": part}),
            status=503,
        )
    response["Retry-After"] = str(RETRY_AFTER)
    response["Cache-Control"] = "no-store"
    return response


def server_error_or_unavailable(request: HttpRequest) -> HttpResponse:
    """handler500: a 503 when the error being handled is an outage, Django's 500 otherwise.

    Django calls the 500 handler while it handles the exception (sys.exc_info() is that
    exception) and then logs the request with the status returned here and the traceback.
    """
    part = outage_part(sys.exc_info()[1])
    if not part:
        return server_error(request)
    logger.warning("%s unavailable: %s %s answered 503", part, request.method, request.path)
    # A learner inside an LMS's iframe must see this page, not the browser's "refused to
    # connect": it holds no form or link that acts, so any site may frame it (the LMS's origin
    # is in the session, which may be the part that is down).
    anywhere = {**settings.SECURE_CSP, "frame-ancestors": ["*"]}
    return xframe_options_exempt(csp_override(anywhere)(unavailable_response))(request, part)
