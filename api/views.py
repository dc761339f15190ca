"""The API's root and its interactive docs."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularSwaggerSplitView
from rest_framework import generics, serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response


class ApiRootSerializer(serializers.Serializer):
    name = serializers.CharField()
    version = serializers.CharField()
    schema = serializers.CharField()
    docs = serializers.CharField()


class ApiRoot(generics.GenericAPIView):
    """Where the API starts; touches no database, so it doubles as the cheapest health check."""

    authentication_classes = []
    permission_classes = [AllowAny]
    throttle_classes = []
    serializer_class = ApiRootSerializer

    @extend_schema(summary="The API's name, version and where its documentation is", tags=["api"])
    def get(self, request):
        body = {
            "name": "softgrade API",
            "version": "1",
            "schema": reverse("api:schema"),
            "docs": reverse("api:docs"),
        }
        return Response(ApiRootSerializer(body).data)


class ApiDocs(SpectacularSwaggerSplitView):
    """The interactive docs, from local assets and with no inline script or style: the page's
    start-up script is a separate request (the split view), and its one stylesheet is static."""

    template_name = "api/docs.html"
    title = "softgrade API"
