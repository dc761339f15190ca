"""Integrations as typed service functions: issuing, checking and revoking API keys, and
provisioning learners. The admin, the management commands and the API call these and nothing else.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
import uuid
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from config.statements import Statement, columns, instance
from courses.models import Course
from integrations.models import ApiKey, Integration, Learner

# Recording every use would make each API read a write; once a minute is precise enough to tell
# a live key from a forgotten one.
LAST_USED_PRECISION = timedelta(minutes=1)
_PREFIX_BYTES = 6  # 12 hex characters: a collision is retried, never silently shared
_SECRET_BYTES = 32  # 256 bits of entropy: a plain SHA-256 digest is then as good as a slow hash


# API calls look their key up by prefix (the answer endpoint only when it holds no recent copy):
# compiled once per connection (config/statements.py).
_KEY_BY_PREFIX = Statement(
    lambda prefix: (
        ApiKey.objects.filter(prefix=prefix).order_by().values_list(*columns(ApiKey))[:1]
    ),
    prefix="(statement marker: key prefix)",
)


# A key read from the database stays with this process for a while, so the busiest endpoint
# need not read it again on every request. Only an endpoint that confirms the key in its own read
# takes this copy (the answer endpoint: the read that finds the variant also requires the key
# to be in force, unchanged), since a key can be revoked, re-issued or moved at any moment.
RECENT_KEY_SECONDS = 60.0
RECENT_KEYS_AT_MOST = 256
_recent_keys: dict[str, tuple[float, tuple]] = {}  # prefix -> (read at, monotonic; the row)
_LAST_USED_COLUMN = columns(ApiKey).index("last_used_at")


class InvalidApiKey(Exception):
    """A token that does not open the API; the message is safe to show to the caller."""

    code = "invalid_api_key"

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


class RevokedApiKey(InvalidApiKey):
    code = "api_key_revoked"


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def api_key_issue(*, key: ApiKey, created_by: AbstractBaseUser | None = None) -> str:
    """Give an unsaved key its secret and save it; returns the token, which is never stored."""
    for _ in range(3):
        prefix = secrets.token_hex(_PREFIX_BYTES)
        token = f"{ApiKey.TOKEN_PREFIX}{prefix}_{secrets.token_urlsafe(_SECRET_BYTES)}"
        key.prefix = prefix
        key.digest = _digest(token)
        if created_by is not None and created_by.is_authenticated:
            key.created_by = created_by
        try:
            with transaction.atomic():
                key.save()
        except IntegrityError:
            continue  # the random prefix is taken: draw another
        return token
    raise RuntimeError("Could not draw an unused API key prefix.")


def api_key_create(
    *,
    integration: Integration,
    name: str,
    courses: Iterable[Course],
    created_by: AbstractBaseUser | None = None,
) -> tuple[ApiKey, str]:
    """A new key for an integration, reaching only `courses`; returns the key and its token."""
    with transaction.atomic():
        key = ApiKey(integration=integration, name=name)
        token = api_key_issue(key=key, created_by=created_by)
        key.courses.set(list(courses))
    return key, token


def api_key_revoke(*, key: ApiKey, now: datetime | None = None) -> ApiKey:
    """Revoke a key at once; revoking twice keeps the first time."""
    if key.revoked_at is None:
        key.revoked_at = now or timezone.now()
        ApiKey.objects.filter(pk=key.pk, revoked_at__isnull=True).update(revoked_at=key.revoked_at)
    _recent_keys.pop(key.prefix, None)
    return key


def api_key_authenticate(
    *, token: str, now: datetime | None = None, recent: bool = False
) -> ApiKey:
    """The live key a token belongs to, recording its use.

    Raises InvalidApiKey for a malformed or unknown token and RevokedApiKey for a revoked one.
    With `recent`, the key may be this process's copy of a read up to RECENT_KEY_SECONDS old,
    and then comes with `recent` set: the caller must confirm it in its own read (see
    grading.api.selectors.variant_to_answer) and call api_key_confirm when that read finds
    nothing.
    """
    unknown = InvalidApiKey("This API key is not valid.")
    if not token.startswith(ApiKey.TOKEN_PREFIX):
        raise unknown
    prefix, separator, _ = token.removeprefix(ApiKey.TOKEN_PREFIX).partition("_")
    if not separator or len(prefix) != 2 * _PREFIX_BYTES:
        raise unknown
    copy = _recent_keys.get(prefix) if recent else None
    from_copy = copy is not None and time.monotonic() - copy[0] < RECENT_KEY_SECONDS
    if from_copy:
        row = copy[1]
    else:
        found = _KEY_BY_PREFIX.rows(prefix=prefix)
        row = found[0] if found else None
        if row is not None:
            _remember(prefix, row)
    key = _in_force(row, _digest(token))
    key.recent = from_copy
    now = now or timezone.now()
    if key.last_used_at is None or now - key.last_used_at >= LAST_USED_PRECISION:
        key.last_used_at = now
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
        if prefix in _recent_keys:
            read_at, row = _recent_keys[prefix]
            used = (*row[:_LAST_USED_COLUMN], now, *row[_LAST_USED_COLUMN + 1 :])
            _recent_keys[prefix] = (read_at, used)
    return key


def api_key_confirm(*, key: ApiKey) -> ApiKey:
    """Read a key again, for a caller whose own read of it (its copy being `recent`) found
    nothing: the key as it is now, or InvalidApiKey / RevokedApiKey when the copy no longer
    holds (revoked, re-issued, deleted)."""
    _recent_keys.pop(key.prefix, None)
    found = _KEY_BY_PREFIX.rows(prefix=key.prefix)
    fresh = _in_force(found[0] if found else None, key.digest)
    _remember(key.prefix, found[0])
    return fresh


def _in_force(row: tuple | None, digest: str) -> ApiKey:
    """The key in a row read by prefix, if the token's digest matches and it is not revoked
    (a revoked key stays revoked, so even an old copy of the row tells)."""
    key = instance(ApiKey, row, 0) if row is not None else None
    # Compared in constant time, so response timing says nothing about how much of a guess matched.
    if key is None or not hmac.compare_digest(key.digest, digest):
        raise InvalidApiKey("This API key is not valid.")
    if key.revoked_at is not None:
        raise RevokedApiKey("This API key has been revoked; ask an instructor for a new one.")
    return key


def api_key_forget_recent() -> None:
    """Drop every recent copy of a key held by this process (tests start from none)."""
    _recent_keys.clear()


def _remember(prefix: str, row: tuple) -> None:
    if len(_recent_keys) >= RECENT_KEYS_AT_MOST and prefix not in _recent_keys:
        # Many keys in turn: start over rather than track which is least recent.
        _recent_keys.clear()
    _recent_keys[prefix] = (time.monotonic(), row)


def learner_provision(
    *,
    integration: Integration,
    external_id: str,
    name: str | None = None,
    email: str | None = None,
) -> tuple[Learner, bool]:
    """Find the integration's learner by external id, or create them; returns (learner, created).

    Name and email, when given, replace what is stored, so provisioning again keeps them current.
    """
    existing = learner_find(integration=integration, external_id=external_id)
    if existing is not None:
        return learner_update(learner=existing, name=name, email=email), False
    try:
        with transaction.atomic():
            user = get_user_model()(
                # Never shown and never typed: a learner from an integration has no password and
                # signs in only through the integration.
                username=f"lms{integration.pk}-{uuid.uuid4().hex[:20]}",
                first_name=(name or "")[:150],
                email=email or "",
            )
            user.set_unusable_password()
            user.save()
            learner = Learner.objects.create(
                integration=integration,
                external_id=external_id,
                user=user,
                name=name or "",
                email=email or "",
            )
    except IntegrityError:
        # The same learner provisioned by a concurrent request: theirs is the one.
        existing = learner_find(integration=integration, external_id=external_id)
        if existing is None:
            raise
        return learner_update(learner=existing, name=name, email=email), False
    return learner, True


def learner_find(*, integration: Integration, external_id: str) -> Learner | None:
    return (
        Learner.objects.select_related("user")
        .filter(integration=integration, external_id=external_id)
        .first()
    )


def learner_update(
    *, learner: Learner, name: str | None = None, email: str | None = None
) -> Learner:
    """Change a learner's name or email (None leaves a value as it is); the user follows."""
    changed = []
    if name is not None and name != learner.name:
        learner.name = name
        learner.user.first_name = name[:150]
        changed.append("name")
    if email is not None and email != learner.email:
        learner.email = email
        learner.user.email = email
        changed.append("email")
    if changed:
        with transaction.atomic():
            learner.save(update_fields=[*changed, "updated_at"])
            learner.user.save(
                update_fields=[{"name": "first_name"}.get(field, field) for field in changed]
            )
    return learner
