"""What a page says when it cannot do what was asked: a 404 naming what is missing (also for
another learner's object), or a service's refusal in the learner's words."""

from __future__ import annotations

from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404
from django.utils.translation import gettext, gettext_noop

from grading.services.errors import IdempotencyConflict, ServiceError

# A stale copy of a page (the browser's Back button) re-sends a token already spent on another
# answer; the service refuses it, and the learner needs words about pages, not keys.
STALE_PAGE = gettext_noop(
    "That copy of the page was already used to send a different answer, so nothing was "
    "recorded. This is a fresh copy: enter your answer again."
)


def refusal_message(error: ServiceError) -> str:
    return gettext(STALE_PAGE) if isinstance(error, IdempotencyConflict) else error.message


def found(read, *, missing: str, **lookup):
    """What a selector finds, or a 404 saying what is missing (also for another learner's)."""
    try:
        return read(**lookup)
    except ObjectDoesNotExist as exc:
        raise Http404(missing) from exc
