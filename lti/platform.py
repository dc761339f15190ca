"""What softgrade asks of an LMS over HTTP: access tokens, line items, scores and rosters.

Every call goes through `lti.outbound`: a timeout (LTI_HTTP_TIMEOUT), https only, the
registration's own hosts only, no private addresses, no redirects, no error body kept. Access
tokens come from the OAuth2 client-credentials grant with a client assertion signed by
softgrade's key (1EdTech Security Framework 4.1) and are cached until shortly before they expire.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from django.core.cache import cache
from lti_tool.models import LtiRegistration

from lti import keys
from lti.outbound import PlatformError, call

SCOPE_LINEITEM = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCOPE_LINEITEM_READONLY = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly"
SCOPE_SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
SCOPE_NRPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"

SCORE_CONTENT_TYPE = "application/vnd.ims.lis.v1.score+json"
LINEITEM_CONTENT_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
LINEITEMS_CONTENT_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
MEMBERSHIPS_CONTENT_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

# A cached token is dropped this long before the LMS says it expires.
TOKEN_EXPIRY_MARGIN = 60
# A roster larger than this many pages is cut short rather than followed forever.
MAX_ROSTER_PAGES = 200


def _token_cache_key(registration: LtiRegistration, scopes: tuple[str, ...]) -> str:
    digest = hashlib.sha256(" ".join(scopes).encode()).hexdigest()[:16]
    return f"lti:token:{registration.pk}:{digest}"


def access_token(*, registration: LtiRegistration, scopes: tuple[str, ...]) -> str:
    """A bearer token for these scopes, from the cache or the LMS's token endpoint."""
    scopes = tuple(sorted(scopes))
    cache_key = _token_cache_key(registration, scopes)
    token = cache.get(cache_key)
    if token:
        return token
    now = int(time.time())
    assertion = keys.sign(
        {
            "iss": registration.client_id,
            "sub": registration.client_id,
            "aud": registration.audience or registration.token_url,
            "exp": now + 300,
        }
    )
    response = call(
        "POST",
        registration.token_url,
        registration=registration,
        data={
            "grant_type": "client_credentials",
            "client_assertion_type": CLIENT_ASSERTION_TYPE,
            "client_assertion": assertion,
            "scope": " ".join(scopes),
        },
        headers={"Accept": "application/json"},
    )
    try:
        body = response.json()
        token = body["access_token"]
    except (ValueError, KeyError, TypeError) as exc:
        raise PlatformError("The LMS's token endpoint sent no access_token.") from exc
    lifetime = int(body.get("expires_in") or 3600)
    cache.set(cache_key, token, max(lifetime - TOKEN_EXPIRY_MARGIN, 1))
    return token


def access_token_forget(*, registration: LtiRegistration, scopes: tuple[str, ...]) -> None:
    """Drop a cached token the LMS no longer accepts (it answered 401)."""
    cache.delete(_token_cache_key(registration, tuple(sorted(scopes))))


def scores_url(lineitem_url: str) -> str:
    """The score endpoint of a line item: its path plus /scores, query string kept."""
    parts = urlsplit(lineitem_url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))


def score_post(*, registration: LtiRegistration, lineitem_url: str, score: dict) -> int:
    """Publish one score to a line item; returns the HTTP status the LMS answered."""
    scopes = (SCOPE_SCORE,)
    token = access_token(registration=registration, scopes=scopes)
    try:
        response = call(
            "POST",
            scores_url(lineitem_url),
            registration=registration,
            json=score,
            headers={"Authorization": f"Bearer {token}", "Content-Type": SCORE_CONTENT_TYPE},
        )
    except PlatformError as error:
        if error.status == 401:
            access_token_forget(registration=registration, scopes=scopes)
        raise
    return response.status_code


@dataclass(frozen=True)
class PlatformLineItem:
    url: str
    label: str
    score_maximum: float | None


def _line_item(body: dict) -> PlatformLineItem:
    return PlatformLineItem(
        url=body["id"], label=body.get("label", ""), score_maximum=body.get("scoreMaximum")
    )


def line_item_find(
    *, registration: LtiRegistration, lineitems_url: str, resource_link_id: str, resource_id: str
) -> PlatformLineItem | None:
    """The LMS's line item already made for this link and resource, if any."""
    scopes = (SCOPE_LINEITEM,)
    token = access_token(registration=registration, scopes=scopes)
    response = call(
        "GET",
        lineitems_url,
        registration=registration,
        params={"resource_link_id": resource_link_id, "resource_id": resource_id},
        headers={"Authorization": f"Bearer {token}", "Accept": LINEITEMS_CONTENT_TYPE},
    )
    try:
        items = response.json()
    except ValueError as exc:
        raise PlatformError("The LMS's line items are not JSON.") from exc
    for item in items if isinstance(items, list) else []:
        # Filters are optional for the LMS, so the match is checked here too.
        if (
            isinstance(item, dict)
            and item.get("id")
            and item.get("resourceLinkId") == resource_link_id
            and item.get("resourceId", resource_id) == resource_id
        ):
            return _line_item(item)
    return None


def line_item_create(
    *,
    registration: LtiRegistration,
    lineitems_url: str,
    resource_link_id: str,
    resource_id: str,
    label: str,
    score_maximum: float,
) -> PlatformLineItem:
    """Make the gradebook column for a link."""
    token = access_token(registration=registration, scopes=(SCOPE_LINEITEM,))
    response = call(
        "POST",
        lineitems_url,
        registration=registration,
        json={
            "scoreMaximum": score_maximum,
            "label": label,
            "resourceLinkId": resource_link_id,
            "resourceId": resource_id,
            "tag": "softgrade",
        },
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": LINEITEM_CONTENT_TYPE,
            "Accept": LINEITEM_CONTENT_TYPE,
        },
    )
    try:
        return _line_item(response.json())
    except (ValueError, KeyError, TypeError) as exc:
        raise PlatformError("The LMS made a line item but sent back no id.") from exc


def memberships(*, registration: LtiRegistration, memberships_url: str) -> list[dict]:
    """Every member of a course from the Names and Role Provisioning Service, all pages."""
    token = access_token(registration=registration, scopes=(SCOPE_NRPS,))
    members: list[dict] = []
    url: str | None = memberships_url
    for _ in range(MAX_ROSTER_PAGES):
        if not url:
            break
        # Each page, and the next link the LMS names, passes the outbound policy again.
        response = call(
            "GET",
            url,
            registration=registration,
            headers={"Authorization": f"Bearer {token}", "Accept": MEMBERSHIPS_CONTENT_TYPE},
        )
        try:
            page = response.json()
        except ValueError as exc:
            raise PlatformError("The LMS's roster is not JSON.") from exc
        members.extend(m for m in page.get("members", []) if isinstance(m, dict))
        url = response.links.get("next", {}).get("url")
    return members
