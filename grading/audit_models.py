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
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    by_username = models.CharField(max_length=150)

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

    quiz_item = models.ForeignKey(QuizItem, on_delete=models.PROTECT, related_name="regrades")
    # A problem's tolerance the stored variants were graded with from now on; empty for a question.
    atol = models.FloatField(null=True, blank=True)
    rtol = models.FloatField(null=True, blank=True)
    # What the regrade's own fix changed of the question's choices or the problem's tolerance,
    # before and after (grading.regrade_fixes), or of the item's points ({"points": [2, 4]},
    # grading.quiz_edits); empty when the item was fixed in the admin.
    fix = models.JSONField(default=list, blank=True)
    responses_changed = models.PositiveIntegerField()
    attempts_changed = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
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

    kind = models.CharField(max_length=16, choices=Kind.choices)
    attempt = models.ForeignKey(
        "grading.Attempt", on_delete=models.SET_NULL, null=True, related_name="score_changes"
    )
    # Kept beside the attempt so the row still says whose score it was after a deletion.
    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    quiz_item = models.ForeignKey(QuizItem, on_delete=models.PROTECT, related_name="score_changes")
    regrade = models.ForeignKey(
        Regrade, on_delete=models.PROTECT, null=True, blank=True, related_name="changes"
    )
    points = models.PositiveIntegerField(help_text=_("The item's points when the score changed."))
    old_score = models.FloatField(help_text=_("The item's score in points before the change."))
    # An override's points stay its meaning when the item's points change later
    # (grading.scores.override_fraction): 1.5 stays 1.5, capped at the item's points.
    new_score = models.FloatField(
        help_text=_(
            "The item's score in points after the change. An override is points, not a "
            "fraction: it keeps them when the item's points change later (capped at them)."
        )
    )
    old_attempt_score = models.FloatField()
    new_attempt_score = models.FloatField()
    reason = models.TextField(blank=True)
    # A regrade: per re-graded response, its verdict before and after.
    responses = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
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

    attempt_id = models.PositiveBigIntegerField()
    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    learner_username = models.CharField(max_length=150)
    quiz = models.ForeignKey(Quiz, on_delete=models.SET_NULL, null=True, related_name="+")
    quiz_slug = models.CharField(max_length=120)
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=16)
    score = models.FloatField()
    max_score = models.FloatField()
    started_at = models.DateTimeField()
    submitted_at = models.DateTimeField(null=True, blank=True)
    responses = models.PositiveIntegerField(help_text=_("How many responses were deleted with it."))
    reason = models.TextField(blank=True)
    deleted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-deleted_at", "-id"]

    def __str__(self) -> str:
        return _("%(learner)s · %(quiz)s #%(number)s deleted") % {
            "learner": self.learner_username,
            "quiz": self.quiz_slug,
            "number": self.number,
        }
