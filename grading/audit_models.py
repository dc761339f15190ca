"""The audit rows of score changes: regrades, overrides and deleted attempts, each kept with who
did it, when and why (the attempt's own models are in grading.models, which imports these)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from courses.models import Quiz, QuizItem


class AuditRow(models.Model):
    """Written once, never changed or deleted through the ORM's instance methods; says who."""

    # Who acted: the user row may go one day, the name stays.
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("by"),
    )
    by_username = models.CharField(max_length=150, verbose_name=_("by username"))

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        # Forcing an insert makes saving an existing row fail (a duplicate key, or Django's
        # refusal to force an insert together with update_fields) instead of rewriting it.
        kwargs["force_insert"] = True
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise TypeError(f"{type(self).__name__} rows are an audit trail and are never deleted.")


class Regrade(AuditRow):
    """An instructor re-graded every response to one quiz item after fixing the item."""

    quiz_item = models.ForeignKey(
        QuizItem, on_delete=models.PROTECT, related_name="regrades", verbose_name=_("quiz item")
    )
    # A problem's tolerance the stored variants were graded with from now on; empty for a question.
    atol = models.FloatField(null=True, blank=True, verbose_name=_("atol"))
    rtol = models.FloatField(null=True, blank=True, verbose_name=_("rtol"))
    # What the regrade's own fix changed of the question's choices or the problem's tolerance,
    # before and after (grading.regrade_fixes), or of the item's points ({"points": [2, 4]},
    # grading.quiz_edits); empty when the item was fixed in the admin.
    fix = models.JSONField(default=list, blank=True, verbose_name=_("fix"))
    responses_changed = models.PositiveIntegerField(verbose_name=_("responses changed"))
    attempts_changed = models.PositiveIntegerField(verbose_name=_("attempts changed"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("regrade")
        verbose_name_plural = _("regrades")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return _("regrade of item %(item)s by %(user)s") % {
            "item": self.quiz_item_id,
            "user": self.by_username,
        }


class ScoreChange(AuditRow):
    """One change to an item's score in an attempt, old → new, with who, when and why.

    An override sets the item's score whatever its responses say (the latest override of an
    item is in force); a regrade re-graded the item's responses and keeps their old verdicts in
    `responses`. Rows survive the attempt's deletion (AttemptDeletion names it).
    """

    class Kind(models.TextChoices):
        OVERRIDE = "override", _("Override")
        REGRADE = "regrade", _("Regrade")

    kind = models.CharField(max_length=16, choices=Kind.choices, verbose_name=_("kind"))
    attempt = models.ForeignKey(
        "grading.Attempt",
        on_delete=models.SET_NULL,
        null=True,
        related_name="score_changes",
        verbose_name=_("attempt"),
    )
    # Kept beside the attempt so the row still says whose score it was after a deletion.
    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("learner"),
    )
    quiz_item = models.ForeignKey(
        QuizItem,
        on_delete=models.PROTECT,
        related_name="score_changes",
        verbose_name=_("quiz item"),
    )
    regrade = models.ForeignKey(
        Regrade,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="changes",
        verbose_name=_("regrade"),
    )
    points = models.PositiveIntegerField(
        help_text=_("The item's points when the score changed."), verbose_name=_("points")
    )
    old_score = models.FloatField(
        help_text=_("The item's score in points before the change."), verbose_name=_("old score")
    )
    # An override's points stay its meaning when the item's points change later
    # (grading.scores.override_fraction): 1.5 stays 1.5, capped at the item's points.
    new_score = models.FloatField(
        help_text=_(
            "The item's score in points after the change. An override is points, not a "
            "fraction: it keeps them when the item's points change later (capped at them)."
        ),
        verbose_name=_("new score"),
    )
    old_attempt_score = models.FloatField(verbose_name=_("old attempt score"))
    new_attempt_score = models.FloatField(verbose_name=_("new attempt score"))
    reason = models.TextField(blank=True, verbose_name=_("reason"))
    # A regrade: per re-graded response, its verdict before and after.
    responses = models.JSONField(default=list, blank=True, verbose_name=_("responses"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("score change")
        verbose_name_plural = _("score changes")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["attempt", "kind"], name="scorechange_attempt_kind")]
        constraints = [
            models.CheckConstraint(
                condition=Q(new_score__gte=0) & Q(new_score__lte=models.F("points")),
                name="scorechange_score_within_points",
            ),
            models.CheckConstraint(
                condition=~Q(kind="override") | ~Q(reason=""),
                name="scorechange_override_has_reason",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.old_score:g} → {self.new_score:g}"


class AttemptDeletion(AuditRow):
    """What a deleted attempt was, who deleted it, when and why: the row outlives the attempt."""

    attempt_id = models.PositiveBigIntegerField(verbose_name=_("attempt id"))
    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("learner"),
    )
    learner_username = models.CharField(max_length=150, verbose_name=_("learner username"))
    quiz = models.ForeignKey(
        Quiz, on_delete=models.SET_NULL, null=True, related_name="+", verbose_name=_("quiz")
    )
    quiz_slug = models.CharField(max_length=120, verbose_name=_("quiz slug"))
    number = models.PositiveIntegerField(verbose_name=_("number"))
    status = models.CharField(max_length=16, verbose_name=_("status"))
    score = models.FloatField(verbose_name=_("score"))
    max_score = models.FloatField(verbose_name=_("max score"))
    started_at = models.DateTimeField(verbose_name=_("started at"))
    submitted_at = models.DateTimeField(null=True, blank=True, verbose_name=_("submitted at"))
    responses = models.PositiveIntegerField(
        help_text=_("How many responses were deleted with it."), verbose_name=_("responses")
    )
    reason = models.TextField(blank=True, verbose_name=_("reason"))
    deleted_at = models.DateTimeField(auto_now_add=True, verbose_name=_("deleted at"))

    class Meta:
        verbose_name = _("attempt deletion")
        verbose_name_plural = _("attempt deletions")
        ordering = ["-deleted_at", "-id"]

    def __str__(self) -> str:
        return _("%(learner)s · %(quiz)s #%(number)s deleted") % {
            "learner": self.learner_username,
            "quiz": self.quiz_slug,
            "number": self.number,
        }
