"""A person's own settings, one profile per account, kept apart from the account itself.

A profile exists only once its person saves a setting: an account without one follows every
default (its time zone and its language: the browser's).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Profile(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    # An IANA zone name (accounts/time_zones.py checks it), blank: follow the browser's zone.
    time_zone = models.CharField(_("time zone"), max_length=64, blank=True, default="")
    # A code of settings.LANGUAGES, blank: follow the browser's (accounts/languages.py).
    language = models.CharField(
        _("language"), max_length=16, blank=True, default="", choices=settings.LANGUAGES
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("profile")
        verbose_name_plural = _("profiles")

    def __str__(self) -> str:
        return f"{self.user} · {self.time_zone or 'browser time zone'}"
