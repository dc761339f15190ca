"""Storing an LMS's registration without the admin: one check and one save for `manage.py
lti_register` and for dynamic registration.

A registration is identified by its issuer and client id (django-lti's unique pair). Saving one
that exists updates its name and URLs and adds or switches on the deployments given; it never
removes or switches off a deployment (that stays a deliberate act in the admin). Likewise it
grants the courses given (by slug) to the whole registration and never takes one away.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import transaction
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from lti_tool.models import LtiDeployment, LtiRegistration

from courses.models import Course
from lti.models import CourseGrant

# django-lti's URL fields keep 200 characters, its other fields 255.
URL_LENGTH = LtiRegistration._meta.get_field("auth_url").max_length
TEXT_LENGTH = LtiRegistration._meta.get_field("client_id").max_length
URL_FIELDS = {
    "issuer": _("issuer"),
    "auth_url": _("authorization URL"),
    "token_url": _("token URL"),
    "keyset_url": _("keyset URL"),
}


class RegistrationInvalid(Exception):
    """The details cannot be stored; `errors` says what is wrong with each, in words."""

    def __init__(self, errors: list[str]):
        self.errors = errors
        super().__init__("; ".join(errors))


@dataclass(frozen=True)
class PlatformDetails:
    """What softgrade stores about an LMS: its issuer, client id, endpoints and deployments."""

    issuer: str
    client_id: str
    auth_url: str
    token_url: str
    keyset_url: str
    deployment_ids: tuple[str, ...] = ()
    name: str = ""
    audience: str = ""
    # Slugs of the softgrade courses the registration is granted (lti.tenancy).
    course_slugs: tuple[str, ...] = ()


@dataclass
class RegistrationSaved:
    registration: LtiRegistration
    created: bool
    deployments_added: list[str] = field(default_factory=list)
    deployments_switched_on: list[str] = field(default_factory=list)
    courses_granted: list[str] = field(default_factory=list)


def https_url_error(value: str, *, label: str, length: int = URL_LENGTH) -> str | None:
    """Why `value` is not an https URL softgrade can store, or None."""
    if not value:
        return gettext("The %(label)s is missing.") % {"label": label}
    if len(value) > length:
        return gettext("The %(label)s is longer than %(length)s characters.") % {
            "label": label,
            "length": length,
        }
    try:
        URLValidator(schemes=["https"])(value)
    except ValidationError:
        return gettext("The %(label)s must be an https URL (got “%(value)s”).") % {
            "label": label,
            "value": value[:100],
        }
    if urlsplit(value).username or urlsplit(value).password:
        return gettext("The %(label)s must not carry a user name or password.") % {"label": label}
    return None


def details_errors(details: PlatformDetails) -> list[str]:
    """Every reason the details cannot be stored, empty when they can."""
    errors = []
    for attribute, label in URL_FIELDS.items():
        length = TEXT_LENGTH if attribute == "issuer" else URL_LENGTH
        error = https_url_error(getattr(details, attribute), label=label, length=length)
        if error:
            errors.append(error)
    issuer = urlsplit(details.issuer)
    if details.issuer and (issuer.query or issuer.fragment):
        errors.append(gettext("The issuer must have no query or fragment."))
    for value, label in (
        (details.client_id, gettext("client id")),
        (details.name, gettext("name")),
        (details.audience, gettext("audience")),
    ):
        if value != value.strip():
            errors.append(gettext("The %(label)s has spaces around it.") % {"label": label})
        if len(value) > TEXT_LENGTH:
            errors.append(
                gettext("The %(label)s is longer than %(length)s characters.")
                % {"label": label, "length": TEXT_LENGTH}
            )
    if not details.client_id:
        errors.append(gettext("The %(label)s is missing.") % {"label": gettext("client id")})
    seen = set()
    for deployment_id in details.deployment_ids:
        if not deployment_id.strip():
            errors.append(gettext("A deployment id is empty."))
        elif len(deployment_id) > TEXT_LENGTH:
            errors.append(
                gettext("The deployment id “%(id)s…” is too long.") % {"id": deployment_id[:40]}
            )
        elif deployment_id in seen:
            errors.append(
                gettext("The deployment id “%(id)s” is given twice.") % {"id": deployment_id}
            )
        seen.add(deployment_id)
    repeated = {slug for slug in details.course_slugs if details.course_slugs.count(slug) > 1}
    errors.extend(
        gettext("The course “%(slug)s” is given twice.") % {"slug": slug}
        for slug in sorted(repeated)
    )
    return errors


def default_name(issuer: str) -> str:
    return urlsplit(issuer).hostname or issuer


def registration_save(*, details: PlatformDetails, create_only: bool = False) -> RegistrationSaved:
    """Store the registration and its deployments (active), creating or updating it by issuer
    and client id; with `create_only`, an existing one is a RegistrationInvalid. Nothing is
    stored when the details are invalid (checked before the database is touched)."""
    errors = details_errors(details)
    if errors:
        raise RegistrationInvalid(errors)
    return _save(details, create_only=create_only)


def courses_by_slug(slugs: Iterable[str]) -> dict[str, Course]:
    """The courses of these slugs; RegistrationInvalid naming each slug no course has."""
    slugs = list(slugs)
    courses = {course.slug: course for course in Course.objects.filter(slug__in=slugs)}
    unknown = [slug for slug in slugs if slug not in courses]
    if unknown:
        raise RegistrationInvalid(
            [gettext("softgrade has no course “%(slug)s”.") % {"slug": slug} for slug in unknown]
        )
    return courses


@transaction.atomic
def _save(details: PlatformDetails, *, create_only: bool) -> RegistrationSaved:
    courses = courses_by_slug(details.course_slugs)
    registration = (
        LtiRegistration.objects.select_for_update()
        .filter(issuer=details.issuer, client_id=details.client_id)
        .first()
    )
    created = registration is None
    if registration is None:
        registration = LtiRegistration(issuer=details.issuer, client_id=details.client_id)
    elif create_only:
        raise RegistrationInvalid(
            [
                gettext(
                    "softgrade already has a registration of %(issuer)s with the client id "
                    "“%(client_id)s”; change it in the admin or with manage.py lti_register."
                )
                % {"issuer": details.issuer, "client_id": details.client_id}
            ]
        )
    registration.name = details.name or registration.name or default_name(details.issuer)
    registration.auth_url = details.auth_url
    registration.token_url = details.token_url
    registration.keyset_url = details.keyset_url
    registration.audience = details.audience or registration.audience
    registration.save()
    saved = RegistrationSaved(registration=registration, created=created)
    existing = {
        deployment.deployment_id: deployment
        for deployment in LtiDeployment.objects.filter(registration=registration)
    }
    for deployment_id in details.deployment_ids:
        deployment = existing.get(deployment_id)
        if deployment is None:
            LtiDeployment.objects.create(
                registration=registration, deployment_id=deployment_id, is_active=True
            )
            saved.deployments_added.append(deployment_id)
        elif not deployment.is_active:
            deployment.is_active = True
            deployment.save(update_fields=["is_active", "datetime_modified"])
            saved.deployments_switched_on.append(deployment_id)
    for slug in details.course_slugs:
        _, granted = CourseGrant.objects.get_or_create(
            registration=registration, course=courses[slug], deployment=None
        )
        if granted:
            saved.courses_granted.append(slug)
    return saved
