"""The OIDC third-party login and the checks on a launch's id_token (1EdTech Security Framework).

django-lti's own launch path (pylti1p3) leaves gaps that matter for a tool people must trust: a
nonce is never consumed (a captured launch can be replayed), `azp` is never checked, the keyset is
fetched without a timeout, an unknown deployment is created on the fly, and its cookie-check page
needs inline script. So softgrade runs the login and every check here, with PyJWT, and hands the
verified claims to django-lti only to store users, contexts, memberships and resource links.

Every refusal is a `LaunchRefused`: a sentence for the learner, an HTTP status in the 4xx range and
a short reason for the administrator's log line.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlencode

import jwt
from django.conf import settings
from django.utils import timezone
from lti_tool.models import LtiDeployment, LtiRegistration
from pylti1p3.exception import LtiException
from pylti1p3.message_validators import get_validators

from lti.keysets import platform_key
from lti.models import LaunchNonce
from lti.refusals import LaunchRefused

logger = logging.getLogger("softgrade.lti")

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
DEPLOYMENT_ID = CLAIM + "deployment_id"
MESSAGE_TYPE = CLAIM + "message_type"
VERSION = CLAIM + "version"
ROLES = CLAIM + "roles"
RESOURCE_LINK = CLAIM + "resource_link"
TARGET_LINK_URI = CLAIM + "target_link_uri"
CUSTOM = CLAIM + "custom"
CONTEXT = CLAIM + "context"
LAUNCH_PRESENTATION = CLAIM + "launch_presentation"
DEEP_LINKING_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
AGS_ENDPOINT = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"

RESOURCE_LINK_REQUEST = "LtiResourceLinkRequest"
DEEP_LINKING_REQUEST = "LtiDeepLinkingRequest"

# A login that does not come back as a launch within this time is abandoned.
NONCE_LIFETIME = timedelta(minutes=10)
# Expired nonces are kept this long before the sweep deletes them.
NONCE_SWEEP_GRACE = timedelta(hours=1)
STATE_COOKIE_PREFIX = "sg_lti_state_"

# Claims every launch must carry, beyond those PyJWT requires (iss, aud, exp, iat, nonce, sub).
REQUIRED_CLAIMS = (DEPLOYMENT_ID, MESSAGE_TYPE, VERSION, ROLES)
REQUIRED_BY_MESSAGE = {
    RESOURCE_LINK_REQUEST: (RESOURCE_LINK, TARGET_LINK_URI),
    DEEP_LINKING_REQUEST: (DEEP_LINKING_SETTINGS,),
}


@dataclass(frozen=True)
class LoginRedirect:
    """Where the browser goes next in the OIDC login, and the state its cookie must carry."""

    auth_url: str
    state: str
    registration: LtiRegistration


@dataclass(frozen=True)
class VerifiedLaunch:
    """An id_token whose signature, claims, nonce, state and deployment all checked out."""

    registration: LtiRegistration
    deployment: LtiDeployment
    header: dict
    claims: dict

    @property
    def message_type(self) -> str:
        return self.claims[MESSAGE_TYPE]


def state_cookie_name(state: str) -> str:
    # One cookie per login, so two launches in two tabs do not overwrite each other's state.
    return STATE_COOKIE_PREFIX + hashlib.sha256(state.encode()).hexdigest()[:16]


# ---------------------------------------------------------------------------------------------
# OIDC third-party initiated login
# ---------------------------------------------------------------------------------------------


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
            "This LMS is not registered with softgrade (or its registration is switched off). "
            "Ask your LMS administrator to register softgrade.",
            reason="unknown_registration",
            status=403,
        )
    if len(found) > 1:
        raise LaunchRefused(
            "More than one softgrade registration matches this LMS; the LMS must send its "
            "client_id at login, or use the registration's own login URL.",
            reason="ambiguous_registration",
        )
    return found[0]


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
        raise LaunchRefused("The LMS did not say who it is (no iss).", reason="login_missing_iss")
    if not login_hint:
        raise LaunchRefused("The LMS did not send a login hint.", reason="login_missing_login_hint")
    registration = _registration_for_login(
        issuer=issuer,
        client_id=params.get("client_id", ""),
        registration_uuid=registration_uuid,
    )
    deployment_id = params.get("lti_deployment_id", "")
    if deployment_id:
        _deployment_active(registration=registration, deployment_id=deployment_id)
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


# ---------------------------------------------------------------------------------------------
# The launch: state, nonce, signature, claims, deployment, message
# ---------------------------------------------------------------------------------------------


def _unverified(id_token: str) -> tuple[dict, dict]:
    try:
        header = jwt.get_unverified_header(id_token)
        body = jwt.decode(id_token, options={"verify_signature": False})
    except jwt.PyJWTError as exc:
        raise LaunchRefused(
            "The LMS sent a launch softgrade cannot read.", reason="id_token_malformed"
        ) from exc
    return header, body


def _deployment_active(*, registration: LtiRegistration, deployment_id: str) -> LtiDeployment:
    # django-lti would create an unknown deployment on the fly; softgrade refuses it instead:
    # only deployments an administrator entered (and switched on) may launch.
    deployment = LtiDeployment.objects.filter(
        registration=registration, deployment_id=deployment_id
    ).first()
    if deployment is None:
        raise LaunchRefused(
            "This LMS deployment is not registered with softgrade. Ask your LMS administrator "
            "to add its deployment id in softgrade.",
            reason="unknown_deployment",
            status=403,
        )
    if not deployment.is_active:
        raise LaunchRefused(
            "This LMS deployment is switched off in softgrade.",
            reason="inactive_deployment",
            status=403,
        )
    return deployment


def _verify_signature_and_claims(
    *, id_token: str, header: dict, registration: LtiRegistration
) -> dict:
    if header.get("alg") != "RS256":
        raise LaunchRefused(
            "This launch is not signed the way LTI 1.3 requires (RS256).",
            reason=f"alg_not_allowed ({header.get('alg')})",
            status=401,
        )
    kid = header.get("kid")
    if not kid:
        raise LaunchRefused(
            "This launch does not say which key signed it (no kid).",
            reason="missing_kid",
            status=401,
        )
    key = platform_key(registration=registration, kid=kid)
    try:
        claims = jwt.decode(
            id_token,
            key,
            algorithms=["RS256"],
            audience=registration.client_id,
            issuer=registration.issuer,
            leeway=settings.LTI_CLOCK_LEEWAY,
            options={"require": ["iss", "aud", "exp", "iat", "nonce", "sub"]},
        )
    except jwt.MissingRequiredClaimError as exc:
        raise LaunchRefused(
            f"The launch lacks the required “{exc.claim}” claim.",
            reason=f"missing_claim {exc.claim}",
        ) from exc
    except jwt.ExpiredSignatureError as exc:
        raise LaunchRefused(
            "This launch has expired. Go back to the LMS and open the activity again.",
            reason="expired",
            status=401,
        ) from exc
    except jwt.ImmatureSignatureError as exc:
        raise LaunchRefused(
            "This launch claims to be issued in the future; check the LMS's clock.",
            reason="iat_in_future",
            status=401,
        ) from exc
    except jwt.InvalidIssuerError as exc:
        raise LaunchRefused(
            "This launch comes from a different LMS than the one that started the login.",
            reason="wrong_iss",
            status=401,
        ) from exc
    except jwt.InvalidAudienceError as exc:
        raise LaunchRefused(
            "This launch was meant for another tool.", reason="wrong_aud", status=401
        ) from exc
    except jwt.InvalidSignatureError as exc:
        raise LaunchRefused(
            "This launch's signature does not match the LMS's key.",
            reason="bad_signature",
            status=401,
        ) from exc
    except jwt.PyJWTError as exc:
        raise LaunchRefused(
            "The LMS sent a launch softgrade cannot accept.",
            reason=f"invalid_id_token ({type(exc).__name__})",
            status=401,
        ) from exc
    audiences = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
    azp = claims.get("azp")
    # With several audiences the token must say which one it was issued for (OIDC core 3.1.3.7).
    if len(audiences) > 1 and not azp:
        raise LaunchRefused(
            "This launch names several audiences but not the one it is for (no azp).",
            reason="missing_azp",
            status=401,
        )
    if azp is not None and azp != registration.client_id:
        raise LaunchRefused(
            "This launch was issued for another tool (azp).", reason="wrong_azp", status=401
        )
    return claims


def _nonce_consume(*, nonce_row: LaunchNonce, now: datetime) -> None:
    # One UPDATE decides: of two simultaneous uses of a nonce, exactly one consumes it.
    consumed = LaunchNonce.objects.filter(
        pk=nonce_row.pk, consumed_at__isnull=True, expires_at__gt=now
    ).update(consumed_at=now)
    if consumed:
        return
    nonce_row.refresh_from_db()
    if nonce_row.consumed_at is not None:
        raise LaunchRefused(
            "This launch was already used. Go back to the LMS and open the activity again.",
            reason="nonce_replayed",
            status=401,
        )
    raise LaunchRefused(
        "This launch took too long to arrive. Go back to the LMS and open the activity again.",
        reason="nonce_expired",
        status=401,
    )


def _message_check(claims: dict) -> None:
    for claim in REQUIRED_CLAIMS:
        if claims.get(claim) in (None, ""):
            raise LaunchRefused(
                f"The launch lacks the required “{claim.rsplit('/', 1)[-1]}” claim.",
                reason=f"missing_claim {claim}",
            )
    if claims[VERSION] != "1.3.0":
        raise LaunchRefused(
            "softgrade speaks LTI 1.3.0 only.", reason=f"wrong_version ({claims[VERSION]})"
        )
    message_type = claims[MESSAGE_TYPE]
    if message_type not in REQUIRED_BY_MESSAGE:
        raise LaunchRefused(
            "softgrade does not handle this kind of LTI message.",
            reason=f"unsupported_message_type ({message_type})",
        )
    for claim in REQUIRED_BY_MESSAGE[message_type]:
        if not claims.get(claim):
            raise LaunchRefused(
                f"The launch lacks the required “{claim.rsplit('/', 1)[-1]}” claim.",
                reason=f"missing_claim {claim}",
            )
    if not isinstance(claims[ROLES], list):
        raise LaunchRefused("The launch's roles are not a list.", reason="roles_malformed")
    # pylti1p3's message validators add the finer rules (resource link id, deep-linking
    # accept types and presentation targets).
    for validator in get_validators():
        if validator.can_validate(claims):
            try:
                validator.validate(claims)
            except LtiException as exc:
                raise LaunchRefused(
                    f"The launch is not a valid LTI message: {exc}.",
                    reason=f"invalid_message ({exc})",
                ) from exc


def launch_verify(
    *,
    id_token: str,
    state: str,
    state_cookie: str | None,
    now: datetime | None = None,
) -> VerifiedLaunch:
    """Run every check on a launch, consuming its nonce; raises LaunchRefused on the first miss.

    Order: the state is one softgrade issued and matches its cookie; the nonce softgrade issued
    with that state, the signature with the key named by kid, the claims (iss, aud, azp, exp,
    iat), the nonce consumed once, the deployment, then the message type, version and required
    claims.
    """
    now = now or timezone.now()
    if not id_token:
        raise LaunchRefused("The LMS sent no launch (no id_token).", reason="missing_id_token")
    if not state:
        raise LaunchRefused("The LMS sent no state with the launch.", reason="missing_state")
    if not LaunchNonce.objects.filter(state=state).exists():
        # Checked before the cookie: the cookie's name derives from the state, so an altered
        # state would otherwise look like a browser that dropped the cookie.
        raise LaunchRefused(
            "This launch's state is not one softgrade issued: it was altered on the way, or the "
            "launch was not started from softgrade's login. Go back to the LMS and open the "
            "activity again.",
            reason="unknown_state",
        )
    if not state_cookie:
        raise LaunchRefused(
            "Your browser did not send back softgrade's login cookie, so this launch cannot be "
            "trusted. If the LMS shows softgrade inside a frame, your browser may block its "
            "cookies: open the activity in a new window or tab from the LMS.",
            reason="missing_state_cookie",
        )
    if not secrets.compare_digest(state_cookie, state):
        raise LaunchRefused(
            "This launch does not belong to the login your browser started.",
            reason="state_mismatch",
        )
    header, unverified = _unverified(id_token)
    nonce = unverified.get("nonce")
    if not nonce or not isinstance(nonce, str):
        raise LaunchRefused("The launch lacks the required “nonce” claim.", reason="missing_nonce")
    nonce_row = LaunchNonce.objects.select_related("registration").filter(nonce=nonce).first()
    if nonce_row is None:
        raise LaunchRefused(
            "This launch was not started from softgrade's login.",
            reason="unknown_nonce",
            status=401,
        )
    if not secrets.compare_digest(nonce_row.state, state):
        raise LaunchRefused(
            "This launch does not belong to the login your browser started.",
            reason="nonce_state_mismatch",
            status=401,
        )
    registration = nonce_row.registration
    if not registration.is_active:
        raise LaunchRefused(
            "This LMS's registration is switched off in softgrade.",
            reason="inactive_registration",
            status=403,
        )
    claims = _verify_signature_and_claims(
        id_token=id_token, header=header, registration=registration
    )
    _nonce_consume(nonce_row=nonce_row, now=now)
    deployment_id = claims.get(DEPLOYMENT_ID)
    if not deployment_id:
        raise LaunchRefused(
            "The launch lacks the required “deployment_id” claim.",
            reason=f"missing_claim {DEPLOYMENT_ID}",
        )
    deployment = _deployment_active(registration=registration, deployment_id=deployment_id)
    _message_check(claims)
    return VerifiedLaunch(
        registration=registration, deployment=deployment, header=header, claims=claims
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


def refusal_log(refusal: LaunchRefused, *, step: str, params: Mapping[str, str]) -> None:
    """One log line per refusal, with what an administrator needs to find the cause."""
    issuer = params.get("iss", "")
    if not issuer and params.get("id_token"):
        try:
            issuer = jwt.decode(params["id_token"], options={"verify_signature": False}).get(
                "iss", ""
            )
        except jwt.PyJWTError:
            issuer = "(unreadable id_token)"
    logger.warning(
        "LTI %s refused (%s): reason=%s issuer=%s detail=%s",
        step,
        refusal.status,
        refusal.reason,
        json.dumps(issuer),
        refusal.message,
    )
