"""Rendered markup shared by every worker, through Django's cache (Redis in production), behind
each worker's own memo (courses/memo.py).

`courses.markup` renders a text once per process; a process that meets a text for the first
time asks here before converting it, so what any worker (or the task worker preparing attempts)
rendered is read back instead of converted again: a fresh worker, or the worker that serves a
learner's first page, finds a variant's statement already rendered. A key is what the HTML was
rendered from: the renderer's version, the kind (block, inline, title) and a digest of the
source text. An edit is a new key, so nothing is ever invalidated; entries expire after
settings.MARKUP_CACHE_SECONDS. While the cache is down, text is converted as it would be without
it: a page never fails for what it can make itself.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache

from availability.outages import CACHE_ERRORS

logger = logging.getLogger("softgrade.availability")

PREFIX = "markup"


def shared_key(*, version: int, kind: bool | str, text: str) -> str:
    """The cache key of one rendering: `shared_key(version=2, kind=True, text="x")`."""
    digest = hashlib.sha256(text.encode()).hexdigest()
    return f"{PREFIX}:{version}:{kind}:{digest}"


def shared_render[Outcome](key: str, convert: Callable[[], Outcome]) -> Outcome:
    """The outcome kept under key by any worker, else `convert()`, kept for the others."""
    try:
        outcome = cache.get(key)
    except CACHE_ERRORS as error:
        logger.warning("rendered markup not read from the shared cache: %s", error)
        return convert()
    if outcome is not None:
        return outcome
    outcome = convert()
    try:
        cache.set(key, outcome, timeout=settings.MARKUP_CACHE_SECONDS)
    except CACHE_ERRORS as error:
        logger.warning("rendered markup not kept in the shared cache: %s", error)
    return outcome
