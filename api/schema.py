"""OpenAPI generation: every operation documents the one error shape for each 4xx it can send."""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema
from rest_framework.permissions import AllowAny

from api.errors import ErrorSerializer

_WITH_BODY = {"POST", "PUT", "PATCH"}


class ApiSchema(AutoSchema):
    def _error_statuses(self) -> dict[str, str]:
        view = self.view
        open_to_all = any(p is AllowAny for p in getattr(view, "permission_classes", ()))
        statuses: dict[str, str] = {}
        if self.method in _WITH_BODY or getattr(view, "query_serializer", None):
            statuses["400"] = "Invalid input: the field at fault is named."
        elif self._is_list_view() and getattr(view, "pagination_class", None):
            statuses["400"] = "Invalid paging parameter."
        if not open_to_all:
            statuses["401"] = "No credentials, or an unknown or revoked API key."
            statuses["403"] = "Not allowed for these credentials (or a session without CSRF)."
            statuses["404"] = "Not found, or outside what these credentials reach."
        for code, description in getattr(view, "conflict_responses", {}).items():
            statuses[str(code)] = description
        if self.method in _WITH_BODY:
            statuses["413"] = "The body is larger than 64 KiB."
            statuses["415"] = "The body is not application/json."
        if getattr(view, "throttle_classes", ()):
            statuses["429"] = "Too many requests; retry after the Retry-After seconds."
        return statuses

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        for code, description in self._error_statuses().items():
            if code not in responses:
                response = self._get_response_for_code(ErrorSerializer, code, direction=direction)
                response["description"] = description
                responses[code] = response
        return responses

    def get_override_parameters(self):
        parameters = super().get_override_parameters()
        query_serializer = getattr(self.view, "query_serializer", None)
        if query_serializer is not None and self.method == "GET" and query_serializer().fields:
            parameters = [*parameters, query_serializer]
        return parameters


def refuse_unknown_fields(result, generator, request, public):
    """Post-processing hook: request bodies take no field beyond those listed, as the API
    enforces (an unknown field is a 400 naming it)."""
    for name, component in result.get("components", {}).get("schemas", {}).items():
        if name.endswith("Request") and component.get("type") == "object":
            component["additionalProperties"] = False
    return result
