"""LTI Dynamic Registration: an LMS registers softgrade itself, through a one-time link.

Who may start one: only the holder of a registration link that softgrade staff made
(`/lti/register/<token>/`, valid for `INVITE_LIFETIME` by default, used up by the registration
it makes). The LMS administrator pastes it into the LMS, which opens it with two query
parameters: `openid_configuration` (the URL of the LMS's OpenID configuration) and
`registration_token`. Without a valid link softgrade calls nothing and stores nothing, so no one
on the internet can make softgrade register (or call) a platform.

Then softgrade:
1. fetches the LMS's OpenID configuration (the registration token as a Bearer token);
2. checks it: the issuer is on the host of the configuration URL (the spec's rule that the
   issuer matches the configuration's domain), the registration endpoint is on that same host,
   the authorization, token and keyset URLs are https, RS256 and `private_key_jwt` are
   supported when the LMS lists what it supports;
3. posts its tool configuration (lti/tool_configuration.py) to the registration endpoint with
   the registration token as a Bearer token;
4. reads the client id (and the deployment id, when the LMS sends one) from the answer and
   stores the registration (lti/registrations.py), granted the courses the link names and no
   other, with the link marked used.

Both calls go through the outbound policy (lti/outbound.py: https, public addresses, no
redirects, only a status line kept) with one allowed host, the configuration URL's: before a
registration exists, that is the only host the LMS has vouched for. The authorization, token and
keyset URLs may be elsewhere (some LMSs sign in on another host); they become the registration's
hosts, as when an administrator enters them. Any failure stores nothing and leaves the link
usable until it expires.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

import requests
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.crypto import get_random_string
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from courses.models import Course
from lti.models import RegistrationInvite
from lti.outbound import PlatformError, call_on_host
from lti.registrations import (
    PlatformDetails,
    RegistrationInvalid,
    RegistrationSaved,
    https_url_error,
    registration_save,
)
from lti.tool_configuration import TOOL_CONFIGURATION_CLAIM, ToolUrls, tool_configuration

logger = logging.getLogger("softgrade.lti")

INVITE_LIFETIME = timedelta(days=1)
PLATFORM_CONFIGURATION_CLAIM = "https://purl.imsglobal.org/spec/lti-platform-configuration"
# An OpenID configuration is a few kilobytes; anything far larger is not one.
MAX_ANSWER_BYTES = 256 * 1024
REQUIRED_ENDPOINTS = {
    "authorization_endpoint": _("authorization endpoint"),
    "token_endpoint": _("token endpoint"),
    "jwks_uri": _("keyset URL (jwks_uri)"),
    "registration_endpoint": _("registration endpoint"),
}
# What softgrade reads from the LMS, and what it asks of it, named in refusals.
OPENID_CONFIGURATION = _("OpenID configuration")
REGISTRATION_ANSWER = _("answer to the registration")
CONFIGURATION_FETCH = _("fetch the LMS's OpenID configuration")
REGISTRATION_POST = _("register with the LMS")


class RegistrationRefused(Exception):
    """A dynamic registration that cannot go on; `message` is for the LMS administrator."""

    def __init__(self, message: str, *, reason: str, status: int = 400):
        self.message = message
        self.reason = reason
        self.status = status
        super().__init__(message)


@dataclass(frozen=True)
class PlatformConfiguration:
    """What softgrade takes from an LMS's OpenID configuration."""

    issuer: str
    auth_url: str
    token_url: str
    keyset_url: str
    registration_endpoint: str
    product: str
    scopes_supported: tuple[str, ...] | None


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@transaction.atomic
def invite_create(
    *,
    created_by: AbstractBaseUser | None,
    courses: Iterable[Course] = (),
    lifetime: timedelta = INVITE_LIFETIME,
) -> tuple[RegistrationInvite, str]:
    """A new one-time registration link granting its registration `courses` (none: the
    registration reaches nothing until an administrator grants some): the invite row and its
    token (shown once, not kept)."""
    token = get_random_string(40)
    now = timezone.now()
    invite = RegistrationInvite.objects.create(
        token_hash=_token_hash(token),
        created_by=created_by,
        created_at=now,
        expires_at=now + lifetime,
    )
    invite.courses.set(courses)
    return invite, token


