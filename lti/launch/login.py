"""The OIDC third-party initiated login, the first step of every launch (1EdTech Security
Framework): the LMS names itself, softgrade issues a single-use nonce and a state, and the browser
goes to the LMS's authorization URL to come back with a signed launch (checked in `verify`).

The state travels in a cookie of its own as well, so the launch can prove it comes back to the
browser that started the login. Nonces live in `LaunchNonce` rows until a scheduled sweep deletes
the expired ones.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlencode

from django.utils import timezone
from django.utils.translation import gettext
from lti_tool.models import LtiDeployment, LtiRegistration

from lti.models import LaunchNonce
from lti.refusals import LaunchRefused

# A login that does not come back as a launch within this time is abandoned.
NONCE_LIFETIME = timedelta(minutes=10)
# Expired nonces are kept this long before the sweep deletes them.
NONCE_SWEEP_GRACE = timedelta(hours=1)
STATE_COOKIE_PREFIX = "sg_lti_state_"


@dataclass(frozen=True)
class LoginRedirect:
    """Where the browser goes next in the OIDC login, and the state its cookie must carry."""

    auth_url: str
    state: str
    registration: LtiRegistration


def state_cookie_name(state: str) -> str:
    # One cookie per login, so two launches in two tabs do not overwrite each other's state.
    return STATE_COOKIE_PREFIX + hashlib.sha256(state.encode()).hexdigest()[:16]


def _registration_for_login(
    *, issuer: str, client_id: str, registration_uuid: str | None
) -> LtiRegistration:
    registrations = LtiRegistration.objects.active().filter(issuer=issuer)
    if client_id:
        registrations = registrations.filter(client_id=client_id)
    if registration_uuid:
        registrations = registrations.filter(uuid=registration_uuid)
    found = list(registrations[:2])
    if not found:
        raise LaunchRefused(
            gettext(
                "This LMS is not registered with softgrade (or its registration is switched off). "
                "Ask your LMS administrator to register softgrade."
            ),
            reason="unknown_registration",
            status=403,
        )
    if len(found) > 1:
        raise LaunchRefused(
            gettext(
                "More than one softgrade registration matches this LMS; the LMS must send its "
                "client_id at login, or use the registration's own login URL."
            ),
            reason="ambiguous_registration",
        )
    return found[0]


def deployment_active(*, registration: LtiRegistration, deployment_id: str) -> LtiDeployment:
    """The registration's deployment with this id, if an administrator entered it and it is on."""
    # django-lti would create an unknown deployment on the fly; softgrade refuses it instead:
    # only deployments an administrator entered (and switched on) may launch.
    deployment = LtiDeployment.objects.filter(
        registration=registration, deployment_id=deployment_id
    ).first()
    if deployment is None:
        raise LaunchRefused(
            gettext(
                "This LMS deployment is not registered with softgrade. Ask your LMS administrator "
                "to add its deployment id in softgrade."
            ),
            reason="unknown_deployment",
            status=403,
        )
    if not deployment.is_active:
        raise LaunchRefused(
            gettext("This LMS deployment is switched off in softgrade."),
            reason="inactive_deployment",
            status=403,
        )
    return deployment


def login_initiate(
    *,
    params: Mapping[str, str],
    launch_url: str,
    registration_uuid: str | None = None,
    now: datetime | None = None,
) -> LoginRedirect:
    """Check a login initiation and issue its nonce and state; the launch URL is softgrade's own.

    The request's target_link_uri is deliberately ignored: the platform's reply always comes
    back to `launch_url`, so a forged login cannot send a learner elsewhere.
    """
    now = now or timezone.now()
    issuer = params.get("iss", "")
    login_hint = params.get("login_hint", "")
    if not issuer:
        raise LaunchRefused(
            gettext("The LMS did not say who it is (no iss)."), reason="login_missing_iss"
        )
    if not login_hint:
        raise LaunchRefused(
            gettext("The LMS did not send a login hint."), reason="login_missing_login_hint"
        )
    registration = _registration_for_login(
        issuer=issuer,
        client_id=params.get("client_id", ""),
        registration_uuid=registration_uuid,
    )
    deployment_id = params.get("lti_deployment_id", "")
    if deployment_id:
        deployment_active(registration=registration, deployment_id=deployment_id)
    nonce = secrets.token_urlsafe(32)
    state = secrets.token_urlsafe(32)
    # Expired rows are swept on a schedule (launch_nonces_sweep), never in a learner's request.
    LaunchNonce.objects.create(
        registration=registration,
        nonce=nonce,
        state=state,
        issued_at=now,
        expires_at=now + NONCE_LIFETIME,
    )
    query = {
        "scope": "openid",
        "response_type": "id_token",
        "response_mode": "form_post",
        "prompt": "none",
        "client_id": registration.client_id,
        "redirect_uri": launch_url,
        "state": state,
        "nonce": nonce,
        "login_hint": login_hint,
    }
    if params.get("lti_message_hint"):
        query["lti_message_hint"] = params["lti_message_hint"]
    separator = "&" if "?" in registration.auth_url else "?"
    return LoginRedirect(
        auth_url=f"{registration.auth_url}{separator}{urlencode(query)}",
        state=state,
        registration=registration,
    )


def launch_nonces_sweep(
    *, now: datetime | None = None, grace: timedelta = NONCE_SWEEP_GRACE
) -> int:
    """Delete the nonces expired for longer than `grace`, consumed or not; returns how many.

    A launch whose nonce row is gone is refused as unknown, so sweeping never lets a replay in;
    the grace only keeps the kinder "already used" message for a while.
    """
    now = now or timezone.now()
    deleted, _ = LaunchNonce.objects.filter(expires_at__lt=now - grace).delete()
    return deleted
