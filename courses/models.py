"""What instructors author: courses, lessons, key terms, misconceptions, questions, problems,
quizzes.

Every `__str__` is plain text, its $math$ as Unicode (courses.plain_math: "√dₖ", not
"$\\sqrt{d_k}$"): it is what the admin shows in change lists, breadcrumbs, page titles, its
messages ("The quiz “…” was changed") and every picker's options. Nothing searches, orders or
makes a slug from it.

Nothing here imports `grading`: a Problem names its engine family by a string key, and the grading
app checks that key against the engine registry.
"""

from __future__ import annotations

from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from .plain_math import plain_math
from .quiz_items import Pool, QuizItem
from .quizzes import Quiz
from .visibility import LearnerVisibleQuerySet, practice_problem, published_field

__all__ = [
    "Choice",
    "Course",
    "KeyTerm",
    "Lesson",
    "Misconception",
    "Pool",
    "Problem",
    "Question",
    "Quiz",
    "QuizItem",
]


class Course(models.Model):
    slug = models.SlugField(max_length=80, unique=True, verbose_name=_("slug"))
    title = models.CharField(max_length=200, verbose_name=_("title"))
    summary = models.TextField(blank=True, verbose_name=_("summary"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("course")
        verbose_name_plural = _("courses")
        ordering = ["title"]

    def __str__(self) -> str:
        return plain_math(self.title)


class Lesson(models.Model):
    course = models.ForeignKey(
        Course, on_delete=models.CASCADE, related_name="lessons", verbose_name=_("course")
    )
    slug = models.SlugField(max_length=80, unique=True, verbose_name=_("slug"))
    title = models.CharField(max_length=200, verbose_name=_("title"))
    summary = models.TextField(blank=True, verbose_name=_("summary"))
    order = models.PositiveIntegerField(default=1, verbose_name=_("order"))
    minutes = models.PositiveIntegerField(
        default=20, help_text=_("Estimated time to study it."), verbose_name=_("minutes")
    )
    body = models.TextField(
        help_text=_(
            "Markdown. Math in $…$ (inline) or $$…$$ (display); link key terms as [[slug]]."
        ),
        verbose_name=_("body"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("lesson")
        verbose_name_plural = _("lessons")
        ordering = ["course", "order"]
        constraints = [
            models.UniqueConstraint(
                fields=["course", "order"], name="lesson_unique_order_in_course"
            ),
        ]

    def __str__(self) -> str:
        return f"{plain_math(self.course.title)} › {self.order}. {plain_math(self.title)}"

    def get_absolute_url(self) -> str:
        return reverse("lesson-detail", kwargs={"slug": self.slug})


class KeyTerm(models.Model):
    lesson = models.ForeignKey(
        Lesson, on_delete=models.CASCADE, related_name="key_terms", verbose_name=_("lesson")
    )
    slug = models.SlugField(max_length=80, verbose_name=_("slug"))
    term = models.CharField(max_length=120, verbose_name=_("term"))
    definition = models.TextField(verbose_name=_("definition"))
    order = models.PositiveIntegerField(default=0, verbose_name=_("order"))

    class Meta:
        verbose_name = _("key term")
        verbose_name_plural = _("key terms")
        ordering = ["lesson", "order", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["lesson", "slug"], name="keyterm_unique_slug_in_lesson"
            ),
        ]

    def __str__(self) -> str:
        return plain_math(self.term)


class Misconception(models.Model):
    """A named wrong idea; its stable code ties questions and engine mistakes to one explanation."""

    code = models.SlugField(max_length=80, unique=True, verbose_name=_("code"))
    lesson = models.ForeignKey(
        Lesson, on_delete=models.CASCADE, related_name="misconceptions", verbose_name=_("lesson")
    )
    title = models.CharField(max_length=200, verbose_name=_("title"))
    explanation = models.TextField(
        help_text=_(
            "What a learner reads with a wrong answer, in a practice quiz while they may "
            "still try again: why the idea is wrong, never what the right answer is."
        ),
        verbose_name=_("explanation"),
    )
    # A placeholder an import made (one per imported question's wrong choices, one per imported
    # problem's mistake) until an instructor names the real idea: listed after the lesson's own.
    imported = models.BooleanField(
        default=False,
        help_text=_("Made by an import as a placeholder: untick once it names a real idea."),
        verbose_name=_("imported"),
    )

    class Meta:
        verbose_name = _("misconception")
        verbose_name_plural = _("misconceptions")
        ordering = ["imported", "code"]

    def __str__(self) -> str:
        return f"{self.code}: {plain_math(self.title)}"


class Question(models.Model):
    class Kind(models.TextChoices):
        SINGLE = "single", _("Single choice")
        MULTIPLE = "multiple", _("Multiple choice")
        TRUE_FALSE = "true_false", _("True / false")

    lesson = models.ForeignKey(
        Lesson, on_delete=models.CASCADE, related_name="questions", verbose_name=_("lesson")
    )
    slug = models.SlugField(max_length=80, unique=True, verbose_name=_("slug"))
    # What authors call the question in lists and pickers (an import keeps the name it had);
    # learners never see it.
    title = models.CharField(max_length=200, blank=True, verbose_name=_("title"))
    kind = models.CharField(
        max_length=16, choices=Kind.choices, default=Kind.SINGLE, verbose_name=_("kind")
    )
    prompt = models.TextField(help_text=_("Markdown with $…$ math."), verbose_name=_("prompt"))
    explanation = models.TextField(
        blank=True,
        help_text=_("Shown once the answer may be released."),
        verbose_name=_("explanation"),
    )
    order = models.PositiveIntegerField(default=0, verbose_name=_("order"))
    published = published_field()

    objects = LearnerVisibleQuerySet.as_manager()

    class Meta:
        verbose_name = _("question")
        verbose_name_plural = _("questions")
        ordering = ["lesson", "order", "id"]

    def __str__(self) -> str:
        named = f"{plain_math(self.title)} · {self.slug}" if self.title else self.slug
        return f"{named} ({self.get_kind_display()})"


class Choice(models.Model):
    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="choices", verbose_name=_("question")
    )
    text = models.CharField(
        max_length=500, help_text=_("Markdown with $…$ math."), verbose_name=_("text")
    )
    is_correct = models.BooleanField(default=False, verbose_name=_("is correct"))
    # PROTECT: deleting a misconception must not silently leave a wrong choice unexplained.
    misconception = models.ForeignKey(
        Misconception,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="choices",
        help_text=_("Required on every wrong choice: the idea that leads a learner to pick it."),
        verbose_name=_("misconception"),
    )
    feedback = models.TextField(
        blank=True,
        help_text=_(
            "Shown to a learner who picks this choice, at once in a practice quiz with "
            "feedback at once: on a wrong choice, say why it is wrong, not which choice is right."
        ),
        verbose_name=_("feedback"),
    )
    order = models.PositiveIntegerField(default=0, verbose_name=_("order"))
    pinned = models.BooleanField(
        default=False,
        help_text=_(
            "Keeps its own position when the choices are shuffled, e.g. “none of the above”."
        ),
        verbose_name=_("pinned"),
    )

    class Meta:
        verbose_name = _("choice")
        verbose_name_plural = _("choices")
        ordering = ["question", "order", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(is_correct=True) | Q(misconception__isnull=False),
                name="choice_wrong_names_misconception",
                violation_error_message=_("A wrong choice must name the misconception behind it."),
            ),
        ]

    def __str__(self) -> str:
        mark = "✓" if self.is_correct else "✗"
        text = plain_math(self.text)
        return f"{mark} {text[:59]}…" if len(text) > 60 else f"{mark} {text}"


class ProblemQuerySet(LearnerVisibleQuerySet):
    def for_practice(self) -> ProblemQuerySet:
        """The problems learners may practise: published and not marked exam only."""
        return self.filter(practice_problem())


class Problem(models.Model):
    """A parameterized practice problem; the numbers come from its engine family per learner."""

    lesson = models.ForeignKey(
        Lesson, on_delete=models.CASCADE, related_name="problems", verbose_name=_("lesson")
    )
    slug = models.SlugField(max_length=80, unique=True, verbose_name=_("slug"))
    title = models.CharField(max_length=200, verbose_name=_("title"))
    family = models.CharField(
        max_length=60,
        help_text=_("Engine family key, e.g. dot-variance, or formula."),
        verbose_name=_("family"),
    )
    params = models.JSONField(
        default=dict,
        blank=True,
        help_text=_("Family parameters as JSON."),
        verbose_name=_("params"),
    )
    # Empty tolerance fields mean "the family's default", which is chosen so that 0 and every
    # named mistake fail; instructors override only with a reason.
    atol = models.FloatField(
        null=True, blank=True, validators=[MinValueValidator(0.0)], verbose_name=_("absolute tol.")
    )
    rtol = models.FloatField(
        null=True, blank=True, validators=[MinValueValidator(0.0)], verbose_name=_("relative tol.")
    )
    prompt = models.TextField(
        blank=True,
        help_text=_("Context shown above the generated givens."),
        verbose_name=_("prompt"),
    )
    order = models.PositiveIntegerField(default=0, verbose_name=_("order"))
    exam_only = models.BooleanField(
        default=False,
        help_text=_(
            "Only in quizzes: never offered for practice, so practice cannot rehearse "
            "the numbers of an exam's problem."
        ),
        verbose_name=_("exam only"),
    )
    # Practice offers a learner the worked solution of their variant after this many wrong
    # tries on it; after one wrong try they may give up and ask for it (grading.policy).
    solution_after_tries = models.PositiveSmallIntegerField(
        default=3,
        validators=[MinValueValidator(1)],
        help_text=_(
            "Wrong tries on one practice variant after which its worked solution is "
            "offered. After one wrong try a learner may give up and ask for it anyway."
        ),
        verbose_name=_("solution after tries"),
    )
    published = published_field()

    objects = ProblemQuerySet.as_manager()

    class Meta:
        verbose_name = _("problem")
        verbose_name_plural = _("problems")
        ordering = ["lesson", "order", "id"]
        constraints = [
            models.CheckConstraint(
                # Spelled out with isnull: SQL treats `NULL >= 0` as unknown, which a CHECK passes.
                condition=(Q(atol__isnull=True) & Q(rtol__isnull=True))
                | (Q(atol__isnull=False) & Q(rtol__isnull=False) & Q(atol__gte=0) & Q(rtol__gte=0)),
                name="problem_tolerance_both_or_neither",
                violation_error_message=_("Set both tolerances (each ≥ 0) or neither."),
            ),
        ]

    def __str__(self) -> str:
        return f"{plain_math(self.title)} [{self.family}]"
