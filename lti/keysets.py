"""An LMS's public keys, for checking the signature of its launches.

A keyset is cached for ten minutes. A launch naming a kid the cached keyset lacks may mean the
LMS rotated its keys, so the keyset is fetched again, but at most once per registration per
minute, counted in the shared cache so every worker agrees: a stream of forged launches with
random kids costs one fetch a minute, not one per launch. The fetch goes through the outbound
policy (lti.outbound) like every other call to an LMS.
"""

from __future__ import annotations

import hashlib

import jwt
from django.core.cache import cache
from django.utils.translation import gettext
from lti_tool.models import LtiRegistration

from lti import outbound
from lti.refusals import LaunchRefused

KEYSET_CACHE_SECONDS = 600
# At most one refetch for an unknown kid per registration in this many seconds.
KEYSET_REFETCH_SECONDS = 60


def _keyset_cache_key(registration: LtiRegistration) -> str:
    return "lti:keyset:" + hashlib.sha256(registration.keyset_url.encode()).hexdigest()


def refetch_cache_key(registration: LtiRegistration) -> str:
    return f"lti:keyset-refetch:{registration.pk}"


def keyset_fetch(*, registration: LtiRegistration) -> dict:
    """The registration's keyset from the LMS, cached; a LaunchRefused when it cannot be had."""
    try:
        response = outbound.call(
            "GET",
            registration.keyset_url,
            registration=registration,
            headers={"Accept": "application/json"},
        )
        keyset = response.json()
    except (outbound.PlatformError, ValueError) as exc:
        detail = exc.message if isinstance(exc, outbound.PlatformError) else "not JSON"
        raise LaunchRefused(
            gettext(
                "softgrade could not fetch the LMS's public keys to check this launch. "
                "Please try again in a minute."
            ),
            reason=f"keyset_unavailable ({detail})",
        ) from exc
    if not isinstance(keyset, dict) or not isinstance(keyset.get("keys"), list):
        raise LaunchRefused(
            gettext("The LMS's public keyset is not a JSON Web Key Set."), reason="keyset_malformed"
        )
    cache.set(_keyset_cache_key(registration), keyset, KEYSET_CACHE_SECONDS)
    return keyset


def _key_in(keyset: dict, kid: str) -> jwt.PyJWK | None:
    for candidate in keyset["keys"]:
        if isinstance(candidate, dict) and candidate.get("kid") == kid:
            try:
                return jwt.PyJWK(candidate)
            except jwt.PyJWTError as exc:
                raise LaunchRefused(
                    gettext("The LMS's key for this launch cannot be read."),
                    reason="key_unreadable",
                ) from exc
    return None


def platform_key(*, registration: LtiRegistration, kid: str) -> jwt.PyJWK:
    """The platform's public key named by `kid`: from the cached keyset, or from a fresh one
    (fetched when none is cached, or once a minute when the cached one lacks the kid)."""
    keyset = cache.get(_keyset_cache_key(registration))
    fetched = keyset is None
    if fetched:
        keyset = keyset_fetch(registration=registration)
    key = _key_in(keyset, kid)
    # cache.add is atomic in every backend: of all workers, one wins the minute's refetch.
    if (
        key is None
        and not fetched
        and cache.add(refetch_cache_key(registration), 1, KEYSET_REFETCH_SECONDS)
    ):
        key = _key_in(keyset_fetch(registration=registration), kid)
    if key is None:
        raise LaunchRefused(
            gettext("This launch was signed with a key the LMS does not publish."),
            reason="unknown_kid",
            status=401,
        )
    return key
