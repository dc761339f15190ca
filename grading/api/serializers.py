"""What the grading API sends and accepts.

Verdicts follow the quiz policy (grading.policy, passed in the context as `shown`, a
Visibility): until verdicts are shown an answer is only `recorded` (an invalid one still gets the
reader's message, since it costs nothing and says nothing about correctness), and correct answers
appear only once the policy shows them.
"""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.times import UtcDateTimeField, UtcModelSerializer
from api.validation import StrictSerializer, WholeNumberField
from grading import policy
from grading.api import selectors
from grading.models import Attempt, PracticeStreak, Response, Variant
from grading.services.solutions import practice_solution_state
from integrations.models import EXTERNAL_ID_PATTERN

LEARNER_HELP = (
    "With an API key: the learner's external_id. Signed-in learners leave it out: they act for "
    "themselves."
)


def _learner_field(**kwargs):
    return serializers.RegexField(
        EXTERNAL_ID_PATTERN,
        max_length=255,
        required=False,
        help_text=LEARNER_HELP,
        error_messages={
            "invalid": gettext_lazy("Not an external_id: 1 to 255 of A-Z a-z 0-9 . _ ~ @ : + -.")
        },
        **kwargs,
    )


def _external_id(user) -> str | None:
    learner = getattr(user, "integration_learner", None)
    return learner.external_id if learner else None


# --- input ------------------------------------------------------------------------------------


class AttemptStartSerializer(StrictSerializer):
    quiz = serializers.SlugField(max_length=80, help_text="The quiz's slug.")
    learner = _learner_field()


CHOICES_AT_MOST = 50  # more ids than any question has choices


class AnswerSerializer(StrictSerializer):
    """Text for a problem item, choice ids for a question item."""

    text = serializers.CharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        help_text="The answer as typed: a number, an expression like `sqrt(64)`, a vector "
        "`[0.1, 0.2]` or a matrix `[[1, 2], [3, 4]]`.",
    )
    choices = serializers.ListField(
        child=WholeNumberField(min_value=1),
        required=False,
        max_length=CHOICES_AT_MOST,
        help_text="The ids of the choices picked (a question item).",
    )

    def validate(self, attrs):
        if ("text" in attrs) == ("choices" in attrs):
            raise serializers.ValidationError(
                _("Send either text (a problem) or choices (a question)."), code="answer_required"
            )
        return attrs


class PracticeAnswerSerializer(StrictSerializer):
    text = serializers.CharField(
        allow_blank=True, trim_whitespace=False, help_text="The answer as typed."
    )


class VariantCreateSerializer(StrictSerializer):
    problem = serializers.SlugField(max_length=80, help_text="The practice problem's slug.")
    learner = _learner_field()


# The statuses an attempt in the API can have: a prepared one, not started yet, is in no API
# answer (grading.models.started_attempt), so neither a filter nor the schema names it.
STARTED_STATUSES = [
    (value, label) for value, label in Attempt.Status.choices if value != Attempt.Status.PREPARED
]


class AttemptQuerySerializer(StrictSerializer):
    learner = _learner_field()
    quiz = serializers.SlugField(required=False)
    status = serializers.ChoiceField(choices=STARTED_STATUSES, required=False)
    updated_since = UtcDateTimeField(
        required=False, help_text="Only attempts changed at or after this time (ISO 8601)."
    )


class RulesQuerySerializer(StrictSerializer):
    learner = _learner_field()


class StreakQuerySerializer(StrictSerializer):
    learner = _learner_field()
    problem = serializers.SlugField(required=False)
    course = serializers.SlugField(required=False)


# --- output -----------------------------------------------------------------------------------


class AttemptSerializer(UtcModelSerializer):
    quiz = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    learner = serializers.SerializerMethodField(help_text="external_id; null for site learners.")
    status = serializers.ChoiceField(choices=STARTED_STATUSES, read_only=True)
    score = serializers.SerializerMethodField(
        help_text="Null unless the quiz policy shows the learner their score: with immediate "
        "feedback (the running total), after submission, and never when the quiz shows no "
        "results or for an attempt closed unsubmitted when time ran out (status "
        "never_submitted: it has no score). The grades endpoints always give submitted "
        "attempts' scores."
    )

    class Meta:
        model = Attempt
        fields = [
            "id",
            "quiz",
            "learner",
            "number",
            "status",
            "started_at",
            "deadline",
            "submitted_at",
            "late",
            "score",
            "max_score",
            "updated_at",
        ]

    def get_learner(self, attempt: Attempt) -> str | None:
        return _external_id(attempt.user)

    def get_score(self, attempt: Attempt) -> float | None:
        now = self.context.get("now") or timezone.now()
        # Only the score is read here: when answers are released does not change it.
        shown = policy.attempt_visibility(attempt=attempt, now=now, answers_release_at=None)
        return attempt.score if shown.total_score else None


