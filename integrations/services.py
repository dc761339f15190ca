"""Integrations as typed service functions: issuing, checking and revoking API keys, and
provisioning learners. The admin, the management commands and the API call these and nothing else.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from courses.models import Course
from integrations.models import ApiKey, Integration, Learner

# Recording every use would make each API read a write; once a minute is precise enough to tell
# a live key from a forgotten one.
LAST_USED_PRECISION = timedelta(minutes=1)
_PREFIX_BYTES = 6  # 12 hex characters: a collision is retried, never silently shared
_SECRET_BYTES = 32  # 256 bits of entropy: a plain SHA-256 digest is then as good as a slow hash


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
    return key


def api_key_authenticate(*, token: str, now: datetime | None = None) -> ApiKey:
    """The live key a token belongs to, read afresh on every call, recording its use.

    Raises InvalidApiKey for a malformed or unknown token and RevokedApiKey for a revoked one, so
    a key revoked or re-issued is refused by the very next request, whichever worker serves it.
    """
    # Messages for the API caller, in the request's language.
    unknown = InvalidApiKey(gettext("This API key is not valid."))
    if not token.startswith(ApiKey.TOKEN_PREFIX):
        raise unknown
    prefix, separator, _ = token.removeprefix(ApiKey.TOKEN_PREFIX).partition("_")
    if not separator or len(prefix) != 2 * _PREFIX_BYTES:
        raise unknown
    key = ApiKey.objects.filter(prefix=prefix).first()
    # Compared in constant time, so response timing says nothing about how much of a guess matched.
    if key is None or not hmac.compare_digest(key.digest, _digest(token)):
        raise unknown
    if key.revoked_at is not None:
        raise RevokedApiKey(
            gettext("This API key has been revoked; ask an instructor for a new one.")
        )
    now = now or timezone.now()
    if key.last_used_at is None or now - key.last_used_at >= LAST_USED_PRECISION:
        key.last_used_at = now
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
    return key


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
