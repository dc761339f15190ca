"""Who reaches softgrade through the REST API: integrations (an LMS or a course platform's
backend), their API keys and the learners they provision.

A key is stored only as the SHA-256 digest of its token: the token is shown once, when it is made,
and a stolen database cannot be turned back into working keys. The short public prefix finds the
row without scanning every digest.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from courses.models import Course

# URL-safe without escaping, so an external id can sit in a path: /api/v1/learners/<external_id>/.
EXTERNAL_ID_PATTERN = r"^[A-Za-z0-9._~@:+-]{1,255}$"
external_id_validator = RegexValidator(
    EXTERNAL_ID_PATTERN,
    "Use 1 to 255 letters, digits or . _ ~ @ : + - (the LMS's own id for the learner).",
    code="invalid",
)


class Integration(models.Model):
    """One LMS or course platform: its keys and the learners it provisions belong to it."""

    name = models.CharField(max_length=200, unique=True, verbose_name=_("name"))
    notes = models.TextField(
        blank=True, help_text=_("Who runs it and whom to contact."), verbose_name=_("notes")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("integration")
        verbose_name_plural = _("integrations")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ApiKey(models.Model):
    TOKEN_PREFIX = "sg_"

    integration = models.ForeignKey(
        Integration,
        on_delete=models.CASCADE,
        related_name="api_keys",
        verbose_name=_("integration"),
    )
    name = models.CharField(
        max_length=100,
        help_text=_("What uses this key, e.g. gradebook sync."),
        verbose_name=_("name"),
    )
    prefix = models.CharField(
        max_length=16,
        unique=True,
        editable=False,
        help_text=_("Public part that finds the key."),
        verbose_name=_("prefix"),
    )
    digest = models.CharField(
        max_length=64,
        editable=False,
        help_text=_("SHA-256 of the token."),
        verbose_name=_("digest"),
    )
    courses = models.ManyToManyField(
        Course,
        related_name="api_keys",
        help_text=_("The only courses this key reaches."),
        verbose_name=_("courses"),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        editable=False,
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    last_used_at = models.DateTimeField(
        null=True, blank=True, editable=False, verbose_name=_("last used at")
    )
    revoked_at = models.DateTimeField(
        null=True, blank=True, editable=False, verbose_name=_("revoked at")
    )

    # Not a column: True when integrations.services.api_key_authenticate gave this process's
    # recent copy of the key, which the caller confirms in its own read.
    recent = False

    class Meta:
        verbose_name_plural = _("API keys")
        ordering = ["-created_at"]
        verbose_name = _("API key")

    def __str__(self) -> str:
        return f"{self.name} ({self.TOKEN_PREFIX}{self.prefix}…)"

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None


class LtiTie(models.Model):
    """An LTI registration of the same LMS as the integration: learners that LMS launched in
    through this registration are the integration's too, so its keys get their LMS `sub` with
    their grades (teaching.api.grade_rows). A registration is tied to one integration at most,
    so no other integration ever reads its users' ids."""

    integration = models.ForeignKey(
        Integration,
        on_delete=models.CASCADE,
        related_name="lti_ties",
        verbose_name=_("integration"),
    )
    registration = models.OneToOneField(
        "lti_tool.LtiRegistration",
        on_delete=models.CASCADE,
        related_name="+",
        help_text=_("The LTI registration this integration's LMS launches learners through."),
        verbose_name=_("registration"),
    )

    class Meta:
        verbose_name = _("LTI registration of the same LMS")
        verbose_name_plural = _("LTI registrations of the same LMS")

    def __str__(self) -> str:
        return f"{self.integration} ↔ {self.registration}"


class Learner(models.Model):
    """A learner as an integration knows them; their records hang off an ordinary Django user."""

    # PROTECT: deleting an integration must not silently orphan its learners' records.
    integration = models.ForeignKey(
        Integration,
        on_delete=models.PROTECT,
        related_name="learners",
        verbose_name=_("integration"),
    )
    external_id = models.CharField(
        max_length=255,
        validators=[external_id_validator],
        help_text=_("The integration's own id for the learner."),
        verbose_name=_("external id"),
    )
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="integration_learner",
        verbose_name=_("user"),
    )
    name = models.CharField(max_length=200, blank=True, verbose_name=_("name"))
    email = models.EmailField(blank=True, verbose_name=_("email"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("learner")
        verbose_name_plural = _("learners")
        ordering = ["integration", "external_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["integration", "external_id"], name="learner_unique_external_id"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.external_id} ({self.integration})"
