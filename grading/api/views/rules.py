"""A learner's rules at a quiz over HTTP: the quiz's own, or theirs when an instructor gave them
an accommodation (grading/accommodations.py decides; this only says it)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.response import Response

from api.errors import not_found
from api.scope import request_scope
from api.validation import query_params
from grading.accommodations import answers_release_at, learner_rules
from grading.api import selectors
from grading.api.serializers import LearnerRulesSerializer, RulesQuerySerializer


@extend_schema(
    tags=["attempts"],
    summary="The rules a learner is held to at a quiz",
    description="The quiz's time limit, attempt limit and closing time for this learner, with "
    "what an accommodation adds (extra minutes, extra attempts, a due date of their own). A "
    "signed-in learner gets their own; a key names the learner. Nobody else's are shown.",
)
class LearnerQuizRules(generics.GenericAPIView):
    serializer_class = LearnerRulesSerializer
    query_serializer = RulesQuerySerializer

    def get(self, request, slug: str):
        params = query_params(request, RulesQuerySerializer)
        scope = request_scope(request)
        quiz = selectors.quiz_to_start(scope=scope, slug=slug)
        if quiz is None:
            raise not_found(_("No quiz with that slug is available to you."))
        user = scope.learner_user(params.get("learner"))
        rules = learner_rules(quiz=quiz, user=user)
        body = {
            "quiz": quiz.slug,
            "time_limit_minutes": rules.time_limit_minutes,
            "extra_minutes": rules.extra_minutes,
            "attempts_allowed": rules.attempts_allowed,
            "extra_attempts": rules.extra_attempts,
            "opens_at": rules.opens_at,
            "closes_at": rules.closes_at,
            "own_due_date": rules.own_due_date,
            "answers_release_at": answers_release_at(quiz),
        }
        return Response(self.get_serializer(body).data)
