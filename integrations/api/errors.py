"""One error shape for every 4xx the API sends: {"code", "message", "field"?}.

`code` is stable for programs, `message` is for people, `field` names the body field, query
parameter or header at fault when there is one.
"""

from __future__ import annotations

import math
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import set_rollback

from grading.services import ServiceError


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable, machine-readable, e.g. `no_tries_left`.")
    message = serializers.CharField(help_text="What went wrong, for a person.")
    field = serializers.CharField(
        required=False,
        help_text="The body field, query parameter or header at fault, when there is one.",
    )


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"
    default_detail = "The request conflicts with the current state."


def not_found(message: str, *, field: str | None = None) -> exceptions.NotFound:
    """A 404 that names the body field or query parameter whose value found nothing."""
    exc = exceptions.NotFound(message)
    exc.field = field
    return exc


def error_body(code: str, message: str, field: str | None = None) -> dict[str, str]:
    body = {"code": code, "message": message}
    if field:
        body["field"] = field
    return body


def _first_error(detail: Any, path: tuple[str, ...] = ()) -> tuple[tuple[str, ...], Any]:
    """The first leaf of DRF's nested error detail and the field path leading to it."""
    if isinstance(detail, dict):
        name, inner = next(iter(detail.items()))
        if name in ("non_field_errors", "detail"):
            return _first_error(inner, path)
        return _first_error(inner, (*path, str(name)))
    if isinstance(detail, list):
        for position, inner in enumerate(detail):
            if inner:  # nested list serializers give [] for entries without errors
                nested = isinstance(inner, dict | list) and len(detail) > 1 and path
                return _first_error(inner, (*path, str(position)) if nested else path)
        return path, exceptions.ErrorDetail("Invalid input.", code="invalid")
    return path, detail


def _body_for(exc: exceptions.APIException) -> dict[str, str]:
    field_path, leaf = _first_error(exc.detail)
    code = getattr(leaf, "code", None) or exc.default_code
    field = ".".join(field_path) or getattr(exc, "field", None)
    return error_body(str(code), str(leaf), field)


def api_exception_handler(exc: Exception, context: dict) -> Response | None:
    """DRF's exception handler, answering in the one error shape (and refusals of the rules as
    409 Conflict with the service's own code and message)."""
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(*exc.args)
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(*exc.args)
    elif isinstance(exc, ServiceError):
        exc = Conflict(exc.message, code=exc.code)
    if not isinstance(exc, exceptions.APIException):
        return None
    headers = {}
    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = exc.auth_header
    if getattr(exc, "wait", None):
        headers["Retry-After"] = f"{math.ceil(exc.wait)}"
    set_rollback()
    body = _body_for(exc)
    if isinstance(exc, exceptions.NotAuthenticated):
        body["message"] = "Send an API key (Authorization: Bearer …) or sign in to the site."
    return Response(body, status=exc.status_code, headers=headers)


@csrf_exempt  # it changes nothing, so a POST to a wrong path gets this 404, not a CSRF page
def endpoint_not_found(request, *args, **kwargs) -> JsonResponse:
    """Any path under /api/v1/ that names no endpoint: the same shape as every other 404."""
    return JsonResponse(
        error_body("not_found", f"No API endpoint at {request.path}; see /api/v1/docs/."),
        status=404,
    )
