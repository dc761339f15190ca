"""Quizzes: what a quiz asks (its items, in courses.quiz_items) and under which rules, mode,
feedback, answer release, time and tries (courses.models imports it: a model lives in the app's
models module; the lesson is named by its label, so this module imports none of the others)."""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from .plain_math import plain_math
from .visibility import LearnerVisibleQuerySet, published_field


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

    lesson = models.ForeignKey(
        "courses.Lesson", on_delete=models.CASCADE, related_name="quizzes", verbose_name=_("lesson")
    )
    slug = models.SlugField(max_length=80, unique=True, verbose_name=_("slug"))
    title = models.CharField(max_length=200, verbose_name=_("title"))
    description = models.TextField(blank=True, verbose_name=_("description"))
    mode = models.CharField(
        max_length=16, choices=Mode.choices, default=Mode.PRACTICE, verbose_name=_("mode")
    )
    time_limit_minutes = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_("Empty: no limit."),
        verbose_name=_("time limit minutes"),
    )
    attempts_allowed = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_("Empty: unlimited."),
        verbose_name=_("attempts allowed"),
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
        verbose_name=_("overdue handling"),
    )
    grace_minutes = models.PositiveIntegerField(
        default=0,
        help_text=_(
            "Minutes after the deadline in which the learner may still submit (answers "
            "saved after the deadline never count); then the attempt is closed. 0: none."
        ),
        verbose_name=_("grace minutes"),
    )
    tries_per_item = models.PositiveIntegerField(
        default=1, validators=[MinValueValidator(1)], verbose_name=_("tries per item")
    )
    # A fraction of the item's points, so it reads the same for a 1-point and a 3-point item.
    extra_try_penalty = models.FloatField(
        default=0.0,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text=_(
            "What each try after the first costs, as a fraction of the item's points "
            "(0.5 for half; 0.3333 for a third). An item never scores below 0. Only quizzes with "
            "feedback per item count tries. 0: no penalty."
        ),
        verbose_name=_("extra try penalty"),
    )
    # Read by grading.scores.try_counts, the one place that decides whether an answer uses a try.
    rounding_retries = models.BooleanField(
        default=True,
        help_text=_(
            "An answer right only to too few significant figures is named (with how many "
            "are needed) and its try is given back. Only quizzes with feedback per item count "
            "tries; turn it off where every try must count."
        ),
        verbose_name=_("rounding retries"),
    )
    show_feedback = models.CharField(
        max_length=20,
        choices=Feedback.choices,
        default=Feedback.IMMEDIATELY,
        verbose_name=_("show feedback"),
    )
    release_answers = models.CharField(
        max_length=20,
        choices=AnswerRelease.choices,
        default=AnswerRelease.AFTER_SUBMISSION,
        verbose_name=_("release answers"),
    )
    opens_at = models.DateTimeField(null=True, blank=True, verbose_name=_("opens at"))
    closes_at = models.DateTimeField(null=True, blank=True, verbose_name=_("closes at"))
    # Empty means "the mode decides": on for exams, off for practice quizzes. The rule lives in
    # shuffles_choices / shuffles_items, so quizzes made anywhere (admin, bank, tests) follow it.
    shuffle_choices = models.BooleanField(
        null=True,
        blank=True,
        help_text=_(
            "Each attempt shows a question's choices in its own order (pinned choices "
            "stay put). Empty: on for exams, off for practice quizzes."
        ),
        verbose_name=_("shuffle choices"),
    )
    shuffle_items = models.BooleanField(
        null=True,
        blank=True,
        help_text=_(
            "Each attempt shows the items in its own order. Empty: on for exams, off "
            "for practice quizzes."
        ),
        verbose_name=_("shuffle items"),
    )
    published = published_field()
    # Raised by courses.content_versions.content_changed on every change to what a learner's
    # sheet shows (items, points, prompts, choices): the key of what is kept per quiz.
    content_version = models.PositiveIntegerField(
        default=0, editable=False, verbose_name=_("content version")
    )

    objects = LearnerVisibleQuerySet.as_manager()

    class Meta:
        verbose_name = _("quiz")
        verbose_name_plural = _("quizzes")
        ordering = ["lesson", "title"]
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
