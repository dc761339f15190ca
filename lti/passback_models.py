"""Scores owed to LMS gradebooks: a link's gradebook column (line item), every score sent to it
and the outcome of each try (lti.passback and lti.passback_send write them).

Apart from lti.models, which imports it last so Django finds the models there too; the link is
named by its label, so this module imports nothing of lti.models.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from lti_tool.models import LtiUser

from grading.models import Attempt


class LineItem(models.Model):
    """The LMS gradebook column a link's scores go to: one per link, never a second one."""

    target = models.OneToOneField(
        "lti.LinkTarget",
        on_delete=models.CASCADE,
        related_name="line_item",
        verbose_name=_("target"),
    )
    url = models.URLField(max_length=1000, verbose_name=_("url"))
    label = models.CharField(max_length=255, blank=True, verbose_name=_("label"))
    score_maximum = models.FloatField(null=True, blank=True, verbose_name=_("score maximum"))
    # False when the launch named the column (deep linking made it); True when softgrade made it.
    created_by_softgrade = models.BooleanField(
        default=False, verbose_name=_("created by softgrade")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("line item")
        verbose_name_plural = _("line items")

    def __str__(self) -> str:
        return self.label or self.url


class ScorePassback(models.Model):
    """One score owed to an LMS gradebook, kept until the LMS has accepted it."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        SENT = "sent", _("Sent")
        REFUSED = "refused", _("Refused by the LMS")
        SUPERSEDED = "superseded", _("Replaced by a newer score")

    class Progress(models.TextChoices):
        COMPLETED = "Completed", _("Completed")
        IN_PROGRESS = "InProgress", _("In progress")

    target = models.ForeignKey(
        "lti.LinkTarget",
        on_delete=models.CASCADE,
        related_name="passbacks",
        verbose_name=_("target"),
    )
    lti_user = models.ForeignKey(
        LtiUser, on_delete=models.CASCADE, related_name="+", verbose_name=_("lti user")
    )
    attempt = models.ForeignKey(
        Attempt,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("attempt"),
    )
    score_given = models.FloatField(verbose_name=_("score given"))
    score_maximum = models.FloatField(verbose_name=_("score maximum"))
    activity_progress = models.CharField(
        max_length=16,
        choices=Progress.choices,
        default=Progress.COMPLETED,
        verbose_name=_("activity progress"),
    )
    # The moment the score was earned: every retry sends this same timestamp, so the LMS can
    # order scores and never lets an older one replace a newer one.
    scored_at = models.DateTimeField(verbose_name=_("scored at"))
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.QUEUED, verbose_name=_("status")
    )
    try_count = models.PositiveIntegerField(default=0, verbose_name=_("try count"))
    next_try_at = models.DateTimeField(null=True, blank=True, verbose_name=_("next try at"))
    last_error = models.TextField(blank=True, verbose_name=_("last error"))
    sent_at = models.DateTimeField(null=True, blank=True, verbose_name=_("sent at"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("score passback")
        verbose_name_plural = _("score passbacks")
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "next_try_at"], name="lti_passback_due"),
            models.Index(fields=["target", "lti_user"], name="lti_passback_learner"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(score_given__gte=0) & Q(score_maximum__gte=0),
                name="lti_passback_scores_not_negative",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.lti_user} · {self.score_given:g}/{self.score_maximum:g} ({self.status})"


class PassbackOutcome(models.Model):
    """What happened on one try to send a score: every try is kept, for instructors to see."""

    class Result(models.TextChoices):
        SENT = "sent", _("Sent")
        WILL_RETRY = "will_retry", _("Failed, will retry")
        REFUSED = "refused", _("Refused by the LMS")

    passback = models.ForeignKey(
        ScorePassback, on_delete=models.CASCADE, related_name="outcomes", verbose_name=_("passback")
    )
    result = models.CharField(max_length=16, choices=Result.choices, verbose_name=_("result"))
    http_status = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("http status"))
    detail = models.TextField(blank=True, verbose_name=_("detail"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("passback outcome")
        verbose_name_plural = _("passback outcomes")
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        status = self.http_status or _("no answer")
        return f"{self.get_result_display()} ({status})"
