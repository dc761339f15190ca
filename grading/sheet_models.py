"""An attempt's rendered sheet, stored once (grading/sheets.py owns it).

Apart from Attempt, which every report reads, so that those reads never carry a page of HTML.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class AttemptSheet(models.Model):
    """The exam page's items as rendered for one attempt: literal HTML with the places where
    each request fills in its own parts (grading.sheets.sheet_fill), and the key of what it was
    rendered from (grading.sheets.sheet_key)."""

    attempt = models.OneToOneField(
        "grading.Attempt",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="sheet",
        verbose_name=_("attempt"),
    )
    key = models.CharField(max_length=80, verbose_name=_("key"))
    parts = models.JSONField(default=list, verbose_name=_("parts"))
    rendered_at = models.DateTimeField(auto_now=True, verbose_name=_("rendered at"))

    class Meta:
        verbose_name = _("attempt sheet")
        verbose_name_plural = _("attempt sheets")

    def __str__(self) -> str:
        return f"sheet of attempt {self.attempt_id} ({self.key})"
