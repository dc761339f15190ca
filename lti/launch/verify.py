"""The checks on a launch's id_token (1EdTech Security Framework), the second step of a launch.

django-lti's own launch path (pylti1p3) leaves gaps that matter for a tool people must trust: a
nonce is never consumed (a captured launch can be replayed), `azp` is never checked, the keyset is
fetched without a timeout, an unknown deployment is created on the fly, and its cookie-check page
needs inline script. So softgrade runs the login (`login`) and every check here, with PyJWT, and
hands the verified claims to django-lti only to store users, contexts, memberships and resource
links (`accept`).

Every refusal is a `LaunchRefused`: a sentence for the learner, an HTTP status in the 4xx range and
a short reason for the administrator's log line.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

import jwt
from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext
from lti_tool.models import LtiDeployment, LtiRegistration
from pylti1p3.exception import LtiException
from pylti1p3.message_validators import get_validators

from lti.keysets import platform_key
from lti.launch.claims import (
    DEEP_LINKING_REQUEST,
    DEEP_LINKING_SETTINGS,
    DEPLOYMENT_ID,
    MESSAGE_TYPE,
    RESOURCE_LINK,
    RESOURCE_LINK_REQUEST,
    ROLES,
    TARGET_LINK_URI,
    VERSION,
)
from lti.launch.login import deployment_active
from lti.models import LaunchNonce
from lti.refusals import LaunchRefused

# Claims every launch must carry, beyond those PyJWT requires (iss, aud, exp, iat, nonce, sub).
REQUIRED_CLAIMS = (DEPLOYMENT_ID, MESSAGE_TYPE, VERSION, ROLES)
REQUIRED_BY_MESSAGE = {
    RESOURCE_LINK_REQUEST: (RESOURCE_LINK, TARGET_LINK_URI),
    DEEP_LINKING_REQUEST: (DEEP_LINKING_SETTINGS,),
}


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


def _unverified(id_token: str) -> tuple[dict, dict]:
    try:
        header = jwt.get_unverified_header(id_token)
        body = jwt.decode(id_token, options={"verify_signature": False})
    except jwt.PyJWTError as exc:
        raise LaunchRefused(
            gettext("The LMS sent a launch softgrade cannot read."), reason="id_token_malformed"
        ) from exc
    return header, body


def _verify_signature_and_claims(
    *, id_token: str, header: dict, registration: LtiRegistration
) -> dict:
    if header.get("alg") != "RS256":
        raise LaunchRefused(
            gettext("This launch is not signed the way LTI 1.3 requires (RS256)."),
            reason=f"alg_not_allowed ({header.get('alg')})",
            status=401,
        )
    kid = header.get("kid")
    if not kid:
        raise LaunchRefused(
            gettext("This launch does not say which key signed it (no kid)."),
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
            gettext("The launch lacks the required “%(claim)s” claim.") % {"claim": exc.claim},
            reason=f"missing_claim {exc.claim}",
        ) from exc
    except jwt.ExpiredSignatureError as exc:
        raise LaunchRefused(
            gettext("This launch has expired. Go back to the LMS and open the activity again."),
            reason="expired",
            status=401,
        ) from exc
    except jwt.ImmatureSignatureError as exc:
        raise LaunchRefused(
            gettext("This launch claims to be issued in the future; check the LMS's clock."),
            reason="iat_in_future",
            status=401,
        ) from exc
    except jwt.InvalidIssuerError as exc:
        raise LaunchRefused(
            gettext("This launch comes from a different LMS than the one that started the login."),
            reason="wrong_iss",
            status=401,
        ) from exc
    except jwt.InvalidAudienceError as exc:
        raise LaunchRefused(
            gettext("This launch was meant for another tool."), reason="wrong_aud", status=401
        ) from exc
    except jwt.InvalidSignatureError as exc:
        raise LaunchRefused(
            gettext("This launch's signature does not match the LMS's key."),
            reason="bad_signature",
            status=401,
        ) from exc
    except jwt.PyJWTError as exc:
        raise LaunchRefused(
            gettext("The LMS sent a launch softgrade cannot accept."),
            reason=f"invalid_id_token ({type(exc).__name__})",
            status=401,
        ) from exc
    audiences = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
    azp = claims.get("azp")
    # With several audiences the token must say which one it was issued for (OIDC core 3.1.3.7).
    if len(audiences) > 1 and not azp:
        raise LaunchRefused(
            gettext("This launch names several audiences but not the one it is for (no azp)."),
            reason="missing_azp",
            status=401,
        )
    if azp is not None and azp != registration.client_id:
        raise LaunchRefused(
            gettext("This launch was issued for another tool (azp)."),
            reason="wrong_azp",
            status=401,
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
            gettext(
                "This launch was already used. Go back to the LMS and open the activity again."
            ),
            reason="nonce_replayed",
            status=401,
        )
    raise LaunchRefused(
        gettext(
            "This launch took too long to arrive. Go back to the LMS and open the activity again."
        ),
        reason="nonce_expired",
        status=401,
    )


def _message_check(claims: dict) -> None:
    for claim in REQUIRED_CLAIMS:
        if claims.get(claim) in (None, ""):
            raise LaunchRefused(
                gettext("The launch lacks the required “%(claim)s” claim.")
                % {"claim": claim.rsplit("/", 1)[-1]},
                reason=f"missing_claim {claim}",
            )
    if claims[VERSION] != "1.3.0":
        raise LaunchRefused(
            gettext("softgrade speaks LTI 1.3.0 only."), reason=f"wrong_version ({claims[VERSION]})"
        )
    message_type = claims[MESSAGE_TYPE]
    if message_type not in REQUIRED_BY_MESSAGE:
        raise LaunchRefused(
            gettext("softgrade does not handle this kind of LTI message."),
            reason=f"unsupported_message_type ({message_type})",
        )
    for claim in REQUIRED_BY_MESSAGE[message_type]:
        if not claims.get(claim):
            raise LaunchRefused(
                gettext("The launch lacks the required “%(claim)s” claim.")
                % {"claim": claim.rsplit("/", 1)[-1]},
                reason=f"missing_claim {claim}",
            )
    if not isinstance(claims[ROLES], list):
        raise LaunchRefused(gettext("The launch's roles are not a list."), reason="roles_malformed")
    # pylti1p3's message validators add the finer rules (resource link id, deep-linking
    # accept types and presentation targets).
    for validator in get_validators():
        if validator.can_validate(claims):
            try:
                validator.validate(claims)
            except LtiException as exc:
                raise LaunchRefused(
                    gettext("The launch is not a valid LTI message: %(error)s.") % {"error": exc},
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
        raise LaunchRefused(
            gettext("The LMS sent no launch (no id_token)."), reason="missing_id_token"
        )
    if not state:
        raise LaunchRefused(
            gettext("The LMS sent no state with the launch."), reason="missing_state"
        )
    if not LaunchNonce.objects.filter(state=state).exists():
        # Checked before the cookie: the cookie's name derives from the state, so an altered
        # state would otherwise look like a browser that dropped the cookie.
        raise LaunchRefused(
            gettext(
                "This launch's state is not one softgrade issued: it was altered on the way, or "
                "the launch was not started from softgrade's login. Go back to the LMS and open "
                "the activity again."
            ),
            reason="unknown_state",
        )
    if not state_cookie:
        raise LaunchRefused(
            gettext(
                "Your browser did not send back softgrade's login cookie, so this launch cannot be "
                "trusted. If the LMS shows softgrade inside a frame, your browser may block its "
                "cookies: open the activity in a new window or tab from the LMS."
            ),
            reason="missing_state_cookie",
        )
    if not secrets.compare_digest(state_cookie, state):
        raise LaunchRefused(
            gettext("This launch does not belong to the login your browser started."),
            reason="state_mismatch",
        )
    header, unverified = _unverified(id_token)
    nonce = unverified.get("nonce")
    if not nonce or not isinstance(nonce, str):
        raise LaunchRefused(
            gettext("The launch lacks the required “nonce” claim."), reason="missing_nonce"
        )
    nonce_row = LaunchNonce.objects.select_related("registration").filter(nonce=nonce).first()
    if nonce_row is None:
        raise LaunchRefused(
            gettext("This launch was not started from softgrade's login."),
            reason="unknown_nonce",
            status=401,
        )
    if not secrets.compare_digest(nonce_row.state, state):
        raise LaunchRefused(
            gettext("This launch does not belong to the login your browser started."),
            reason="nonce_state_mismatch",
            status=401,
        )
    registration = nonce_row.registration
    if not registration.is_active:
        raise LaunchRefused(
            gettext("This LMS's registration is switched off in softgrade."),
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
            gettext("The launch lacks the required “deployment_id” claim."),
            reason=f"missing_claim {DEPLOYMENT_ID}",
        )
    deployment = deployment_active(registration=registration, deployment_id=deployment_id)
    _message_check(claims)
    return VerifiedLaunch(
        registration=registration, deployment=deployment, header=header, claims=claims
    )
