"""Roster syncs: one row per sync of a course's roster from the LMS (lti.roster writes them).

Apart from lti.models, which imports it last so Django finds the model there too.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from lti_tool.models import LtiContext

from accounts.moments import moment_text


class RosterSync(models.Model):
    """One sync of a course's roster from the LMS (Names and Role Provisioning Services)."""

    class Status(models.TextChoices):
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")

    context = models.ForeignKey(
        LtiContext, on_delete=models.CASCADE, related_name="+", verbose_name=_("context")
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("requested by"),
    )
    status = models.CharField(max_length=16, choices=Status.choices, verbose_name=_("status"))
    members = models.PositiveIntegerField(default=0, verbose_name=_("members"))
    active_members = models.PositiveIntegerField(default=0, verbose_name=_("active members"))
    detail = models.TextField(blank=True, verbose_name=_("detail"))
    started_at = models.DateTimeField(default=timezone.now, verbose_name=_("started at"))
    finished_at = models.DateTimeField(null=True, blank=True, verbose_name=_("finished at"))

    class Meta:
        verbose_name = _("roster sync")
        verbose_name_plural = _("roster syncs")
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"{self.context} roster {moment_text(self.started_at)} ({self.status})"
