from __future__ import annotations

from django.utils.translation import gettext_lazy
from rest_framework import serializers

from api.times import UtcModelSerializer
from api.validation import StrictSerializer
from integrations.models import EXTERNAL_ID_PATTERN, Learner


class LearnerSerializer(UtcModelSerializer):
    class Meta:
        model = Learner
        fields = ["external_id", "name", "email", "created_at", "updated_at"]


class LearnerProvisionSerializer(StrictSerializer):
    external_id = serializers.RegexField(
        EXTERNAL_ID_PATTERN,
        max_length=255,
        help_text="Your own id for the learner: 1 to 255 of A-Z a-z 0-9 . _ ~ @ : + -",
        error_messages={"invalid": gettext_lazy("Use 1 to 255 letters, digits or . _ ~ @ : + -.")},
    )
    name = serializers.CharField(max_length=200, required=False, allow_blank=True)
    email = serializers.EmailField(required=False, allow_blank=True)


class LearnerChangeSerializer(StrictSerializer):
    name = serializers.CharField(max_length=200, required=False, allow_blank=True)
    email = serializers.EmailField(required=False, allow_blank=True)


class LearnerQuerySerializer(StrictSerializer):
    external_id = serializers.RegexField(
        EXTERNAL_ID_PATTERN,
        required=False,
        max_length=255,
        help_text="Only the learner with this external id.",
    )