def invite_claim(token: str) -> RegistrationInvite:
    """Take the link for one registration, atomically: a second use, even at the same moment,
    is refused. Raises RegistrationRefused for an unknown, used or expired link."""
    now = timezone.now()
    token_hash = _token_hash(token)
    claimed = RegistrationInvite.objects.filter(
        token_hash=token_hash, used_at__isnull=True, expires_at__gt=now
    ).update(used_at=now)
    invite = RegistrationInvite.objects.filter(token_hash=token_hash).first()
    if claimed and invite is not None:
        return invite
    if invite is None:
        raise RegistrationRefused(
            gettext(
                "This registration link is not one softgrade made. Ask softgrade's administrator "
                "for a registration link (on softgrade's LTI setup page)."
            ),
            reason="unknown_invite",
            status=404,
        )
    if invite.used_at is not None:
        raise RegistrationRefused(
            gettext(
                "This registration link was already used. Ask softgrade's administrator for a "
                "new one."
            ),
            reason="invite_used",
            status=410,
        )
    raise RegistrationRefused(
        gettext("This registration link has expired. Ask softgrade's administrator for a new one."),
        reason="invite_expired",
        status=410,
    )


def _invite_release(invite: RegistrationInvite) -> None:
    RegistrationInvite.objects.filter(pk=invite.pk, registration__isnull=True).update(used_at=None)


def _json_answer(response, *, what: str) -> dict:
    # Read at most a little more than the limit: an endless answer is cut, never held whole.
    body = b""
    with response:
        try:
            for chunk in response.iter_content(64 * 1024):
                body += chunk
                if len(body) > MAX_ANSWER_BYTES:
                    raise RegistrationRefused(
                        gettext("The LMS's %(what)s is too large.") % {"what": what},
                        reason="answer_too_large",
                    )
        except requests.RequestException as exc:
            raise RegistrationRefused(
                gettext("The LMS's %(what)s broke off (%(error)s).")
                % {"what": what, "error": type(exc).__name__},
                reason="call_failed",
                status=502,
            ) from exc
    try:
        answer = json.loads(body)
    except ValueError as exc:
        raise RegistrationRefused(
            gettext("The LMS's %(what)s is not JSON.") % {"what": what}, reason="answer_not_json"
        ) from exc
    if not isinstance(answer, dict):
        raise RegistrationRefused(
            gettext("The LMS's %(what)s is not a JSON object.") % {"what": what},
            reason="answer_not_json",
        )
    return answer


def _refused_call(error: PlatformError, *, step: str) -> RegistrationRefused:
    # The LMS (or the way to it) failed, not the request the browser made: a gateway error.
    return RegistrationRefused(
        gettext("softgrade could not %(step)s: %(error)s") % {"step": step, "error": error.message},
        reason="call_failed",
        status=502,
    )


def configuration_url_check(url: str) -> str:
    """The host of the OpenID configuration URL, which must be https."""
    if not url:
        raise RegistrationRefused(
            gettext(
                "The LMS did not send its OpenID configuration URL (openid_configuration). Open "
                "this link from the LMS's tool registration page, not in a browser tab."
            ),
            reason="missing_openid_configuration",
        )
    error = https_url_error(url, label=gettext("OpenID configuration URL"), length=1000)
    if error:
        raise RegistrationRefused(error, reason="bad_openid_configuration")
    return urlsplit(url).hostname


def configuration_check(answer: dict, *, configuration_url: str) -> PlatformConfiguration:
    """Check an LMS's OpenID configuration; each problem is named in the refusal."""
    host = urlsplit(configuration_url).hostname
    errors = []
    issuer = answer.get("issuer")
    if not isinstance(issuer, str) or not issuer:
        errors.append(gettext("It names no issuer."))
    elif error := https_url_error(issuer, label=gettext("issuer"), length=255):
        errors.append(error)
    elif urlsplit(issuer).hostname != host:
        errors.append(
            gettext(
                "Its issuer %(issuer)s is not on %(host)s, the host of the configuration URL, as "
                "LTI Dynamic Registration requires."
            )
            % {"issuer": issuer, "host": host}
        )
    for key, label in REQUIRED_ENDPOINTS.items():
        value = answer.get(key)
        if not isinstance(value, str) or not value:
            errors.append(gettext("It has no %(label)s (%(key)s).") % {"label": label, "key": key})
        elif error := https_url_error(value, label=label):
            errors.append(error)
    endpoint = answer.get("registration_endpoint")
    if isinstance(endpoint, str) and endpoint and urlsplit(endpoint).hostname != host:
        errors.append(
            gettext(
                "Its registration endpoint is not on %(host)s, the host of the configuration URL."
            )
            % {"host": host}
        )
    for key, needed in (
        ("id_token_signing_alg_values_supported", "RS256"),
        ("token_endpoint_auth_methods_supported", "private_key_jwt"),
    ):
        supported = answer.get(key)
        if supported is not None and (not isinstance(supported, list) or needed not in supported):
            errors.append(
                gettext("It does not support %(needed)s (%(key)s), which LTI 1.3 requires.")
                % {"needed": needed, "key": key}
            )
    scopes = answer.get("scopes_supported")
    if scopes is not None and not (
        isinstance(scopes, list) and all(isinstance(scope, str) for scope in scopes)
    ):
        errors.append(gettext("Its scopes_supported is not a list of scopes."))
    if errors:
        raise RegistrationRefused(
            gettext("The LMS's OpenID configuration cannot be used: %(errors)s")
            % {"errors": " ".join(errors)},
            reason="bad_configuration",
        )
    platform = answer.get(PLATFORM_CONFIGURATION_CLAIM)
    family = platform.get("product_family_code") if isinstance(platform, dict) else None
    product = f"{family} at {host}" if isinstance(family, str) and family.strip() else host
    return PlatformConfiguration(
        issuer=issuer,
        auth_url=answer["authorization_endpoint"],
        token_url=answer["token_endpoint"],
        keyset_url=answer["jwks_uri"],
        registration_endpoint=answer["registration_endpoint"],
        product=product[:255],
        scopes_supported=tuple(scopes) if scopes is not None else None,
    )


