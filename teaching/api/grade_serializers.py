"""The grades API's shapes: its query parameters, and one row per learner and quiz with who the
learner is (teaching.api.grade_rows.learner_identity decides how much) and their grade under the
attempt rule (teaching.results.grades, the gradebook CSV's numbers)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from api.times import UtcDateTimeField
from api.validation import StrictSerializer
from integrations.models import EXTERNAL_ID_PATTERN
from teaching.api.grade_rows import Origin
from teaching.results.grades import GRADE_RULES

ATTEMPTS_HELP = (
    "Which submitted attempt a grade counts: first, best or last. Left out: the quiz's default, "
    "best (the score sent to the LMS), as in the instructor's gradebook CSV."
)


class GradeQuerySerializer(StrictSerializer):
    learner = serializers.RegexField(
        EXTERNAL_ID_PATTERN,
        max_length=255,
        required=False,
        help_text="Only this learner, by the external_id your integration gave them.",
        error_messages={"invalid": _("Not an external_id: 1 to 255 of A-Z a-z 0-9 . _ ~ @ : + -.")},
    )
    quiz = serializers.SlugField(required=False)
    course = serializers.SlugField(required=False)
    updated_since = UtcDateTimeField(
        required=False,
        help_text="Only grades that changed at or after this time (ISO 8601): pass the largest "
        "updated_at of your last sync.",
    )
    attempts = serializers.ChoiceField(
        choices=[rule.value for rule in GRADE_RULES],
        required=False,
        help_text=ATTEMPTS_HELP,
        error_messages={"invalid_choice": _("attempts must be first, best or last, not {input}.")},
    )


class GradeSerializer(serializers.Serializer):
    learner = serializers.CharField(
        source="learner.external_id",
        allow_null=True,
        help_text="The external_id your integration gave the learner; null for every other "
        "learner (site sign-ups, LTI learners, another integration's learners).",
    )
    learner_id = serializers.IntegerField(
        source="learner.learner_id", help_text="softgrade's own id for the learner: stable."
    )
    username = serializers.CharField(
        source="learner.username",
        help_text="The learner's softgrade user name (random for accounts an integration or an "
        "LMS made).",
    )
    origin = serializers.ChoiceField(
        source="learner.origin",
        choices=[origin.value for origin in Origin],
        help_text="How the learner came: site (signed up), api (provisioned by an integration), "
        "lti (sent by an LMS).",
    )
    lms_subject = serializers.CharField(
        source="learner.lms_subject",
        allow_null=True,
        help_text="The LMS's `sub` for an LTI learner, only when your integration is tied to the "
        "LTI registration that launched them; else null.",
    )
    learner_name = serializers.CharField(source="learner.name")
    learner_email = serializers.CharField(source="learner.email", allow_blank=True)
    course = serializers.CharField(source="quiz.lesson.course.slug")
    quiz = serializers.CharField(source="quiz.slug")
    quiz_title = serializers.CharField(source="quiz.title")
    attempt_rule = serializers.ChoiceField(
        source="grade.rule",
        choices=[rule.value for rule in GRADE_RULES],
        help_text="The rule the grade counts (the `attempts` asked for, or the quiz's default).",
    )
    attempts = serializers.IntegerField(
        source="grade.attempts", help_text="Attempts made, in progress ones too."
    )
    submitted_attempts = serializers.IntegerField(source="grade.submitted_attempts")
    attempt = serializers.IntegerField(
        source="grade.attempt_number",
        allow_null=True,
        help_text="The number of the attempt the rule counts; null while none is submitted.",
    )
    score = serializers.FloatField(
        source="grade.score",
        allow_null=True,
        help_text="The counted attempt's score; null while none is submitted.",
    )
    max_score = serializers.FloatField(
        source="grade.max_score",
        help_text="The counted attempt's maximum, else the quiz's.",
    )
    submitted_at = UtcDateTimeField(
        source="grade.submitted_at",
        allow_null=True,
        help_text="When the counted attempt was submitted.",
    )
    last_submitted_at = UtcDateTimeField(
        source="grade.last_submitted_at",
        allow_null=True,
        help_text="When the learner last submitted an attempt at the quiz.",
    )
    updated_at = UtcDateTimeField(
        source="grade.updated_at",
        help_text="The latest change to any of the learner's attempts at the quiz.",
    )
