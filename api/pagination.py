"""Pages for list endpoints: numbered pages for content, a cursor for incremental sync."""

from __future__ import annotations

from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.pagination import CursorPagination, PageNumberPagination

from api.errors import not_found

MAX_PAGE_SIZE = 200


def _from_one(parameters: list[dict]) -> list[dict]:
    """Page numbers and sizes start at 1: said in the schema, and enforced (validation.py)."""
    for parameter in parameters:
        if parameter["schema"].get("type") == "integer":
            parameter["schema"]["minimum"] = 1
    return parameters


class NumberedPages(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

    def get_schema_operation_parameters(self, view):
        return _from_one(super().get_schema_operation_parameters(view))


class SyncCursor(CursorPagination):
    """Ordered by last change: rows that change while a client pages move behind its cursor, so
    an incremental sync neither skips nor loses them."""

    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE
    ordering = ("updated_at", "id")

    def get_schema_operation_parameters(self, view):
        return _from_one(super().get_schema_operation_parameters(view))

    def decode_cursor(self, request):
        try:
            return super().decode_cursor(request)
        except exceptions.NotFound as exc:
            # 404 as DRF has it (a cursor is an address, not input to validate), but named.
            raise not_found(
                _("This cursor is not valid; start again from the first page."),
                field=self.cursor_query_param,
            ) from exc
