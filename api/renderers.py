"""CSV from API endpoints: the renderer that lets `?format=csv` (or an Accept header) pick a
CSV response, and the view mixin that keeps errors in the one JSON error shape."""

from __future__ import annotations

from rest_framework.renderers import BaseRenderer, JSONRenderer


class CsvRenderer(BaseRenderer):
    """Hands back what the view streams; it exists so content negotiation accepts text/csv."""

    media_type = "text/csv"
    format = "csv"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return data


class CsvEndpoint:
    """For a DRF view that streams CSV: errors are JSON in the one error shape, even when the
    client asked for CSV."""

    renderer_classes = [JSONRenderer, CsvRenderer]

    def handle_exception(self, exc):
        self.request.accepted_renderer = JSONRenderer()
        self.request.accepted_media_type = JSONRenderer.media_type
        return super().handle_exception(exc)
