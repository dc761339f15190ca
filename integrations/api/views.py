"""Learner provisioning: an integration creates or looks up its learners by its own ids."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.response import Response

from api.errors import not_found
from api.validation import paging_params, query_params
from integrations import services
from integrations.api.scope import ApiKeyRequired
from integrations.api.serializers import (
    LearnerChangeSerializer,
    LearnerProvisionSerializer,
    LearnerQuerySerializer,
    LearnerSerializer,
)
from integrations.models import Learner


class LearnerList(generics.ListAPIView):
    permission_classes = [ApiKeyRequired]
    serializer_class = LearnerSerializer
    query_serializer = LearnerQuerySerializer

    def get_queryset(self):
        return Learner.objects.filter(integration_id=self.request.auth.integration_id).order_by(
            "external_id"
        )

    def filter_queryset(self, queryset):
        params = query_params(self.request, LearnerQuerySerializer, paging_params(self))
        if params.get("external_id"):
            queryset = queryset.filter(external_id=params["external_id"])
        return queryset

    @extend_schema(summary="List the integration's learners", tags=["learners"])
    def get(self, request):
        return self.list(request)

    @extend_schema(
        summary="Provision a learner",
        description=(
            "Creates the learner, or finds the one with this external_id and updates the name "
            "and email given. 201 when created, 200 when the learner already existed."
        ),
        tags=["learners"],
        request=LearnerProvisionSerializer,
        responses={
            201: OpenApiResponse(LearnerSerializer, description="Created."),
            200: OpenApiResponse(LearnerSerializer, description="Already provisioned."),
        },
    )
    def post(self, request):
        body = LearnerProvisionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        learner, created = services.learner_provision(
            integration=request.auth.integration,
            external_id=body.validated_data["external_id"],
            name=body.validated_data.get("name"),
            email=body.validated_data.get("email"),
        )
        return Response(
            LearnerSerializer(learner).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class LearnerDetail(generics.GenericAPIView):
    permission_classes = [ApiKeyRequired]
    serializer_class = LearnerSerializer

    def get_object(self):
        learner = services.learner_find(
            integration=self.request.auth.integration, external_id=self.kwargs["external_id"]
        )
        if learner is None:
            raise not_found(_("This integration has provisioned no learner with that external id."))
        return learner

    @extend_schema(summary="Look up a learner", tags=["learners"])
    def get(self, request, external_id: str):
        return Response(LearnerSerializer(self.get_object()).data)

    @extend_schema(
        summary="Change a learner's name or email",
        tags=["learners"],
        request=LearnerChangeSerializer,
        responses=LearnerSerializer,
    )
    def patch(self, request, external_id: str):
        body = LearnerChangeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        learner = services.learner_update(
            learner=self.get_object(),
            name=body.validated_data.get("name"),
            email=body.validated_data.get("email"),
        )
        return Response(LearnerSerializer(learner).data)