def registration_request(urls: ToolUrls, *, platform: PlatformConfiguration) -> dict:
    """softgrade's tool configuration, asking only for the scopes the LMS says it supports."""
    configuration = tool_configuration(urls)
    if platform.scopes_supported is not None:
        wanted = configuration["scope"].split()
        configuration["scope"] = " ".join(s for s in wanted if s in platform.scopes_supported)
    return configuration


def _registered_ids(answer: dict) -> tuple[str, tuple[str, ...]]:
    client_id = answer.get("client_id")
    if not isinstance(client_id, str) or not client_id.strip():
        raise RegistrationRefused(
            gettext(
                "The LMS accepted the registration but sent no client id, so softgrade stored "
                "nothing. Remove softgrade's registration in the LMS and start again."
            ),
            reason="no_client_id",
        )
    claim = answer.get(TOOL_CONFIGURATION_CLAIM)
    deployment_id = claim.get("deployment_id") if isinstance(claim, dict) else None
    if deployment_id is not None and not isinstance(deployment_id, str | int):
        raise RegistrationRefused(
            gettext(
                "The LMS sent a deployment id softgrade cannot read, so softgrade stored nothing."
            ),
            reason="bad_deployment_id",
        )
    return client_id, ((str(deployment_id),) if deployment_id not in (None, "") else ())


def dynamic_register(
    *, token: str, configuration_url: str, registration_token: str, urls: ToolUrls
) -> RegistrationSaved:
    """Run one dynamic registration through the link `token` (see the module's docstring)."""
    invite = invite_claim(token)
    try:
        saved = _register(
            configuration_url=configuration_url,
            registration_token=registration_token,
            urls=urls,
            course_slugs=tuple(invite.courses.order_by("slug").values_list("slug", flat=True)),
        )
    except BaseException:
        _invite_release(invite)
        raise
    RegistrationInvite.objects.filter(pk=invite.pk).update(registration=saved.registration)
    logger.info(
        "LTI dynamic registration: %s registered as %s (client id %s, registration link %s)",
        saved.registration.issuer,
        saved.registration.name,
        saved.registration.client_id,
        invite.pk,
    )
    return saved


def _register(
    *,
    configuration_url: str,
    registration_token: str,
    urls: ToolUrls,
    course_slugs: tuple[str, ...],
):
    host = configuration_url_check(configuration_url)
    headers = {"Accept": "application/json"}
    if registration_token:
        headers["Authorization"] = f"Bearer {registration_token}"
    try:
        response = call_on_host("GET", configuration_url, host=host, headers=headers, stream=True)
    except PlatformError as error:
        raise _refused_call(error, step=CONFIGURATION_FETCH) from error
    platform = configuration_check(
        _json_answer(response, what=OPENID_CONFIGURATION), configuration_url=configuration_url
    )
    try:
        response = call_on_host(
            "POST",
            platform.registration_endpoint,
            host=host,
            json=registration_request(urls, platform=platform),
            headers={**headers, "Content-Type": "application/json"},
            stream=True,
        )
    except PlatformError as error:
        raise _refused_call(error, step=REGISTRATION_POST) from error
    client_id, deployment_ids = _registered_ids(_json_answer(response, what=REGISTRATION_ANSWER))
    details = PlatformDetails(
        issuer=platform.issuer,
        client_id=client_id,
        auth_url=platform.auth_url,
        token_url=platform.token_url,
        keyset_url=platform.keyset_url,
        deployment_ids=deployment_ids,
        name=platform.product,
        course_slugs=course_slugs,
    )
    try:
        return registration_save(details=details, create_only=True)
    except RegistrationInvalid as invalid:
        raise RegistrationRefused(
            "The LMS's registration cannot be stored: " + " ".join(invalid.errors),
            reason="cannot_store",
        ) from invalid
    except IntegrityError as exc:
        raise RegistrationRefused(
            gettext("softgrade already has this registration."), reason="cannot_store"
        ) from exc
