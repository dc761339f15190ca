"""Grades over HTTP for an API key: one row per learner and quiz of the key's courses, every
learner whatever their origin, as JSON pages or one CSV file, with the instructor gradebook's
numbers (teaching.results.grades)."""

from __future__ import annotations

from collections.abc import Iterator

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import generics

from api.pagination import SyncCursor
from api.renderers import CsvEndpoint
from api.scope import request_scope
from api.validation import paging_params, query_params
from grading.models import Attempt
from grading.services.overdue import overdue_attempts_close
from integrations.api.scope import ApiKeyRequired
from teaching.api.grade_rows import grade_index, grade_rows
from teaching.api.grade_serializers import GradeQuerySerializer, GradeSerializer
from teaching.results.gradebook import line_writer, spreadsheet_safe
from teaching.results.reads import AttemptRule

ORDERING = ("changed_at", "user_id", "quiz_id")

DESCRIPTION = (
    "One row per learner and quiz of the key's courses, for every learner with an attempt "
    "whichever way they came (signed up on the site, provisioned through the API, sent by an "
    "LMS through LTI): the score of the submitted attempt `attempts` counts (first, best or "
    "last; the quiz's default, best, when left out), the numbers of the instructor's gradebook "
    "CSV. `learner` (your external_id) and `lms_subject` are given only for learners your "
    "integration provisioned or your LMS launched; `learner_id` identifies every learner. For "
    "an incremental sync pass `updated_since` (the largest `updated_at` you stored) and follow "
    "`next` until it is null."
)


class GradeCursor(SyncCursor):
    ordering = ORDERING


def _grades(request, paging: tuple[str, ...]):
    """The pairs the request asks for, and the rule to count (None: each quiz's default)."""
    params = query_params(request, GradeQuerySerializer, paging)
    # A grade is never missing for an attempt whose time ran out (grading/services/overdue.py).
    overdue_attempts_close(
        among=request_scope(request).courses(Attempt.objects.all(), "quiz__lesson__course")
    )
    index = grade_index(
        scope=request_scope(request),
        since=params.get("updated_since"),
        quiz=params.get("quiz"),
        course=params.get("course"),
        external_id=params.get("learner"),
    )
    rule = AttemptRule(params["attempts"]) if params.get("attempts") else None
    return index, rule


@extend_schema(
    tags=["grades"],
    summary="Grades per learner and quiz, least recently changed first",
    description=DESCRIPTION,
)
class GradeList(generics.ListAPIView):
    permission_classes = [ApiKeyRequired]
    serializer_class = GradeSerializer
    query_serializer = GradeQuerySerializer
    pagination_class = GradeCursor

    def list(self, request, *args, **kwargs):
        index, rule = _grades(request, paging_params(self))
        page = self.paginate_queryset(index)
        rows = grade_rows(pairs=page, key=request.auth, rule=rule)
        return self.get_paginated_response(GradeSerializer(rows, many=True).data)


CSV_COLUMNS = list(GradeSerializer().fields)

CHUNK = 1000  # pairs per read: a fixed few queries per thousand rows, never one per learner


def _csv_lines(index, key, rule: AttemptRule | None) -> Iterator[str]:
    writer = line_writer()
    yield writer.writerow(CSV_COLUMNS)
    pairs = list(index.order_by(*ORDERING))
    for start in range(0, len(pairs), CHUNK):
        rows = grade_rows(pairs=pairs[start : start + CHUNK], key=key, rule=rule)
        for grade in GradeSerializer(rows, many=True).data:
            yield writer.writerow([spreadsheet_safe(grade[column]) for column in CSV_COLUMNS])


@extend_schema(
    tags=["grades"],
    summary="The same grades as CSV, every matching row in one file",
    description=DESCRIPTION,
    responses={(200, "text/csv"): OpenApiTypes.STR},
)
class GradeCsv(CsvEndpoint, generics.GenericAPIView):
    permission_classes = [ApiKeyRequired]
    pagination_class = None
    query_serializer = GradeQuerySerializer

    def get(self, request):
        # `format` picks the CSV renderer (?format=csv), as an Accept header would.
        index, rule = _grades(request, paging=("format",))
        lines = _csv_lines(index, request.auth, rule)
        response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="softgrade-grades.csv"'
        return response
