"""Quiz statistics for LMS dashboards: Moodle's quiz and item statistics with each item's
response counts, as JSON or the item rows as CSV, for a quiz of the API key's courses."""

from __future__ import annotations

from django.http import StreamingHttpResponse
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.response import Response

from api.errors import not_found
from api.renderers import CsvEndpoint
from api.scope import request_scope
from api.validation import query_params
from courses.models import Quiz
from grading.services.overdue import overdue_attempts_close
from integrations.api.scope import ApiKeyRequired
from teaching.api.serializers import QuizStatisticsSerializer, StatisticsQuerySerializer
from teaching.results.reads import AttemptRule
from teaching.statistics.data import QuizData, quiz_data
from teaching.statistics.export import statistics_csv_lines, statistics_document

DESCRIPTION = (
    "Submitted attempts only: each learner's first by default (`attempts=first`), or every "
    "submitted attempt (`attempts=all`). Every figure is a fraction of the maximum (0 to 1), "
    "null where it is undefined (fewer than two attempts, totals or item scores that do not "
    "vary); items come in quiz order. docs/statistics.md defines each figure."
)


class _QuizStatistics(generics.GenericAPIView):
    permission_classes = [ApiKeyRequired]
    pagination_class = None
    query_serializer = StatisticsQuerySerializer

    def statistics(self, request, slug: str, paging: tuple[str, ...] = ()) -> QuizData:
        params = query_params(request, StatisticsQuerySerializer, paging)
        quizzes = request_scope(request).courses(
            Quiz.objects.select_related("lesson__course"), "lesson__course"
        )
        quiz = quizzes.filter(slug=slug).first()
        if quiz is None:
            raise not_found(gettext("No quiz with that slug is available to you."))
        # Statistics count submitted attempts: one whose time ran out is closed first.
        overdue_attempts_close(quiz=quiz)
        return quiz_data(quiz=quiz, rule=AttemptRule(params["attempts"]))


@extend_schema(
    tags=["statistics"],
    summary="A quiz's statistics: Moodle's quiz and item figures with response counts",
    description=DESCRIPTION,
)
class QuizStatistics(_QuizStatistics):
    serializer_class = QuizStatisticsSerializer

    def get(self, request, slug: str):
        document = statistics_document(self.statistics(request, slug))
        return Response(QuizStatisticsSerializer(document).data)


@extend_schema(
    tags=["statistics"],
    summary="The same item rows as CSV",
    description=f"{DESCRIPTION} One line per item; a question's choices, misconceptions and "
    "diagnoses as `id=count; …` cells.",
    responses={(200, "text/csv"): OpenApiTypes.STR},
)
class QuizStatisticsCsv(CsvEndpoint, _QuizStatistics):
    def get(self, request, slug: str):
        # `format` picks the CSV renderer (?format=csv), as an Accept header would.
        data = self.statistics(request, slug, paging=("format",))
        lines = statistics_csv_lines(data)
        response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
        filename = f"softgrade-{data.quiz.slug}-statistics-{data.rule.value}.csv"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response
