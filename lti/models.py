"""What softgrade keeps about LTI 1.3 beyond django-lti's registrations, users and contexts.

django-lti (app `lti_tool`) stores platform registrations, deployments, platform users, contexts,
memberships, resource links and the tool's keys. This app adds the extra hosts softgrade may call
for a registration, the courses an administrator granted it, nonces that a launch consumes once,
which softgrade account an LMS user is, what softgrade content a resource link opens, which links
each LMS user launched from, the LMS gradebook column (line item) of a link, every score sent to it
with the outcome of each try, roster syncs and the one-time links an LMS registers itself by.
"""

from __future__ import annotations

import re

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from lti_tool.models import LtiDeployment, LtiRegistration, LtiResourceLink, LtiUser

from accounts.moments import moment_text
from courses.models import Course, Lesson, Quiz

# A DNS name of dot-separated labels (letters, digits, hyphens), with at least one dot.
HOST_NAME = re.compile(r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}")


class PlatformHosts(models.Model):
    """Hosts softgrade may call for a registration beyond those of its own URLs (lti.outbound).

    Some LMSs serve their services from another host than their issuer (a school's own host for
    line items and rosters, say); an administrator lists those hosts here.
    """

    registration = models.OneToOneField(
        LtiRegistration,
        on_delete=models.CASCADE,
        related_name="softgrade_hosts",
        verbose_name=_("registration"),
    )
    extra_hosts = models.TextField(
        blank=True,
        help_text=_(
            "One host name per line (no scheme, no path), e.g. school.lms.example.edu; "
            "*.lms.example.edu allows every host under lms.example.edu. softgrade also calls "
            "the hosts of the registration's issuer, authorization, token and keyset URLs."
        ),
        verbose_name=_("extra hosts"),
    )

    class Meta:
        verbose_name = _("extra hosts")
        verbose_name_plural = _("extra hosts")

    def __str__(self) -> str:
        return _("hosts of %(registration)s") % {"registration": self.registration}

    def clean(self) -> None:
        for entry in self.host_list():
            name = entry.removeprefix("*.")
            if not HOST_NAME.fullmatch(name):
                message = _("“%(entry)s” is not a host name (no scheme, port or path).")
                raise ValidationError({"extra_hosts": message % {"entry": entry}})

    def host_list(self) -> list[str]:
        return [entry.lower().rstrip(".") for entry in self.extra_hosts.split()]


class CourseGrant(models.Model):
    """A softgrade course an LMS registration may reach (lti.tenancy decides, for every path),
    granted by an administrator: through every deployment, or through the one it names."""

    registration = models.ForeignKey(
        LtiRegistration,
        on_delete=models.CASCADE,
        related_name="softgrade_course_grants",
        verbose_name=_("registration"),
    )
    course = models.ForeignKey(
        Course, on_delete=models.CASCADE, related_name="lti_grants", verbose_name=_("course")
    )
    deployment = models.ForeignKey(
        LtiDeployment,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        help_text=_(
            "Only launches through this deployment reach the course; empty for every "
            "deployment of the registration."
        ),
        verbose_name=_("deployment"),
    )
    granted_at = models.DateTimeField(default=timezone.now, verbose_name=_("granted at"))

    class Meta:
        verbose_name = _("course granted")
        verbose_name_plural = _("courses granted")
        constraints = [
            # A unique index holds NULLs distinct: the grant to every deployment needs its own.
            models.UniqueConstraint(
                fields=["registration", "course"],
                condition=Q(deployment__isnull=True),
                name="lti_grant_once_per_registration",
            ),
            models.UniqueConstraint(
                fields=["registration", "course", "deployment"],
                condition=Q(deployment__isnull=False),
                name="lti_grant_once_per_deployment",
            ),
        ]

    def __str__(self) -> str:
        named = {"course": self.course, "registration": self.registration}
        if self.deployment_id:
            named["deployment"] = self.deployment.deployment_id
            return _("%(course)s for %(registration)s (deployment %(deployment)s)") % named
        return _("%(course)s for %(registration)s") % named

    def clean(self) -> None:
        if (
            self.deployment_id
            and self.registration_id
            and self.deployment.registration_id != self.registration_id
        ):
            raise ValidationError({"deployment": _("This deployment is another registration's.")})


class RegistrationInvite(models.Model):
    """A one-time dynamic registration link (/lti/register/<token>/) made by softgrade staff,
    naming the courses the registration it makes is granted.

    Only its token's SHA-256 is kept: the link is shown once, to the staff member who made it.
    A registration that succeeds uses it up; one that fails leaves it as it was.
    """

    token_hash = models.CharField(max_length=64, unique=True, verbose_name=_("token hash"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))
    expires_at = models.DateTimeField(verbose_name=_("expires at"))
    # Set while a registration runs and kept once it succeeded; two LMSs can never share a link.
    used_at = models.DateTimeField(null=True, blank=True, verbose_name=_("used at"))
    registration = models.ForeignKey(
        LtiRegistration,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("registration"),
    )
    courses = models.ManyToManyField(
        Course,
        blank=True,
        related_name="+",
        help_text=_("The courses the registration made through this link is granted."),
        verbose_name=_("courses"),
    )

    class Meta:
        verbose_name_plural = _("registration links")
        ordering = ["-created_at"]
        verbose_name = _("registration link")

    def __str__(self) -> str:
        named = {"created": moment_text(self.created_at), "expires": moment_text(self.expires_at)}
        if self.used_at:
            return _("registration link of %(created)s (used)") % named
        return _("registration link of %(created)s (open until %(expires)s)") % named


