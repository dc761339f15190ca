"""Practice over HTTP: a fresh variant of a problem, a variant, the mastery streaks."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.response import Response

from api.errors import not_found
from api.scope import request_scope
from api.validation import paging_params, query_params
from grading.api import selectors
from grading.api.serializers import (
    StreakQuerySerializer,
    StreakSerializer,
    VariantCreateSerializer,
    VariantSerializer,
)
from grading.services.practice import practice_variant_new


def scoped_variant(request, variant_id: int):
    scope = request_scope(request)
    variant = selectors.practice_variants(scope=scope).filter(pk=variant_id).first()
    if variant is None:
        raise not_found(_("No practice variant with that id is available to you."))
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
            raise not_found(_("No problem with that slug is available to you."), field="problem")
        variant = practice_variant_new(user=user, problem=problem)
        return Response(
            VariantSerializer(scoped_variant(request, variant.pk)).data,
            status=status.HTTP_201_CREATED,
        )


@extend_schema(tags=["practice"], summary="A practice variant")
class VariantDetail(generics.GenericAPIView):
    serializer_class = VariantSerializer

    def get(self, request, variant_id: int):
        return Response(VariantSerializer(scoped_variant(request, variant_id)).data)


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
