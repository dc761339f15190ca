"""The statistics API's shapes: every figure a fraction (0 to 1) or null where it is undefined,
items in quiz order, and each item's responses counted by status, choice, misconception and
diagnosis (teaching.statistics.export builds the document)."""

from __future__ import annotations

from rest_framework import serializers

from api.validation import StrictSerializer
from teaching.findings import KIND_CODES
from teaching.statistics.data import RULE_LABELS, RULES


def _figure(help_text: str) -> serializers.FloatField:
    return serializers.FloatField(allow_null=True, help_text=f"{help_text} Null when undefined.")


class QuizFiguresSerializer(serializers.Serializer):
    n = serializers.IntegerField(help_text="The number of attempts counted.")
    mean = _figure("The mean total, as a fraction of the quiz's maximum.")
    median = _figure("The median total, as a fraction of the quiz's maximum.")
    sd = _figure("The totals' sample standard deviation, as a fraction of the maximum.")
    skewness = _figure("The totals' skewness (from three attempts).")
    kurtosis = _figure("The totals' excess kurtosis (from four attempts).")
    cronbach_alpha = _figure("Moodle's coefficient of internal consistency, as a fraction.")
    error_ratio = _figure("√(1 − cronbach_alpha).")
    standard_error = _figure("error_ratio × sd, as a fraction of the maximum.")


class ChoiceCountSerializer(serializers.Serializer):
    choice = serializers.IntegerField(help_text="The choice's id, as an attempt's items list it.")
    count = serializers.IntegerField(help_text="Responses that picked it.")


class CodeCountSerializer(serializers.Serializer):
    code = serializers.CharField()
    count = serializers.IntegerField()


class DiagnosisCountSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="The stable code stored with each response.")
    kind = serializers.ChoiceField(
        choices=list(KIND_CODES),
        help_text="property (the problem's own check), structure, near-miss, or other (a code "
        "no rule of this version knows).",
    )
    count = serializers.IntegerField()


class ResponseCountsSerializer(serializers.Serializer):
    total = serializers.IntegerField(
        help_text="Every response of the counted attempts: every try, every saved answer, "
        "invalid input too."
    )
    correct = serializers.IntegerField()
    incorrect = serializers.IntegerField(help_text="Wrong responses, explained or not.")
    invalid = serializers.IntegerField(help_text="Input that could not be read (no try used).")
    unexplained = serializers.IntegerField(
        help_text="Wrong responses with neither a named misconception nor a diagnosis."
    )
    choices = ChoiceCountSerializer(
        many=True, help_text="A question's choices in their authored order; empty for a problem."
    )
    misconceptions = CodeCountSerializer(
        many=True, help_text="Named misconceptions of wrong responses, most frequent first."
    )
    diagnoses = DiagnosisCountSerializer(
        many=True,
        help_text="What grading found in wrong responses to a problem (a property check the "
        "problem states, a structural finding such as rows-not-zero-sum, a near miss such as "
        "too-few-figures or sign-flipped), most frequent first.",
    )


class ItemStatisticsSerializer(serializers.Serializer):
    item = serializers.IntegerField(help_text="The quiz item's id, as the quiz lists it.")
    drawn = serializers.CharField(
        allow_null=True,
        help_text="For a member of a pool, whatever item an attempt drew it into: "
        "question-<id> or problem-<id> (its item is the pool's first item); null otherwise.",
    )
    position = serializers.IntegerField(help_text="1 for the quiz's first item.")
    facility = _figure("The mean score on the item, as a fraction of its maximum.")
    sd = _figure("The item scores' standard deviation, as a fraction of its maximum.")
    random_guess_score = _figure(
        "The mean score of a guesser: right choices / choices for single choice and "
        "true/false questions, 0 for a problem; null for multiple choice (as in Moodle)."
    )
    intended_weight = serializers.FloatField(help_text="The item's share of the quiz's points.")
    effective_weight = _figure("The item's share of the spread of the totals.")
    discrimination_index = _figure("The correlation of the item with the rest of the quiz.")
    discriminative_efficiency = _figure(
        "The item's covariance with the rest of the quiz over the largest it could have."
    )
    responses = ResponseCountsSerializer()


class QuizStatisticsSerializer(serializers.Serializer):
    quiz = QuizFiguresSerializer()
    items = ItemStatisticsSerializer(many=True)


class StatisticsQuerySerializer(StrictSerializer):
    attempts = serializers.ChoiceField(
        choices=[(rule.value, RULE_LABELS[rule]) for rule in RULES],
        required=False,
        default="first",
        help_text="first (the default): each learner's first submitted attempt, as Moodle "
        "counts; all: every submitted attempt.",
    )
