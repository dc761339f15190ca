"""What an attempt drew from its quiz's pools: one row per pool item (grading.draws writes
them when the attempt starts).

Kept apart from grading/models.py, which imports it, so each module stays readable; the attempt
is named by its label so this module imports no other grading module.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from courses.models import Problem, Question, QuizItem


class AttemptDraw(models.Model):
    """The question or problem one pool item of one attempt shows.

    Recorded rather than recomputed on each read: the draw is a function of the attempt's key
    and the pool's members at the start, and members come and go, so an attempt keeps what it
    started with, as it keeps its shuffle settings.
    """

    attempt = models.ForeignKey(
        "grading.Attempt", on_delete=models.CASCADE, related_name="draws", verbose_name=_("attempt")
    )
    quiz_item = models.ForeignKey(
        QuizItem, on_delete=models.PROTECT, related_name="draws", verbose_name=_("quiz item")
    )
    question = models.ForeignKey(
        Question,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="draws",
        verbose_name=_("question"),
    )
    problem = models.ForeignKey(
        Problem,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="draws",
        verbose_name=_("problem"),
    )

    class Meta:
        verbose_name = _("attempt draw")
        verbose_name_plural = _("attempt draws")
        ordering = ["attempt", "quiz_item"]
        constraints = [
            models.UniqueConstraint(
                fields=["attempt", "quiz_item"], name="attemptdraw_one_per_attempt_item"
            ),
            models.CheckConstraint(
                condition=(Q(question__isnull=False) & Q(problem__isnull=True))
                | (Q(question__isnull=True) & Q(problem__isnull=False)),
                name="attemptdraw_question_or_problem",
            ),
        ]

    def __str__(self) -> str:
        drawn = self.question or self.problem
        return f"attempt {self.attempt_id} · item {self.quiz_item_id}: {drawn}"
