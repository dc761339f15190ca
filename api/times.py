"""Moments in the API: UTC, ISO 8601, whatever time zone is active.

The pages activate their reader's zone for every request (accounts/middleware.py), and DRF
writes a DateTimeField in the active zone unless told otherwise; an LMS syncing grades must get
the same instant written the same way from every session. Every moment the API writes goes
through UtcDateTimeField ("2027-01-20T12:00:00Z"), and a moment sent without an offset is read
as UTC. Each such field's OpenAPI description says so.
"""

from __future__ import annotations

from datetime import UTC

from django.db import models
from rest_framework import serializers

UTC_NOTE = "In UTC, ISO 8601 (e.g. 2027-01-20T12:00:00Z; a time sent without an offset is UTC)."


class UtcDateTimeField(serializers.DateTimeField):
    """A DateTimeField in UTC, its description saying so."""

    def __init__(self, **kwargs):
        kwargs["default_timezone"] = UTC
        help_text = kwargs.get("help_text")
        kwargs["help_text"] = f"{help_text} {UTC_NOTE}" if help_text else UTC_NOTE
        super().__init__(**kwargs)


class UtcModelSerializer(serializers.ModelSerializer):
    """A ModelSerializer whose model date-times are UtcDateTimeFields."""

    serializer_field_mapping = {
        **serializers.ModelSerializer.serializer_field_mapping,
        models.DateTimeField: UtcDateTimeField,
    }