class VerdictDetailSerializer(serializers.Serializer):
    wrong_entries = serializers.ListField(
        child=serializers.JSONField(),
        help_text="Entries that are off, counting from 1: `3` in a vector, `[2, 1]` in a matrix.",
    )
    tolerance = serializers.CharField(allow_null=True)
    diagnosis = serializers.CharField(
        allow_null=True, help_text="A slip recognised in the answer, e.g. rounded too coarsely."
    )


class VerdictSerializer(serializers.Serializer):
    """One submitted answer, as much of its verdict as the policy lets the learner see."""

    id = serializers.IntegerField(read_only=True)
    item = serializers.IntegerField(source="quiz_item_id", allow_null=True, read_only=True)
    variant = serializers.IntegerField(source="variant_id", allow_null=True, read_only=True)
    status = serializers.SerializerMethodField(
        help_text="correct, incorrect, invalid (costs no try), or recorded (saved; graded when "
        "the policy says)."
    )
    counts_as_try = serializers.BooleanField(read_only=True)
    score = serializers.SerializerMethodField(help_text="0 to 1; null unless shown.")
    misconception = serializers.SerializerMethodField(
        help_text="Code of the misconception the answer matches (see the lesson's list)."
    )
    feedback = serializers.SerializerMethodField()
    detail = serializers.SerializerMethodField()
    created_at = UtcDateTimeField(read_only=True)

    def _shown(self, response: Response) -> policy.Visibility:
        # An invalid answer has no verdict, score or detail: nothing of it is hidden or shown.
        if response.status == Response.Status.INVALID:
            return policy.NOTHING
        return self.context["shown"]

    def get_status(self, response: Response) -> str:
        if response.status == Response.Status.INVALID or self._shown(response).verdicts:
            return response.status
        return Response.Status.RECORDED

    def get_score(self, response: Response) -> float | None:
        return response.score if self._shown(response).item_scores else None

    def get_misconception(self, response: Response) -> str | None:
        return (response.misconception or None) if self._shown(response).feedback else None

    def get_feedback(self, response: Response) -> str | None:
        # The reader's message for invalid input is always shown: it reveals nothing.
        if response.status == Response.Status.INVALID or self._shown(response).feedback:
            return response.feedback
        return None

    @extend_schema_field(VerdictDetailSerializer(allow_null=True))
    def get_detail(self, response: Response) -> dict | None:
        if not self._shown(response).feedback:
            return None
        stored = response.detail or {}
        return {
            "wrong_entries": stored.get("wrong_entries", []),
            "tolerance": stored.get("tolerance"),
            "diagnosis": stored.get("diagnosis"),
        }


class StreakSerializer(UtcModelSerializer):
    problem = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    learner = serializers.SerializerMethodField(help_text="external_id; null for site learners.")
    mastered = serializers.BooleanField(read_only=True)

    class Meta:
        model = PracticeStreak
        fields = [
            "problem",
            "learner",
            "current",
            "best",
            "mastered",
            "mastered_at",
            "correct_total",
            "tries_total",
            "updated_at",
        ]

    def get_learner(self, streak: PracticeStreak) -> str | None:
        return _external_id(streak.user)


class PracticeVerdictSerializer(VerdictSerializer):
    streak = serializers.SerializerMethodField()

    @extend_schema_field(StreakSerializer(allow_null=True))
    def get_streak(self, response: Response) -> dict | None:
        streak = self.context.get("streak")
        return StreakSerializer(streak).data if streak is not None else None


class VariantSerializer(UtcModelSerializer):
    """A practice variant: its numbers and prompt, never its seed or answer."""

    problem = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    learner = serializers.SerializerMethodField(help_text="external_id; null for site learners.")
    number = serializers.IntegerField(
        source="counter", read_only=True, help_text="The learner's n-th variant of the problem."
    )
    prompt = serializers.SerializerMethodField(help_text="Markdown; math in $…$ (LaTeX).")
    prompt_html = serializers.SerializerMethodField(help_text="The prompt as HTML with MathML.")
    givens = serializers.JSONField(read_only=True, help_text="The numbers of this variant.")
    answer_shape = serializers.SerializerMethodField(
        help_text="[] for a number, [n] for a vector, [n, m] for a matrix."
    )
    solution = serializers.SerializerMethodField(
        help_text="closed (no wrong try yet, or solved), on_request (reveal with give_up: true), "
        "offered (solution_after_tries wrong tries: reveal at will) or revealed; see "
        "/variants/{id}/solution/."
    )

    class Meta:
        model = Variant
        fields = [
            "id",
            "problem",
            "learner",
            "number",
            "prompt",
            "prompt_html",
            "givens",
            "answer_shape",
            "solution",
            "created_at",
        ]

    def get_learner(self, variant: Variant) -> str | None:
        return _external_id(variant.user)

    def get_prompt(self, variant: Variant) -> str:
        return selectors.variant_prompt(variant=variant, problem=variant.problem)

    def get_prompt_html(self, variant: Variant) -> str | None:
        return selectors.markup_html(self.get_prompt(variant))

    def get_answer_shape(self, variant: Variant) -> list[int]:
        return selectors.variant_answer_shape(variant=variant)

    @extend_schema_field(
        serializers.ChoiceField(choices=["closed", "on_request", "offered", "revealed"])
    )
    def get_solution(self, variant: Variant) -> str:
        return practice_solution_state(variant=variant).stage


class ChoiceSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    text = serializers.CharField(help_text="Markdown with $…$ math.")
    text_html = serializers.CharField(allow_null=True)


class AttemptItemSerializer(serializers.Serializer):
    """One item of an attempt as the learner works on it."""

    id = serializers.IntegerField()
    number = serializers.IntegerField(
        help_text="Position in this attempt, from 1: the items come in the attempt's own order "
        "when the quiz shuffles them, the same order on every request."
    )
    points = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=["question", "problem"])
    question_kind = serializers.CharField(
        allow_null=True, help_text="single, multiple or true_false"
    )
    title = serializers.CharField(allow_null=True, help_text="The problem's title.")
    prompt = serializers.CharField(help_text="Markdown; math in $…$ (LaTeX).")
    prompt_html = serializers.CharField(allow_null=True, help_text="HTML with MathML.")
    choices = ChoiceSerializer(
        many=True,
        help_text="A question's choices, in the order this attempt shows them (its own order "
        "when the quiz shuffles choices); empty for a problem.",
    )
    givens = serializers.JSONField(allow_null=True, help_text="A problem's numbers.")
    answer_shape = serializers.ListField(
        child=serializers.IntegerField(), allow_null=True, help_text="A problem's answer shape."
    )
    tries_used = serializers.IntegerField()
    tries_left = serializers.IntegerField(
        allow_null=True, help_text="Null when answers are saved, not tried (no feedback)."
    )
    saved = VerdictSerializer(allow_null=True, help_text="The answer that counts so far.")


class ResultItemSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField(help_text="Position in this attempt, as in its items.")
    points = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=["question", "problem"])
    status = serializers.CharField(
        help_text="correct, incorrect, recorded (not shown yet) or unanswered."
    )
    points_earned = serializers.FloatField(allow_null=True)
    misconception = serializers.CharField(allow_null=True)
    feedback = serializers.CharField(allow_null=True)
    text = serializers.CharField(allow_null=True, help_text="The answer that counts, as typed.")
    choices = serializers.ListField(
        child=serializers.IntegerField(), help_text="Picked ids, in the attempt's order."
    )
    correct_answer = serializers.CharField(
        allow_null=True, help_text="A problem's answer, once answers are released."
    )
    correct_choices = serializers.ListField(
        child=serializers.IntegerField(),
        allow_null=True,
        help_text="A question's correct choice ids, once answers are released.",
    )
    explanation = serializers.CharField(
        allow_null=True, help_text="A question's explanation, once answers are released."
    )


class ResultSerializer(serializers.Serializer):
    attempt = AttemptSerializer()
    feedback_released = serializers.BooleanField()
    answers_released = serializers.BooleanField()
    items = ResultItemSerializer(many=True)


class LearnerRulesSerializer(serializers.Serializer):
    quiz = serializers.SlugField()
    time_limit_minutes = serializers.IntegerField(
        allow_null=True, help_text="The learner's time limit, extra minutes included; null: none."
    )
    extra_minutes = serializers.IntegerField(help_text="Minutes an accommodation adds; 0: none.")
    attempts_allowed = serializers.IntegerField(
        allow_null=True,
        help_text="The learner's attempt limit, extra attempts included; null: unlimited.",
    )
    extra_attempts = serializers.IntegerField(help_text="Attempts an accommodation adds.")
    opens_at = UtcDateTimeField(allow_null=True)
    closes_at = UtcDateTimeField(
        allow_null=True, help_text="The learner's due date: their own if they have one."
    )
    own_due_date = serializers.BooleanField(
        help_text="True when closes_at is the learner's own due date, not the quiz's."
    )
    answers_release_at = UtcDateTimeField(
        allow_null=True,
        help_text="When correct answers are released, for a quiz that releases them after it "
        "closes: the latest due date anyone has. Null otherwise.",
    )
