"""softgrade's own signing keys: the newest active one signs, the JWKS publishes it and its
predecessors for an overlap period after a rotation.

Keys are django-lti's `Key` rows. Its own `rotate_keys` command deactivates keys by age alone,
which can pull a key out of the JWKS the moment it is replaced; here a replaced key stays
published for `LTI_KEY_OVERLAP_DAYS` after its successor appeared, so a platform that cached
the keyset still verifies what softgrade signed just before the rotation.
"""

from __future__ import annotations

import itertools
import uuid
from datetime import datetime, timedelta

import jwt
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from lti_tool.models import Key


def _overlap() -> timedelta:
    return timedelta(days=settings.LTI_KEY_OVERLAP_DAYS)


def signing_key() -> Key:
    """The newest active key; the first one is made when softgrade first needs to sign."""
    key = Key.objects.active().order_by("-datetime_created", "-pk").first()
    return key or Key.objects.generate()


def key_id(key: Key) -> str:
    return key.as_jwk()["kid"]


def published_keys(*, now: datetime | None = None) -> list[Key]:
    """Active keys still within their overlap: the newest, and any replaced less than
    LTI_KEY_OVERLAP_DAYS ago."""
    now = now or timezone.now()
    keys = list(Key.objects.active().order_by("-datetime_created", "-pk"))
    published = keys[:1]
    for newer, older in itertools.pairwise(keys):
        if newer.datetime_created > now - _overlap():
            published.append(older)
    return published


def jwks(*, now: datetime | None = None) -> dict:
    """The tool's public JSON Web Key Set, as platforms fetch it.

    A platform may fetch and cache the set before softgrade has signed anything, so the first
    signing key is made here too: an empty set would make the first signed message unverifiable.
    """
    signing_key()
    return {"keys": [key.as_jwk() for key in published_keys(now=now)]}


@transaction.atomic
def key_rotate(*, now: datetime | None = None) -> tuple[Key, int]:
    """Make a new signing key; retire keys whose overlap has ended. Returns (new key, retired)."""
    now = now or timezone.now()
    new_key = Key.objects.generate()
    new_key.datetime_created = now
    new_key.save(update_fields=["datetime_created"])
    keep = {key.pk for key in published_keys(now=now)}
    retired = Key.objects.active().exclude(pk__in=keep).update(is_active=False)
    return new_key, retired


def sign(claims: dict, *, now: datetime | None = None) -> str:
    """A compact RS256 JWT of the claims, signed with the signing key and naming it by kid."""
    key = signing_key()
    now = now or timezone.now()
    body = {"iat": int(now.timestamp()), "jti": uuid.uuid4().hex, **claims}
    return jwt.encode(body, key.private_key, algorithm="RS256", headers={"kid": key_id(key)})
