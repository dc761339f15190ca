"""A moment a person types, in their own zone (the active one), on softgrade's own pages."""

from __future__ import annotations

from django import forms
from django.utils import timezone


class LocalDateTimeField(forms.DateTimeField):
    """A browser's date and time input read and shown in the active zone (the person's).

    Django reads a moment typed without a zone in the active zone already, and refuses one that
    does not exist or happens twice there (a daylight-saving change) with a message naming the
    zone; this field shows a stored moment back in that zone too, in the input's own format.
    """

    widget = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")

    def prepare_value(self, value):
        if hasattr(value, "astimezone"):
            return timezone.localtime(value).replace(tzinfo=None).strftime("%Y-%m-%dT%H:%M")
        return value


def zone_label(label: str) -> str:
    """A field's label naming the zone its times are in: "Own due date (Pacific/Auckland)"."""
    return f"{label} ({timezone.get_current_timezone_name()})"
