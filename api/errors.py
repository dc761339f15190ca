"""One error shape for every 4xx the API sends: {"code", "message", "field"?}.

`code` is stable for programs, `message` is for people (in the request's language: Accept-Language,
as LocaleMiddleware activates it; codes never change with it), `field` names the body field, query
parameter or header at fault when there is one.

Domain errors (a service refusing what the rules forbid) reach the API through one table, the
SOFTGRADE_API_ERRORS setting: the error class's dotted path and the HTTP status it answers with.
The error's own `code` and `message` (or its text) go out as they are. So services raise their
own errors and never import the API, and this package imports no app.
"""

from __future__ import annotations

import math
from functools import cache
from http import HTTPStatus
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import Http404, JsonResponse
from django.utils.module_loading import import_string
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, serializers
from rest_framework.response import Response
from rest_framework.views import set_rollback


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable, machine-readable, e.g. `no_tries_left`.")
    message = serializers.CharField(help_text="What went wrong, for a person.")
    field = serializers.CharField(
        required=False,
        help_text="The body field, query parameter or header at fault, when there is one.",
    )


def not_found(message: str, *, field: str | None = None) -> exceptions.NotFound:
    """A 404 that names the body field or query parameter whose value found nothing."""
    exc = exceptions.NotFound(message)
    exc.field = field
    return exc


class DomainError(exceptions.APIException):
    """A domain error as the table answers it: its status, its code, its message."""

    def __init__(self, message: str, *, code: str, status_code: int):
        self.status_code = status_code
        super().__init__(message, code=code)


@cache
def domain_errors() -> tuple[tuple[type[Exception], int], ...]:
    """SOFTGRADE_API_ERRORS imported: (error class, status), most specific class first."""
    table = [
        (import_string(path), status_code)
        for path, status_code in settings.SOFTGRADE_API_ERRORS.items()
    ]
    for error, status_code in table:
        if not (isinstance(error, type) and issubclass(error, Exception)):
            raise TypeError(f"SOFTGRADE_API_ERRORS names {error!r}, which is not an exception.")
        HTTPStatus(status_code)  # a typo in the table fails here, not in a response
    # A subclass listed apart from its base answers with its own status.
    return tuple(sorted(table, key=lambda entry: -len(entry[0].__mro__)))


@receiver(setting_changed)
def _table_changed(*, setting: str, **kwargs) -> None:
    if setting == "SOFTGRADE_API_ERRORS":
        domain_errors.cache_clear()


def domain_error(exc: Exception) -> DomainError | None:
    """The API error the table maps a domain error to, or None when the table has no entry."""
    for error, status_code in domain_errors():
        if isinstance(exc, error):
            code = getattr(exc, "code", None)
            code = code or HTTPStatus(status_code).phrase.lower().replace(" ", "_")
            # str(): a service's lazily translated message, in the request's language.
            message = str(getattr(exc, "message", None) or exc)
            return DomainError(message, code=code, status_code=status_code)
    return None


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
        return path, exceptions.ErrorDetail(_("Invalid input."), code="invalid")
    return path, detail


def _body_for(exc: exceptions.APIException) -> dict[str, str]:
    field_path, leaf = _first_error(exc.detail)
    code = getattr(leaf, "code", None) or exc.default_code
    field = ".".join(field_path) or getattr(exc, "field", None)
    return error_body(str(code), str(leaf), field)


def api_exception_handler(exc: Exception, context: dict) -> Response | None:
    """DRF's exception handler, answering in the one error shape (and domain errors as the
    table says, with the service's own code and message)."""
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(*exc.args)
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(*exc.args)
    elif not isinstance(exc, exceptions.APIException):
        exc = domain_error(exc) or exc
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
        body["message"] = _("Send an API key (Authorization: Bearer …) or sign in to the site.")
    return Response(body, status=exc.status_code, headers=headers)


@csrf_exempt  # it changes nothing, so a POST to a wrong path gets this 404, not a CSRF page
def endpoint_not_found(request, *args, **kwargs) -> JsonResponse:
    """Any path under /api/v1/ that names no endpoint: the same shape as every other 404."""
    return JsonResponse(
        error_body(
            "not_found",
            _("No API endpoint at %(path)s; see /api/v1/docs/.") % {"path": request.path},
        ),
        status=404,
    )
