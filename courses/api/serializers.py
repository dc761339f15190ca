"""What integrations may read of authored content: never a correct choice, an answer, a
mistake value or a seed. Choices and item contents reach learners only through their attempts."""

from __future__ import annotations

from rest_framework import serializers

from api.times import UtcModelSerializer
from api.validation import StrictSerializer
from courses.models import Course, KeyTerm, Lesson, Misconception, Problem, Quiz, QuizItem


class LessonSummarySerializer(UtcModelSerializer):
    class Meta:
        model = Lesson
        fields = ["slug", "title", "summary", "order", "minutes"]


class CourseSerializer(UtcModelSerializer):
    lessons = LessonSummarySerializer(many=True, read_only=True)

    class Meta:
        model = Course
        fields = ["slug", "title", "summary", "lessons", "updated_at"]


class KeyTermSerializer(UtcModelSerializer):
    class Meta:
        model = KeyTerm
        fields = ["slug", "term", "definition"]


class MisconceptionSerializer(UtcModelSerializer):
    class Meta:
        model = Misconception
        fields = ["code", "title", "explanation"]


class LessonSerializer(UtcModelSerializer):
    course = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    key_terms = KeyTermSerializer(many=True, read_only=True)
    url = serializers.SerializerMethodField(help_text="The lesson's page on softgrade.")

    class Meta:
        model = Lesson
        fields = ["slug", "course", "title", "summary", "order", "minutes", "key_terms", "url"]

    def get_url(self, lesson: Lesson) -> str:
        return self.context["request"].build_absolute_uri(lesson.get_absolute_url())


class LessonDetailSerializer(LessonSerializer):
    body = serializers.CharField(
        read_only=True, help_text="Markdown; math in $…$ and $$…$$ (LaTeX)."
    )
    misconceptions = MisconceptionSerializer(
        many=True,
        read_only=True,
        help_text="The wrong ideas a verdict's `misconception` code refers to.",
    )

    class Meta(LessonSerializer.Meta):
        fields = [*LessonSerializer.Meta.fields, "body", "misconceptions", "updated_at"]


class QuizItemPublicSerializer(UtcModelSerializer):
    """An item as seen before an attempt: what kind of thing it is and what it is worth."""

    kind = serializers.SerializerMethodField(
        help_text="`question`, `problem`, or `pool`: each attempt draws one member of the pool "
        "here, a different one for each item naming the same pool."
    )
    question_kind = serializers.SerializerMethodField(
        help_text="single, multiple or true_false; null for a problem."
    )
    problem = serializers.SerializerMethodField(
        help_text="The problem's slug; null for a question or a pool."
    )
    pool = serializers.SlugRelatedField(
        slug_field="slug", read_only=True, help_text="The pool's slug; null unless a pool."
    )

    class Meta:
        model = QuizItem
        fields = ["id", "order", "points", "kind", "question_kind", "problem", "pool"]

    def get_kind(self, item: QuizItem) -> str:
        if item.pool_id:
            return "pool"
        return "question" if item.question_id else "problem"

    def get_question_kind(self, item: QuizItem) -> str | None:
        return item.question.kind if item.question_id else None

    def get_problem(self, item: QuizItem) -> str | None:
        return item.problem.slug if item.problem_id else None


class QuizSerializer(UtcModelSerializer):
    lesson = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    course = serializers.CharField(source="lesson.course.slug", read_only=True)
    shuffle_items = serializers.BooleanField(
        source="shuffles_items",
        read_only=True,
        help_text="Whether each new attempt shows the items in an order of its own (the "
        "attempt's items endpoint lists them in it). Unless the instructor chose: true for "
        "exams, false for practice quizzes.",
    )
    shuffle_choices = serializers.BooleanField(
        source="shuffles_choices",
        read_only=True,
        help_text="Whether each new attempt shows a question's choices in an order of its own; "
        "pinned choices and true/false questions keep their order. Unless the instructor "
        "chose: true for exams, false for practice quizzes.",
    )

    class Meta:
        model = Quiz
        fields = [
            "slug",
            "title",
            "description",
            "course",
            "lesson",
            "mode",
            "time_limit_minutes",
            "overdue_handling",
            "grace_minutes",
            "attempts_allowed",
            "tries_per_item",
            "extra_try_penalty",
            "rounding_retries",
            "show_feedback",
            "release_answers",
            "opens_at",
            "closes_at",
            "shuffle_items",
            "shuffle_choices",
        ]


class QuizDetailSerializer(QuizSerializer):
    items = QuizItemPublicSerializer(many=True, read_only=True)
    max_score = serializers.SerializerMethodField()

    class Meta(QuizSerializer.Meta):
        fields = [*QuizSerializer.Meta.fields, "max_score", "items"]

    def get_max_score(self, quiz: Quiz) -> int:
        return sum(item.points for item in quiz.items.all())


class ProblemSerializer(UtcModelSerializer):
    lesson = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    course = serializers.CharField(source="lesson.course.slug", read_only=True)
    prompt = serializers.CharField(
        read_only=True,
        help_text="Context shown above each generated variant (Markdown with $…$ math); the "
        "numbers come with a variant.",
    )

    class Meta:
        model = Problem
        fields = ["slug", "title", "course", "lesson", "family", "prompt"]


class NoQuerySerializer(StrictSerializer):
    """No filters: only the paging parameters are accepted."""


class CourseQuerySerializer(StrictSerializer):
    course = serializers.SlugField(required=False, help_text="Only content of this course.")


class ContentQuerySerializer(CourseQuerySerializer):
    lesson = serializers.SlugField(required=False, help_text="Only content of this lesson.")


class QuizQuerySerializer(ContentQuerySerializer):
    mode = serializers.ChoiceField(choices=Quiz.Mode.choices, required=False)
