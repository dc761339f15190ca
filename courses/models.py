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

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from .plain_math import plain_math
from .quiz_items import Pool, QuizItem
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
    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    summary = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["title"]

    def __str__(self) -> str:
        return plain_math(self.title)


class Lesson(models.Model):
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="lessons")
    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    summary = models.TextField(blank=True)
    order = models.PositiveIntegerField(default=1)
    minutes = models.PositiveIntegerField(default=20, help_text=_("Estimated time to study it."))
    body = models.TextField(
        help_text=_(
            "Markdown. Math in $…$ (inline) or $$…$$ (display); link key terms as [[slug]]."
        )
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
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
    lesson = models.ForeignKey(Lesson, on_delete=models.CASCADE, related_name="key_terms")
    slug = models.SlugField(max_length=80)
    term = models.CharField(max_length=120)
    definition = models.TextField()
    order = models.PositiveIntegerField(default=0)

    class Meta:
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

    code = models.SlugField(max_length=80, unique=True)
    lesson = models.ForeignKey(Lesson, on_delete=models.CASCADE, related_name="misconceptions")
    title = models.CharField(max_length=200)
    explanation = models.TextField(
        help_text=_(
            "What a learner reads with a wrong answer, in a practice quiz while they may "
            "still try again: why the idea is wrong, never what the right answer is."
        )
    )
    # A placeholder an import made (one per imported question's wrong choices, one per imported
    # problem's mistake) until an instructor names the real idea: listed after the lesson's own.
    imported = models.BooleanField(
        default=False,
        help_text=_("Made by an import as a placeholder: untick once it names a real idea."),
    )

    class Meta:
        ordering = ["imported", "code"]

    def __str__(self) -> str:
        return f"{self.code}: {plain_math(self.title)}"


class Question(models.Model):
    class Kind(models.TextChoices):
        SINGLE = "single", _("Single choice")
        MULTIPLE = "multiple", _("Multiple choice")
        TRUE_FALSE = "true_false", _("True / false")

    lesson = models.ForeignKey(Lesson, on_delete=models.CASCADE, related_name="questions")
    slug = models.SlugField(max_length=80, unique=True)
    # What authors call the question in lists and pickers (an import keeps the name it had);
    # learners never see it.
    title = models.CharField(max_length=200, blank=True)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.SINGLE)
    prompt = models.TextField(help_text=_("Markdown with $…$ math."))
    explanation = models.TextField(
        blank=True, help_text=_("Shown once the answer may be released.")
    )
    order = models.PositiveIntegerField(default=0)
    published = published_field()

    objects = LearnerVisibleQuerySet.as_manager()

    class Meta:
        ordering = ["lesson", "order", "id"]

    def __str__(self) -> str:
        named = f"{plain_math(self.title)} · {self.slug}" if self.title else self.slug
        return f"{named} ({self.get_kind_display()})"


class Choice(models.Model):
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="choices")
    text = models.CharField(max_length=500, help_text=_("Markdown with $…$ math."))
    is_correct = models.BooleanField(default=False)
    # PROTECT: deleting a misconception must not silently leave a wrong choice unexplained.
    misconception = models.ForeignKey(
        Misconception,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="choices",
        help_text=_("Required on every wrong choice: the idea that leads a learner to pick it."),
    )
    feedback = models.TextField(
        blank=True,
        help_text=_(
            "Shown to a learner who picks this choice, at once in a practice quiz with "
            "feedback at once: on a wrong choice, say why it is wrong, not which choice is right."
        ),
    )
    order = models.PositiveIntegerField(default=0)
    pinned = models.BooleanField(
        default=False,
        help_text=_(
            "Keeps its own position when the choices are shuffled, e.g. “none of the above”."
        ),
    )

    class Meta:
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

    lesson = models.ForeignKey(Lesson, on_delete=models.CASCADE, related_name="problems")
    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    family = models.CharField(
        max_length=60, help_text=_("Engine family key, e.g. dot-variance, or formula.")
    )
    params = models.JSONField(default=dict, blank=True, help_text=_("Family parameters as JSON."))
    # Empty tolerance fields mean "the family's default", which is chosen so that 0 and every
    # named mistake fail; instructors override only with a reason.
    atol = models.FloatField(
        null=True, blank=True, validators=[MinValueValidator(0.0)], verbose_name=_("absolute tol.")
    )
    rtol = models.FloatField(
        null=True, blank=True, validators=[MinValueValidator(0.0)], verbose_name=_("relative tol.")
    )
    prompt = models.TextField(blank=True, help_text=_("Context shown above the generated givens."))
    order = models.PositiveIntegerField(default=0)
    exam_only = models.BooleanField(
        default=False,
        help_text=_(
            "Only in quizzes: never offered for practice, so practice cannot rehearse "
            "the numbers of an exam's problem."
        ),
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
    )
    published = published_field()

    objects = ProblemQuerySet.as_manager()

    class Meta:
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


