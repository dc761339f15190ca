"""Pages for list endpoints: numbered pages for content, a cursor for incremental sync."""

from __future__ import annotations

from rest_framework import exceptions
from rest_framework.pagination import CursorPagination, PageNumberPagination

MAX_PAGE_SIZE = 200


class NumberedPages(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE


class SyncCursor(CursorPagination):
    """Ordered by last change: rows that change while a client pages move behind its cursor, so
    an incremental sync neither skips nor loses them."""

    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE
    ordering = ("updated_at", "id")

    def decode_cursor(self, request):
        try:
            return super().decode_cursor(request)
        except exceptions.NotFound as exc:
            raise exceptions.ValidationError(
                {self.cursor_query_param: ["This cursor is not valid; start from the first page."]}
            ) from exc
