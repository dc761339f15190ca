"""One answer per request, however often it arrives: idempotency keys and double clicks."""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from grading.models import Response
from grading.services.errors import IdempotencyConflict

# Two identical submissions this close together are one double click, not two tries.
DOUBLE_SUBMIT_WINDOW = timedelta(seconds=5)


def answer_fingerprint(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def mark_replayed(response: Response) -> Response:
    """A response recorded by an earlier request, marked as handed back again (not created)."""
    response.replayed = True
    return response


def replay_of_key(*, user, idempotency_key: str, fingerprint: str) -> Response | None:
    """The response first recorded under this key, or None; a different body is a conflict."""
    if not idempotency_key:
        return None
    earlier = Response.objects.filter(user=user, idempotency_key=idempotency_key).first()
    if earlier is None:
        return None
    return keyed_replay(earlier, fingerprint=fingerprint)


def keyed_replay(earlier: Response, *, fingerprint: str) -> Response:
    """The response recorded under a key, handed back for a request under the same key; a
    different body under that key is a conflict."""
    if earlier.request_fingerprint != fingerprint:
        raise IdempotencyConflict(
            gettext("This Idempotency-Key was already used for a different answer; use a new key.")
        )
    return mark_replayed(earlier)


def response_create(*, idempotency_key: str, fingerprint: str, **fields) -> Response:
    """Insert one response; a concurrent twin with the same key yields the first one's row."""
    try:
        with transaction.atomic():
            return Response.objects.create(
                idempotency_key=idempotency_key, request_fingerprint=fingerprint, **fields
            )
    except IntegrityError:
        if not idempotency_key:
            raise
        replay = replay_of_key(
            user=fields["user"], idempotency_key=idempotency_key, fingerprint=fingerprint
        )
        if replay is None:
            raise
        return replay