class Quiz(models.Model):
    class Mode(models.TextChoices):
        PRACTICE = "practice", _("Practice")
        EXAM = "exam", _("Exam")

    class Feedback(models.TextChoices):
        IMMEDIATELY = "immediately", _("Immediately, per item")
        AFTER_SUBMISSION = "after_submission", _("After the attempt is submitted")
        NEVER = "never", _("Never")

    class AnswerRelease(models.TextChoices):
        AFTER_SUBMISSION = "after_submission", _("After the attempt is submitted")
        AFTER_CLOSE = "after_close", _("After the quiz closes")
        NEVER = "never", _("Never")

    class OverdueHandling(models.TextChoices):
        SUBMIT = "submit", _("Submit what was saved")
        NO_SCORE = "no_score", _("Never submitted: no score")

    lesson = models.ForeignKey(Lesson, on_delete=models.CASCADE, related_name="quizzes")
    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode.PRACTICE)
    time_limit_minutes = models.PositiveIntegerField(
        null=True, blank=True, validators=[MinValueValidator(1)], help_text=_("Empty: no limit.")
    )
    attempts_allowed = models.PositiveIntegerField(
        null=True, blank=True, validators=[MinValueValidator(1)], help_text=_("Empty: unlimited.")
    )
    # What happens to an attempt its learner leaves open past its deadline: the server closes it
    # once the grace period is over (grading/services/overdue.py), as the quiz chooses here.
    overdue_handling = models.CharField(
        max_length=16,
        choices=OverdueHandling.choices,
        default=OverdueHandling.SUBMIT,
        help_text=_(
            "When time runs out on an attempt its learner did not submit: submit the "
            "answers saved before the deadline, or close it unsubmitted, with no score."
        ),
    )
    grace_minutes = models.PositiveIntegerField(
        default=0,
        help_text=_(
            "Minutes after the deadline in which the learner may still submit (answers "
            "saved after the deadline never count); then the attempt is closed. 0: none."
        ),
    )
    tries_per_item = models.PositiveIntegerField(default=1, validators=[MinValueValidator(1)])
    # A fraction of the item's points, so it reads the same for a 1-point and a 3-point item.
    extra_try_penalty = models.FloatField(
        default=0.0,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text=_(
            "What each try after the first costs, as a fraction of the item's points "
            "(0.5 for half; 0.3333 for a third). An item never scores below 0. Only quizzes with "
            "feedback per item count tries. 0: no penalty."
        ),
    )
    # Read by grading.scores.try_counts, the one place that decides whether an answer uses a try.
    rounding_retries = models.BooleanField(
        default=True,
        help_text=_(
            "An answer right only to too few significant figures is named (with how many "
            "are needed) and its try is given back. Only quizzes with feedback per item count "
            "tries; turn it off where every try must count."
        ),
    )
    show_feedback = models.CharField(
        max_length=20, choices=Feedback.choices, default=Feedback.IMMEDIATELY
    )
    release_answers = models.CharField(
        max_length=20, choices=AnswerRelease.choices, default=AnswerRelease.AFTER_SUBMISSION
    )
    opens_at = models.DateTimeField(null=True, blank=True)
    closes_at = models.DateTimeField(null=True, blank=True)
    # Empty means "the mode decides": on for exams, off for practice quizzes. The rule lives in
    # shuffles_choices / shuffles_items, so quizzes made anywhere (admin, bank, tests) follow it.
    shuffle_choices = models.BooleanField(
        null=True,
        blank=True,
        help_text=_(
            "Each attempt shows a question's choices in its own order (pinned choices "
            "stay put). Empty: on for exams, off for practice quizzes."
        ),
    )
    shuffle_items = models.BooleanField(
        null=True,
        blank=True,
        help_text=_(
            "Each attempt shows the items in its own order. Empty: on for exams, off "
            "for practice quizzes."
        ),
    )
    published = published_field()
    # Raised by courses.content_versions.content_changed on every change to what a learner's
    # sheet shows (items, points, prompts, choices): the key of what is kept per quiz.
    content_version = models.PositiveIntegerField(default=0, editable=False)

    objects = LearnerVisibleQuerySet.as_manager()

    class Meta:
        ordering = ["lesson", "title"]
        verbose_name_plural = _("quizzes")
        constraints = [
            models.CheckConstraint(
                condition=~(Q(mode="exam") & Q(show_feedback="immediately")),
                name="quiz_exam_feedback_not_immediate",
                violation_error_message=_(
                    "An exam cannot give feedback per item before submission."
                ),
            ),
            models.CheckConstraint(
                condition=~Q(release_answers="after_close") | Q(closes_at__isnull=False),
                name="quiz_release_after_close_needs_close",
                violation_error_message=_("Releasing answers after closing needs a close time."),
            ),
            models.CheckConstraint(
                condition=Q(tries_per_item__gte=1),
                name="quiz_tries_per_item_positive",
                violation_error_message=_("Each item needs at least one try."),
            ),
            models.CheckConstraint(
                condition=Q(extra_try_penalty__gte=0) & Q(extra_try_penalty__lte=1),
                name="quiz_extra_try_penalty_fraction",
                violation_error_message=_("The penalty per extra try is a fraction from 0 to 1."),
            ),
            models.CheckConstraint(
                condition=Q(extra_try_penalty=0) | Q(show_feedback="immediately"),
                name="quiz_penalty_needs_immediate_feedback",
                violation_error_message=_(
                    "Only a quiz with feedback per item counts tries, so "
                    "only it can have a penalty per extra try."
                ),
            ),
            models.CheckConstraint(
                condition=Q(opens_at__isnull=True)
                | Q(closes_at__isnull=True)
                | Q(closes_at__gt=models.F("opens_at")),
                name="quiz_closes_after_opening",
                violation_error_message=_("The quiz must close after it opens."),
            ),
        ]

    def __str__(self) -> str:
        return f"{plain_math(self.title)} ({self.get_mode_display()})"

    def get_absolute_url(self) -> str:
        return reverse("quiz-detail", kwargs={"slug": self.slug})

    @property
    def shuffles_choices(self) -> bool:
        """Whether a new attempt draws its own order of each question's choices."""
        return self.mode == self.Mode.EXAM if self.shuffle_choices is None else self.shuffle_choices

    @property
    def shuffles_items(self) -> bool:
        """Whether a new attempt draws its own order of the items."""
        return self.mode == self.Mode.EXAM if self.shuffle_items is None else self.shuffle_items
