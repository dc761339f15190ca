"""Answering over HTTP: an attempt's item or a practice variant, idempotent under a key.

A retry with the same Idempotency-Key gets the first result and records one try, so a client
that lost a reply can always send the answer again.
"""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, generics, status
from rest_framework.response import Response

from api.errors import not_found
from api.scope import request_scope
from grading import policy
from grading.accommodations import answers_release_at
from grading.api import selectors
from grading.api.serializers import (
    AnswerSerializer,
    PracticeAnswerSerializer,
    PracticeVerdictSerializer,
    VerdictSerializer,
)
from grading.api.views.attempts import ATTEMPT_REFUSALS
from grading.api.views.practice import scoped_variant
from grading.models import PracticeStreak
from grading.services.practice import practice_answer_submit
from grading.services.responses import response_submit

IDEMPOTENCY_HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
_IDEMPOTENCY_PARAMETER = OpenApiParameter(
    IDEMPOTENCY_HEADER,
    str,
    OpenApiParameter.HEADER,
    description="Any unique string up to 200 characters. A retry with the same key returns the "
    "first result (200) and records one try; the same key with a different answer is a 409.",
)


def _idempotency_key(request) -> str:
    key = request.headers.get(IDEMPOTENCY_HEADER, "")
    if len(key) > 200 or not key.isprintable() or not key.isascii():
        raise exceptions.ValidationError(
            {IDEMPOTENCY_HEADER: [_("Use at most 200 printable ASCII characters.")]}
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
    conflict_responses = ATTEMPT_REFUSALS

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
                raise not_found(_("No attempt with that id is available to you."))
            item = selectors.item_to_answer(attempt=attempt, item_id=item_id)
            if item is None:
                raise not_found(_("That item is not part of this attempt's quiz."))
        if item.problem_id and "text" not in answer:
            raise exceptions.ValidationError({"text": [_("This item is a problem: send text.")]})
        if item.question_id and "choices" not in answer:
            raise exceptions.ValidationError(
                {"choices": [_("This item is a question: send the ids of the choices picked.")]}
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
        shown = policy.attempt_visibility(
            attempt=attempt,
            now=answered_at,
            answers_release_at=answers_release_at(attempt.quiz),
        )
        return _answered(VerdictSerializer(response, context={"shown": shown}))


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
    conflict_responses = {
        409: "code idempotency_conflict: this key was used for another answer; "
        "solution_revealed: the learner saw this variant's worked solution, so it takes no "
        "more answers."
    }

    def post(self, request, variant_id: int):
        idempotency_key = _idempotency_key(request)
        body = PracticeAnswerSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        variant = scoped_variant(request, variant_id)
        response = practice_answer_submit(
            user=variant.user,
            variant=variant,
            text=body.validated_data["text"],
            idempotency_key=idempotency_key,
        )
        streak = PracticeStreak.objects.filter(user=variant.user, problem=variant.problem).first()
        context = {"shown": policy.PRACTICE, "streak": streak}
        return _answered(PracticeVerdictSerializer(response, context=context))
