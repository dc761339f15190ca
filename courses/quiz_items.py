"""A quiz's items and the pools they draw from (courses.models imports them: a model lives in
the app's models module; the other models are named by label, so neither module imports the
other's classes)."""

from __future__ import annotations

from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from .plain_math import plain_math


class Pool(models.Model):
    """A named set of questions and problems that quiz items draw from, one member per item.

    A quiz draws k members by naming the pool in k items (as the best-known LMS's random
    questions add k random slots): each drawn entry keeps an item of its own, so its points, its
    score, an override or a regrade, and its column of the results grid work as for any item.
    The attempt records what each item drew (grading.draws), so editing the pool later changes
    no attempt already started.
    """

    lesson = models.ForeignKey(
        "courses.Lesson", on_delete=models.CASCADE, related_name="pools", verbose_name=_("lesson")
    )
    slug = models.SlugField(max_length=80, unique=True, verbose_name=_("slug"))
    title = models.CharField(max_length=200, verbose_name=_("title"))
    questions = models.ManyToManyField(
        "courses.Question", blank=True, related_name="pools", verbose_name=_("questions")
    )
    problems = models.ManyToManyField(
        "courses.Problem", blank=True, related_name="pools", verbose_name=_("problems")
    )

    class Meta:
        verbose_name = _("pool")
        verbose_name_plural = _("pools")
        ordering = ["lesson", "title"]

    def __str__(self) -> str:
        return _("%(title)s (pool)") % {"title": plain_math(self.title)}

    def size(self) -> int:
        """How many members an attempt can draw from: its questions and problems."""
        return self.questions.count() + self.problems.count()


class QuizItem(models.Model):
    quiz = models.ForeignKey(
        "courses.Quiz", on_delete=models.CASCADE, related_name="items", verbose_name=_("quiz")
    )
    order = models.PositiveIntegerField(default=0, verbose_name=_("order"))
    question = models.ForeignKey(
        "courses.Question",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="quiz_items",
        verbose_name=_("question"),
    )
    problem = models.ForeignKey(
        "courses.Problem",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="quiz_items",
        verbose_name=_("problem"),
    )
    # PROTECT: an attempt's draws name the item; a pool in use is emptied, not deleted.
    pool = models.ForeignKey(
        Pool,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="quiz_items",
        help_text=_(
            "Each attempt draws one member of the pool here, a different one for every "
            "item of the quiz that names the same pool."
        ),
        verbose_name=_("pool"),
    )
    points = models.PositiveIntegerField(
        default=1, validators=[MinValueValidator(1)], verbose_name=_("points")
    )

    class Meta:
        verbose_name = _("quiz item")
        verbose_name_plural = _("quiz items")
        ordering = ["quiz", "order", "id"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(question__isnull=False) & Q(problem__isnull=True) & Q(pool__isnull=True)
                )
                | (Q(question__isnull=True) & Q(problem__isnull=False) & Q(pool__isnull=True))
                | (Q(question__isnull=True) & Q(problem__isnull=True) & Q(pool__isnull=False)),
                name="quizitem_exactly_one_of_question_problem_or_pool",
                violation_error_message=_(
                    "A quiz item is exactly one question, one problem or one pool."
                ),
            ),
            models.CheckConstraint(
                condition=Q(points__gte=1),
                name="quizitem_points_positive",
                violation_error_message=_("An item is worth at least one point."),
            ),
        ]

    def __str__(self) -> str:
        content = self.question or self.problem or self.pool
        return f"{self.quiz.slug} #{self.order}: {content}"

    @property
    def content(self) -> models.Model:
        """The item's question or problem; a pool item has one only as an attempt drew it
        (grading.draws.items_as_drawn)."""
        return self.question or self.problem
