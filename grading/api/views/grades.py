"""Grades over HTTP: one row per learner and quiz, as JSON pages or one CSV file."""

from __future__ import annotations

import csv
from collections.abc import Iterator

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.renderers import BaseRenderer, JSONRenderer

from api.pagination import SyncCursor
from api.scope import request_scope
from api.validation import paging_params, query_params
from grading.api import selectors
from grading.api.serializers import GradeQuerySerializer, GradeSerializer
from integrations.api.scope import ApiKeyRequired


class GradeCursor(SyncCursor):
    ordering = ("changed_at", "user_id", "quiz_id")


def _grade_rows(request, paging=()):
    params = query_params(request, GradeQuerySerializer, paging)
    scope = request_scope(request)
    rows = selectors.grades(scope=scope, since=params.get("updated_since"))
    rows = scope.learner_filter(rows, params.get("learner"))
    if params.get("quiz"):
        rows = rows.filter(quiz__slug=params["quiz"])
    if params.get("course"):
        rows = rows.filter(quiz__lesson__course__slug=params["course"])
    return rows


@extend_schema(
    tags=["grades"],
    summary="Grades per learner and quiz, least recently changed first",
    description="One row per learner and quiz: the best submitted attempt's score. For an "
    "incremental sync pass `updated_since` (the largest `updated_at` you stored) and follow "
    "`next` until it is null.",
)
class GradeList(generics.ListAPIView):
    permission_classes = [ApiKeyRequired]
    serializer_class = GradeSerializer
    query_serializer = GradeQuerySerializer
    pagination_class = GradeCursor

    def get_queryset(self):
        return _grade_rows(self.request, paging_params(self))


class CsvRenderer(BaseRenderer):
    media_type = "text/csv"
    format = "csv"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return data


CSV_COLUMNS = [
    "learner",
    "learner_name",
    "learner_email",
    "course",
    "quiz",
    "quiz_title",
    "attempts",
    "submitted_attempts",
    "score",
    "max_score",
    "last_submitted_at",
    "updated_at",
]


class _Line:
    """A file-like sink for csv.writer that hands back each line it is given."""

    def write(self, line: str) -> str:
        return line


def _spreadsheet_safe(value):
    # A cell starting with = + - @ is a formula to a spreadsheet: names come from integrations.
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return f"'{value}"
    return "" if value is None else value


def _csv_lines(rows) -> Iterator[str]:
    writer = csv.writer(_Line())
    yield writer.writerow(CSV_COLUMNS)
    for row in rows.order_by("changed_at", "user_id", "quiz_id").iterator(chunk_size=1000):
        grade = GradeSerializer(row).data
        yield writer.writerow([_spreadsheet_safe(grade[column]) for column in CSV_COLUMNS])


@extend_schema(
    tags=["grades"],
    summary="The same grades as CSV, every matching row in one file",
    responses={(200, "text/csv"): OpenApiTypes.STR},
)
class GradeCsv(generics.GenericAPIView):
    permission_classes = [ApiKeyRequired]
    renderer_classes = [JSONRenderer, CsvRenderer]
    pagination_class = None
    query_serializer = GradeQuerySerializer

    def handle_exception(self, exc):
        # Errors are JSON in the one error shape, even when the client asked for CSV.
        self.request.accepted_renderer = JSONRenderer()
        self.request.accepted_media_type = JSONRenderer.media_type
        return super().handle_exception(exc)

    def get(self, request):
        # `format` picks this renderer (?format=csv), as an Accept header would.
        rows = _grade_rows(request, paging=("format",))
        response = StreamingHttpResponse(_csv_lines(rows), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="softgrade-grades.csv"'
        return response
