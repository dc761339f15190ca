"""/health/: whether this node can serve, for a load balancer and the fault bench."""

from __future__ import annotations

from django.core.cache import caches
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from .outages import CACHE_ERRORS, DATABASE_ERRORS, RETRY_AFTER


@never_cache
@require_GET
def health(request: HttpRequest) -> JsonResponse:
    """200 while the database answers, 503 (with Retry-After) while it does not.

    The body names each part: `{"database": "ok", "cache": "ok"}`. The cache being down does
    not make the node unhealthy: everything that uses it degrades (security/limits.py), so a
    load balancer keeps sending learners. Reads neither session nor user: no query but its own.
    """
    parts = {"database": "ok", "cache": "ok"}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DATABASE_ERRORS:
        parts["database"] = "unavailable"
    try:
        caches["default"].get("health")
    except CACHE_ERRORS:
        parts["cache"] = "unavailable"
    response = JsonResponse(parts, status=200 if parts["database"] == "ok" else 503)
    if response.status_code == 503:
        response["Retry-After"] = str(RETRY_AFTER)
    return response
