"""Accommodations: one learner's own rules for one quiz, set by the course's instructors.

Extra minutes on the time limit, extra attempts, and a due date of their own (a closing time
that replaces the quiz's for that learner only). Only grading/accommodations.py reads them, and
every rule a learner is held to asks it (see that module). Not to be confused with a score
override (grading/overrides.py), which changes a score after the fact.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from courses.models import Quiz

REASON_MAX_LENGTH = 2000


class QuizAccommodation(models.Model):
    quiz = models.ForeignKey(
        Quiz, on_delete=models.CASCADE, related_name="accommodations", verbose_name=_("quiz")
    )
    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="accommodations",
        verbose_name=_("learner"),
    )
    extra_minutes = models.PositiveIntegerField(
        default=0,
        help_text=_("Added to the quiz's time limit for this learner."),
        verbose_name=_("extra minutes"),
    )
    extra_attempts = models.PositiveIntegerField(
        default=0,
        help_text=_("Added to the quiz's attempt limit for this learner."),
        verbose_name=_("extra attempts"),
    )
    closes_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text=_(
            "This learner's own due date, in place of the quiz's closing time. Empty: the quiz's."
        ),
        verbose_name=_("closes at"),
    )
    reason = models.TextField(max_length=REASON_MAX_LENGTH, blank=True, verbose_name=_("reason"))
    # Who set it last: the user row may go one day, the name stays.
    set_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("set by"),
    )
    set_by_username = models.CharField(
        max_length=150, blank=True, verbose_name=_("set by username")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("quiz accommodation")
        verbose_name_plural = _("quiz accommodations")
        ordering = ["quiz", "learner__username"]
        constraints = [
            models.UniqueConstraint(
                fields=["quiz", "learner"], name="quiz_accommodation_one_per_learner"
            ),
            # An accommodation that changes nothing is a mistake, not a record to keep.
            models.CheckConstraint(
                condition=Q(extra_minutes__gt=0)
                | Q(extra_attempts__gt=0)
                | Q(closes_at__isnull=False),
                name="quiz_accommodation_changes_something",
                violation_error_message=_(
                    "An accommodation gives extra minutes, extra attempts or a due date of its own."
                ),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.learner} · {self.quiz}"