class LaunchNonce(models.Model):
    """A nonce issued at an OIDC login, bound to its state; a launch consumes it exactly once.

    A launch whose nonce softgrade never issued, whose nonce expired or was already consumed is
    refused, so a captured id_token cannot be replayed.
    """

    registration = models.ForeignKey(
        LtiRegistration, on_delete=models.CASCADE, related_name="+", verbose_name=_("registration")
    )
    nonce = models.CharField(max_length=64, unique=True, verbose_name=_("nonce"))
    state = models.CharField(max_length=64, unique=True, verbose_name=_("state"))
    issued_at = models.DateTimeField(default=timezone.now, verbose_name=_("issued at"))
    expires_at = models.DateTimeField(verbose_name=_("expires at"))
    consumed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("consumed at"))

    class Meta:
        verbose_name = _("launch nonce")
        verbose_name_plural = _("launch nonces")
        indexes = [models.Index(fields=["expires_at"], name="lti_nonce_expires")]

    def __str__(self) -> str:
        return f"nonce {self.nonce[:8]}… ({'consumed' if self.consumed_at else 'open'})"


class LtiIdentity(models.Model):
    """An LMS user, (registration, `sub`), and the one softgrade account made for them.

    The row is written in the transaction that creates the account, so it is proof that
    softgrade made that account for this identity and for no one else: a launch signs in only
    the account its identity row names, never one found by its user name. The same `sub` under
    another registration (even of the same issuer) is another identity and another account.
    """

    registration = models.ForeignKey(
        LtiRegistration,
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,  # the unique (registration, sub) index serves it
        verbose_name=_("registration"),
    )
    sub = models.CharField(max_length=255, verbose_name=_("sub"))
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="lti_identity",
        verbose_name=_("user"),
    )
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("LTI identity")
        verbose_name_plural = _("LTI identities")
        constraints = [
            # Two first launches at the same moment make one identity: the second insert fails
            # and that launch signs in the account the first one made.
            models.UniqueConstraint(
                fields=["registration", "sub"], name="lti_identity_one_per_registration_sub"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.sub} @ {self.registration} → {self.user}"


class LinkTarget(models.Model):
    """The softgrade content an LMS resource link opens: a quiz, or a lesson's practice set."""

    class Kind(models.TextChoices):
        QUIZ = "quiz", _("Quiz")
        PRACTICE = "practice", _("Practice set")

    resource_link = models.OneToOneField(
        LtiResourceLink,
        on_delete=models.CASCADE,
        related_name="softgrade_target",
        verbose_name=_("resource link"),
    )
    kind = models.CharField(max_length=16, choices=Kind.choices, verbose_name=_("kind"))
    quiz = models.ForeignKey(
        Quiz,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="lti_targets",
        verbose_name=_("quiz"),
    )
    lesson = models.ForeignKey(
        Lesson,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="lti_targets",
        help_text=_("For a practice set: the lesson whose problems it practises."),
        verbose_name=_("lesson"),
    )
    mastery_passback = models.BooleanField(
        default=False,
        help_text=_("For a practice set: send problems mastered to the LMS gradebook."),
        verbose_name=_("mastery passback"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("link target")
        verbose_name_plural = _("link targets")
        constraints = [
            models.CheckConstraint(
                condition=(Q(kind="quiz") & Q(quiz__isnull=False) & Q(lesson__isnull=True))
                | (Q(kind="practice") & Q(lesson__isnull=False) & Q(quiz__isnull=True)),
                name="lti_target_quiz_or_practice_set",
            ),
        ]

    def __str__(self) -> str:
        content = self.quiz.slug if self.quiz_id else f"practice {self.lesson.slug}"
        return f"{self.resource_link} → {content}"

    @property
    def content(self) -> Quiz | Lesson:
        return self.quiz if self.quiz_id else self.lesson

    @property
    def sends_scores(self) -> bool:
        return self.kind == self.Kind.QUIZ or self.mastery_passback


class LinkLaunch(models.Model):
    """An LMS user launched from this link, signed in as this softgrade account.

    Scores go back only to the links a learner launched from: a quiz placed twice in a course,
    or in two courses, gets the learner's score only in the gradebook column they opened.
    """

    target = models.ForeignKey(
        LinkTarget, on_delete=models.CASCADE, related_name="launches", verbose_name=_("target")
    )
    lti_user = models.ForeignKey(
        LtiUser, on_delete=models.CASCADE, related_name="+", verbose_name=_("lti user")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="lti_link_launches",
        db_index=False,  # the index on (user, target) serves lookups by user
        verbose_name=_("user"),
    )
    first_launched_at = models.DateTimeField(
        default=timezone.now, verbose_name=_("first launched at")
    )
    last_launched_at = models.DateTimeField(
        default=timezone.now, verbose_name=_("last launched at")
    )

    class Meta:
        verbose_name = _("link launch")
        verbose_name_plural = _("link launches")
        constraints = [
            models.UniqueConstraint(
                fields=["target", "lti_user"], name="lti_link_launch_once_per_user"
            ),
        ]
        indexes = [models.Index(fields=["user", "target"], name="lti_link_launch_user")]

    def __str__(self) -> str:
        return _("%(user)s launched %(target)s") % {"user": self.lti_user, "target": self.target}


# Imported last so Django finds the models (they name this module's models only by label).
from lti.passback_models import LineItem, PassbackOutcome, ScorePassback  # noqa: E402, F401
from lti.roster_models import RosterSync  # noqa: E402, F401
