"""Attempts, answers, practice and grades over HTTP: each view parses, calls one service or
selector, and renders. Grading and the quiz rules live in grading.services, shared with the pages.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from datetime import datetime

from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, generics, status
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response

from api.errors import not_found
from api.pagination import SyncCursor
from api.scope import request_scope
from api.validation import paging_params, query_params
from grading import policy, scores
from grading import selectors as sheets
from grading.api import selectors
from grading.api.serializers import (
    AnswerSerializer,
    AttemptItemSerializer,
    AttemptQuerySerializer,
    AttemptSerializer,
    AttemptStartSerializer,
    GradeQuerySerializer,
    GradeSerializer,
    PracticeAnswerSerializer,
    PracticeVerdictSerializer,
    ResultSerializer,
    StreakQuerySerializer,
    StreakSerializer,
    VariantCreateSerializer,
    VariantSerializer,
    VerdictSerializer,
)
from grading.models import Attempt, PracticeStreak
from grading.services.attempts import (
    attempt_expire_if_overdue,
    attempt_start_or_resume,
    attempt_submit,
)
from grading.services.practice import practice_answer_submit, practice_variant_new
from grading.services.responses import response_submit
from integrations.api.scope import ApiKeyRequired

IDEMPOTENCY_HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
_IDEMPOTENCY_PARAMETER = OpenApiParameter(
    IDEMPOTENCY_HEADER,
    str,
    OpenApiParameter.HEADER,
    description="Any unique string up to 200 characters. A retry with the same key returns the "
    "first result (200) and records one try; the same key with a different answer is a 409.",
)
_ATTEMPT_REFUSALS = {
    409: "Refused by the quiz rules: code is quiz_not_open, attempt_limit_reached, "
    "attempt_closed, no_tries_left or idempotency_conflict.",
}


def _idempotency_key(request) -> str:
    key = request.headers.get(IDEMPOTENCY_HEADER, "")
    if len(key) > 200 or not key.isprintable() or not key.isascii():
        raise exceptions.ValidationError(
            {IDEMPOTENCY_HEADER: ["Use at most 200 printable ASCII characters."]}
        )
    return key


def _answered(serializer) -> Response:
    """201 for a new answer; 200 and Idempotent-Replayed when a retry got the first result (the
    service says which: of simultaneous twins under one key, only the one that wrote it is new)."""
    replayed = serializer.instance.replayed
    return Response(
        serializer.data,
        status=status.HTTP_200_OK if replayed else status.HTTP_201_CREATED,
        headers={REPLAYED_HEADER: "true"} if replayed else {},
    )


def _attempt_context() -> dict:
    """What AttemptSerializer needs to ask grading.policy: the time of this request."""
    return {"now": timezone.now()}


def _scoped_attempt(request, attempt_id: int) -> Attempt:
    attempt = selectors.attempts(scope=request_scope(request)).filter(pk=attempt_id).first()
    if attempt is None:
        raise not_found("No attempt with that id is available to you.")
    # Time may have run out since the last request: close it and grade what was saved.
    attempt_expire_if_overdue(attempt=attempt)
    return attempt


# --- attempts ---------------------------------------------------------------------------------


@extend_schema(tags=["attempts"])
class AttemptList(generics.ListAPIView):
    serializer_class = AttemptSerializer
    query_serializer = AttemptQuerySerializer
    pagination_class = SyncCursor
    conflict_responses = _ATTEMPT_REFUSALS

    def get_queryset(self):
        return selectors.attempts(scope=request_scope(self.request))

    def get_serializer_context(self):
        return {**super().get_serializer_context(), **_attempt_context()}

    def filter_queryset(self, queryset):
        params = query_params(self.request, AttemptQuerySerializer, paging_params(self))
        rows = request_scope(self.request).learner_filter(queryset, params.get("learner"))
        if params.get("quiz"):
            rows = rows.filter(quiz__slug=params["quiz"])
        if params.get("status"):
            rows = rows.filter(status=params["status"])
        if params.get("updated_since"):
            rows = rows.filter(updated_at__gte=params["updated_since"])
        return rows

    @extend_schema(summary="List attempts, least recently changed first")
    def get(self, request):
        return self.list(request)

    @extend_schema(
        summary="Start an attempt (or resume the one in progress)",
        description="Enforces the quiz's availability window and attempt limit. 201 for a new "
        "attempt, 200 when the learner's attempt in progress is resumed.",
        request=AttemptStartSerializer,
        responses={
            201: OpenApiResponse(AttemptSerializer, description="Started."),
            200: OpenApiResponse(AttemptSerializer, description="Resumed."),
        },
    )
    def post(self, request):
        body = AttemptStartSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        scope = request_scope(request)
        user = scope.learner_user(body.validated_data.get("learner"))
        quiz = selectors.quiz_to_start(scope=scope, slug=body.validated_data["quiz"])
        if quiz is None:
            raise not_found("No quiz with that slug is available to you.", field="quiz")
        started = attempt_start_or_resume(user=user, quiz=quiz)
        attempt = selectors.attempts(scope=scope).get(pk=started.attempt.pk)
        return Response(
            self.get_serializer(attempt).data,
            status=status.HTTP_201_CREATED if started.created else status.HTTP_200_OK,
        )


@extend_schema(tags=["attempts"], summary="An attempt")
class AttemptDetail(generics.GenericAPIView):
    serializer_class = AttemptSerializer

    def get_serializer_context(self):
        return {**super().get_serializer_context(), **_attempt_context()}

    def get(self, request, attempt_id: int):
        return Response(self.get_serializer(_scoped_attempt(request, attempt_id)).data)


@extend_schema(
    tags=["attempts"],
    summary="The attempt's items: prompts, choices, givens and tries",
    responses=AttemptItemSerializer(many=True),
)
class AttemptItems(generics.GenericAPIView):
    serializer_class = AttemptItemSerializer
    pagination_class = None

    def get(self, request, attempt_id: int):
        attempt = _scoped_attempt(request, attempt_id)
        shown = policy.attempt_visibility(attempt=attempt, now=timezone.now())
        items = []
        for row in sheets.attempt_sheet(attempt=attempt):
            item = row.item
            if item.question_id:
                prompt = item.question.prompt
                choices = [
                    {"id": c.pk, "text": c.text, "text_html": selectors.markup_html(c.text)}
                    for c in row.choices
                ]
                givens = shape = None
            else:
                prompt = selectors.variant_prompt(variant=row.variant, problem=item.problem)
                choices = []
                givens = row.variant.givens
                shape = selectors.variant_answer_shape(variant=row.variant)
            saved = row.latest_counted  # the answer that counts so far (an exam's latest)
            items.append(
                {
                    "id": item.pk,
                    "number": row.number,
                    "points": item.points,
                    "kind": "question" if item.question_id else "problem",
                    "question_kind": item.question.kind if item.question_id else None,
                    "title": None if item.question_id else item.problem.title,
                    "prompt": prompt,
                    "prompt_html": selectors.markup_html(prompt),
                    "choices": choices,
                    "givens": givens,
                    "answer_shape": shape,
                    "tries_used": row.tries_used,
                    "tries_left": row.tries_left,
                    "saved": saved,
                }
            )
        context = {"shown": shown}
        return Response(AttemptItemSerializer(items, many=True, context=context).data)


@extend_schema(
    tags=["attempts"],
    summary="Answer one item",
    description="With immediate feedback the verdict comes back at once and each graded answer "
    "is a try. In an exam the answer is saved (status `recorded`), the latest counts, and it is "
    "graded when the attempt is submitted. Invalid input (unreadable, wrong shape) always gets "
    "the reader's message and costs no try.",
    request=AnswerSerializer,
    parameters=[_IDEMPOTENCY_PARAMETER],
    responses={
        201: OpenApiResponse(VerdictSerializer, description="Recorded."),
        200: OpenApiResponse(VerdictSerializer, description="A retry: the first result."),
    },
)
class ItemAnswer(generics.GenericAPIView):
    serializer_class = VerdictSerializer
    conflict_responses = _ATTEMPT_REFUSALS

    def post(self, request, attempt_id: int, item_id: int):
        idempotency_key = _idempotency_key(request)
        body = AnswerSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        answer = body.validated_data
        scope = request_scope(request)
        # A problem item (the common case) comes with its attempt in one query; a question
        # item, or an attempt out of reach, takes the two reads that tell which 404 it is.
        variant = selectors.variant_to_answer(scope=scope, attempt_id=attempt_id, item_id=item_id)
        if variant is not None:
            attempt, item = variant.attempt, variant.quiz_item
        else:
            attempt = selectors.attempt_to_answer(scope=scope, attempt_id=attempt_id)
            if attempt is None:
                raise not_found("No attempt with that id is available to you.")
            item = selectors.item_to_answer(attempt=attempt, item_id=item_id)
            if item is None:
                raise not_found("That item is not part of this attempt's quiz.")
        if item.problem_id and "text" not in answer:
            raise exceptions.ValidationError({"text": ["This item is a problem: send text."]})
        if item.question_id and "choices" not in answer:
            raise exceptions.ValidationError(
                {"choices": ["This item is a question: send the ids of the choices picked."]}
            )
        answered_at = timezone.now()
        response = response_submit(
            attempt=attempt,
            item=item,
            text=answer.get("text", ""),
            choice_ids=answer.get("choices", ()),
            idempotency_key=idempotency_key,
            now=answered_at,
            variant=variant,
        )
        shown = policy.attempt_visibility(attempt=attempt, now=answered_at)
        return _answered(VerdictSerializer(response, context={"shown": shown}))


def _picked(row: sheets.ItemRow, response) -> list[int]:
    """The ids of the choices a response picked, in the order the attempt shows them."""
    if response is None:
        return []
    picked = {choice.pk for choice in response.choices.all()}
    return [choice.pk for choice in row.choices if choice.pk in picked]


def _result(attempt: Attempt, *, now: datetime) -> dict:
    shown = policy.attempt_visibility(attempt=attempt, now=now)
    immediate = policy.immediate_feedback(attempt.quiz)
    items = []
    for row in sheets.attempt_sheet(attempt=attempt):
        item = row.item
        counted = row.counted
        # The response whose score counts: the best try, or the latest saved answer in an exam.
        counting = scores.counting_try(immediate=immediate, tries=counted)
        if counting is None:
            shown_status = "unanswered"
        elif shown.verdicts:
            shown_status = counting.status
        else:
            shown_status = "recorded"
        question = item.question if item.question_id else None
        items.append(
            {
                "id": item.pk,
                "number": row.number,
                "points": item.points,
                "kind": "question" if question else "problem",
                "status": shown_status,
                "points_earned": (row.score or 0.0) * item.points if shown.item_scores else None,
                "misconception": (counting.misconception or None)
                if shown.feedback and counting
                else None,
                "feedback": counting.feedback if shown.feedback and counting else None,
                "text": counting.text if counting and not question else None,
                "choices": _picked(row, counting),
                "correct_answer": selectors.variant_answer_text(variant=row.variant)
                if shown.correct_answers and not question
                else None,
                "correct_choices": [c.pk for c in row.choices if c.is_correct]
                if shown.correct_answers and question
                else None,
                "explanation": (question.explanation or None)
                if shown.explanations and question
                else None,
            }
        )
    return {
        "attempt": attempt,
        "feedback_released": shown.verdicts,
        "answers_released": shown.correct_answers,
        "items": items,
    }


@extend_schema(tags=["attempts"], summary="Submit the attempt and get its result")
class AttemptSubmit(generics.GenericAPIView):
    serializer_class = ResultSerializer
    conflict_responses = _ATTEMPT_REFUSALS

    @extend_schema(
        request=None,
        responses=ResultSerializer,
        description="Grades the saved answers. Past the deadline the submission is refused "
        "(409 attempt_closed) and the answers saved before the deadline are graded. Submitting "
        "a submitted attempt again returns its result.",
    )
    def post(self, request, attempt_id: int):
        attempt = _scoped_attempt(request, attempt_id)
        attempt = attempt_submit(attempt=attempt)
        context = _attempt_context()
        result = _result(attempt, now=context["now"])
        return Response(ResultSerializer(result, context=context).data)


@extend_schema(
    tags=["attempts"],
    summary="The attempt's result, as far as the policy releases it",
    responses=ResultSerializer,
)
class AttemptResult(generics.GenericAPIView):
    serializer_class = ResultSerializer

    def get(self, request, attempt_id: int):
        attempt = _scoped_attempt(request, attempt_id)
        context = _attempt_context()
        result = _result(attempt, now=context["now"])
        return Response(ResultSerializer(result, context=context).data)


# --- practice ---------------------------------------------------------------------------------


def _scoped_variant(request, variant_id: int):
    scope = request_scope(request)
    variant = selectors.practice_variants(scope=scope).filter(pk=variant_id).first()
    if variant is None:
        raise not_found("No practice variant with that id is available to you.")
    return variant


@extend_schema(
    tags=["practice"],
    summary="A fresh variant of a problem for a learner",
    request=VariantCreateSerializer,
    responses={201: VariantSerializer},
)
class VariantCreate(generics.GenericAPIView):
    serializer_class = VariantSerializer

    def post(self, request):
        body = VariantCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        scope = request_scope(request)
        user = scope.learner_user(body.validated_data.get("learner"))
        problem = selectors.problem_to_practise(scope=scope, slug=body.validated_data["problem"])
        if problem is None:
            raise not_found("No problem with that slug is available to you.", field="problem")
        variant = practice_variant_new(user=user, problem=problem)
        return Response(
            VariantSerializer(_scoped_variant(request, variant.pk)).data,
            status=status.HTTP_201_CREATED,
        )


@extend_schema(tags=["practice"], summary="A practice variant")
class VariantDetail(generics.GenericAPIView):
    serializer_class = VariantSerializer

    def get(self, request, variant_id: int):
        return Response(VariantSerializer(_scoped_variant(request, variant_id)).data)


@extend_schema(
    tags=["practice"],
    summary="Answer a practice variant",
    description="The verdict at once, and the learner's mastery streak for the problem (three "
    "first-try correct answers in a row on fresh variants). Invalid input costs no try.",
    request=PracticeAnswerSerializer,
    parameters=[_IDEMPOTENCY_PARAMETER],
    responses={
        201: OpenApiResponse(PracticeVerdictSerializer, description="Graded."),
        200: OpenApiResponse(PracticeVerdictSerializer, description="A retry: the first result."),
    },
)
class VariantAnswer(generics.GenericAPIView):
    serializer_class = PracticeVerdictSerializer
    conflict_responses = {409: "code idempotency_conflict: this key was used for another answer."}

    def post(self, request, variant_id: int):
        idempotency_key = _idempotency_key(request)
        body = PracticeAnswerSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        variant = _scoped_variant(request, variant_id)
        response = practice_answer_submit(
            user=variant.user,
            variant=variant,
            text=body.validated_data["text"],
            idempotency_key=idempotency_key,
        )
        streak = PracticeStreak.objects.filter(user=variant.user, problem=variant.problem).first()
        context = {"shown": policy.PRACTICE, "streak": streak}
        return _answered(PracticeVerdictSerializer(response, context=context))


@extend_schema(tags=["practice"], summary="Mastery streaks per learner and problem")
class StreakList(generics.ListAPIView):
    serializer_class = StreakSerializer
    query_serializer = StreakQuerySerializer

    def get_queryset(self):
        return selectors.streaks(scope=request_scope(self.request))

    def filter_queryset(self, queryset):
        params = query_params(self.request, StreakQuerySerializer, paging_params(self))
        rows = request_scope(self.request).learner_filter(queryset, params.get("learner"))
        if params.get("problem"):
            rows = rows.filter(problem__slug=params["problem"])
        if params.get("course"):
            rows = rows.filter(problem__lesson__course__slug=params["course"])
        return rows


# --- grades -----------------------------------------------------------------------------------


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
