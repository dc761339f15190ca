"""A practice variant's worked solution over HTTP: reveal it, read it again.

Before grading.policy allows it the solution is never sent: a 409 says why (no wrong try yet, the
variant solved, or a give-up not confirmed).
"""

from __future__ import annotations

from django.utils.translation import ngettext
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from api.times import UtcDateTimeField
from api.validation import StrictSerializer
from grading.api.selectors import markup_html
from grading.api.views.practice import scoped_variant
from grading.models import SolutionReveal
from grading.services.errors import SolutionNotAvailable
from grading.services.solutions import (
    practice_solution_state,
    solution_reveal,
    variant_solution_steps,
)

SOLUTION_REFUSALS = {
    409: "code solution_not_available: not yet (no wrong try on the variant, the variant is "
    "solved, or give_up was not sent before solution_after_tries wrong tries); "
    "practice_refused: practice on the problem is paused or exam-only."
}


class RevealSerializer(StrictSerializer):
    give_up = serializers.BooleanField(
        default=False,
        help_text="true: the learner gives up on these numbers. Needed from the first wrong "
        "try until the problem's solution_after_tries wrong tries; not needed after them.",
    )


class StepSerializer(serializers.Serializer):
    text = serializers.CharField(help_text="Markdown; math in $…$ (LaTeX).")
    html = serializers.CharField(allow_null=True, help_text="The step as HTML with MathML.")


class NextVariantSerializer(serializers.Serializer):
    problem = serializers.SlugField(help_text='POST {"problem": this} to /api/v1/variants/.')


class SolutionSerializer(serializers.Serializer):
    variant = serializers.IntegerField(source="variant_id")
    problem = serializers.SlugField(source="variant.problem.slug")
    steps = serializers.SerializerMethodField(help_text="In order, with the variant's numbers.")
    revealed_at = UtcDateTimeField()
    gave_up_early = serializers.BooleanField(
        help_text="Revealed on the learner's request, before solution_after_tries wrong tries."
    )
    next = serializers.SerializerMethodField(
        help_text="The variant takes no more answers: POST this body to /api/v1/variants/ for "
        "new numbers."
    )

    @staticmethod
    def _steps(reveal: SolutionReveal) -> list[dict]:
        return [
            {"text": step, "html": markup_html(step)}
            for step in variant_solution_steps(variant=reveal.variant)
        ]

    @extend_schema_field(StepSerializer(many=True))
    def get_steps(self, reveal: SolutionReveal) -> list[dict]:
        return StepSerializer(self._steps(reveal), many=True).data

    @extend_schema_field(NextVariantSerializer)
    def get_next(self, reveal: SolutionReveal) -> dict:
        return {"problem": reveal.variant.problem.slug}


@extend_schema(tags=["practice"])
class VariantSolution(GenericAPIView):
    serializer_class = SolutionSerializer
    conflict_responses = SOLUTION_REFUSALS

    @extend_schema(
        summary="Reveal a practice variant's worked solution",
        description="Offered after the problem's solution_after_tries wrong tries on the "
        "variant; from the first wrong try with give_up: true. Revealing is recorded, ends the "
        "learner's streak on the problem, and the variant takes no more answers (answering it "
        "is a 409 solution_revealed). Asking again returns the same solution (200).",
        request=RevealSerializer,
        responses={
            201: OpenApiResponse(SolutionSerializer, description="Revealed now."),
            200: OpenApiResponse(SolutionSerializer, description="Revealed before."),
        },
    )
    def post(self, request, variant_id: int):
        body = RevealSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        variant = scoped_variant(request, variant_id)
        reveal, made = solution_reveal(
            user=variant.user, variant=variant, give_up=body.validated_data["give_up"]
        )
        return Response(
            SolutionSerializer(reveal).data,
            status=status.HTTP_201_CREATED if made else status.HTTP_200_OK,
        )

    @extend_schema(
        summary="A revealed worked solution",
        description="Only once revealed (POST); before that a 409 solution_not_available.",
        responses={200: SolutionSerializer},
    )
    def get(self, request, variant_id: int):
        variant = scoped_variant(request, variant_id)
        state = practice_solution_state(variant=variant)
        if state.reveal is None:
            # The stage is a code (offered, locked…): named as it is in every language.
            raise SolutionNotAvailable(
                ngettext(
                    "This variant's solution has not been revealed: POST to this address to "
                    "reveal it (its standing now: %(stage)s, %(count)s wrong try of %(after)s).",
                    "This variant's solution has not been revealed: POST to this address to "
                    "reveal it (its standing now: %(stage)s, %(count)s wrong tries of %(after)s).",
                    state.wrong_tries,
                )
                % {"stage": state.stage, "count": state.wrong_tries, "after": state.after_tries}
            )
        return Response(SolutionSerializer(state.reveal).data)
