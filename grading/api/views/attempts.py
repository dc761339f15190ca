"""An attempt over HTTP: list, start or resume, read it and its items, submit, its result."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.response import Response

from api.errors import DomainError, not_found
from api.pagination import SyncCursor
from api.scope import request_scope
from api.validation import paging_params, query_params
from grading import policy
from grading import selectors as sheets
from grading.accommodations import answers_release_at
from grading.api import selectors
from grading.api.serializers import (
    AttemptItemSerializer,
    AttemptQuerySerializer,
    AttemptSerializer,
    AttemptStartSerializer,
    ResultSerializer,
)
from grading.models import Attempt
from grading.services.attempts import attempt_start_or_resume
from grading.services.closing import attempt_expire_if_overdue, attempt_submit
from grading.services.overdue import overdue_attempts_close

ATTEMPT_REFUSALS = {
    409: "Refused by the quiz rules: code is quiz_not_open, attempt_limit_reached, "
    "attempt_closed, no_tries_left or idempotency_conflict.",
}
START_REFUSALS = {
    409: ATTEMPT_REFUSALS[409].removesuffix(".")
    + "; preview_on_page when the caller teaches the quiz's course (what they start is a "
    "preview, taken on the quiz's page).",
}
PREVIEW_ON_PAGE = gettext_lazy(
    "You teach this quiz's course, so what you start is a preview that counts nowhere. "
    "Previews are taken on the quiz's page, never through the API; yours is waiting there."
)


def _attempt_context() -> dict:
    """What AttemptSerializer needs to ask grading.policy: the time of this request."""
    return {"now": timezone.now()}


def _scoped_attempt(request, attempt_id: int) -> Attempt:
    attempt = selectors.attempts(scope=request_scope(request)).filter(pk=attempt_id).first()
    if attempt is None:
        raise not_found(_("No attempt with that id is available to you."))
    # Time may have run out since the last request: close it and grade what was saved.
    attempt_expire_if_overdue(attempt=attempt)
    return attempt


@extend_schema(tags=["attempts"])
class AttemptList(generics.ListAPIView):
    serializer_class = AttemptSerializer
    query_serializer = AttemptQuerySerializer
    pagination_class = SyncCursor
    conflict_responses = START_REFUSALS

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
        # None of them is listed as open once its time ran out (grading/services/overdue.py).
        overdue_attempts_close(among=selectors.attempts(scope=request_scope(request)))
        return self.list(request)

    @extend_schema(
        summary="Start an attempt (or resume the one in progress)",
        description="Enforces the quiz's availability window and attempt limit. 201 for a new "
        "attempt, 200 when the learner's attempt in progress is resumed. Someone who teaches the "
        "quiz's course never starts a counted attempt: theirs is a preview, taken on the quiz's "
        "page (409 preview_on_page).",
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
            raise not_found(_("No quiz with that slug is available to you."), field="quiz")
        started = attempt_start_or_resume(user=user, quiz=quiz)
        if started.attempt.preview:
            # The start made it a preview (attempt_start_or_resume decides who): previews are
            # a page of their own and never in the API, so it is not answered here.
            raise DomainError(str(PREVIEW_ON_PAGE), code="preview_on_page", status_code=409)
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
        shown = policy.attempt_visibility(
            attempt=attempt,
            now=timezone.now(),
            answers_release_at=answers_release_at(attempt.quiz),
        )
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


def _picked(row: sheets.ItemRow, response) -> list[int]:
    """The ids of the choices a response picked, in the order the attempt shows them."""
    if response is None:
        return []
    picked = {choice.pk for choice in response.choices.all()}
    return [choice.pk for choice in row.choices if choice.pk in picked]


def _result(attempt: Attempt, *, now: datetime) -> dict:
    shown = policy.attempt_visibility(
        attempt=attempt, now=now, answers_release_at=answers_release_at(attempt.quiz)
    )
    items = []
    for row in sheets.attempt_sheet(attempt=attempt):
        item = row.item
        # The response whose score counts: the best try, or the latest saved answer in an exam.
        counting = row.counting
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
    conflict_responses = ATTEMPT_REFUSALS

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
