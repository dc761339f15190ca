"""Per-quiz reads kept in the cache every worker shares, keyed by the quiz's content version.

A quiz's items change only through the paths that raise its content version
(courses/content_versions.py), and every request that needs them already holds the quiz (with the
attempt, in one query), so a key of quiz and version is current by construction: a change makes
a new key and the old entry is never read again (it expires). Each exam save reads which items
to take from the posted sheet here instead of asking the database. While the cache is down the
database answers, as before.
"""

from __future__ import annotations

import logging

from django.core.cache import cache

from availability.outages import CACHE_ERRORS
from courses.models import Quiz
from grading import selectors

logger = logging.getLogger("softgrade.availability")

# An entry is never stale (a change is a new key); this only lets unused ones go.
KEPT_SECONDS = 6 * 60 * 60


def item_ids_key(quiz: Quiz) -> str:
    """`item_ids_key(quiz)` == "quiz-item-ids:12:3" for quiz 12 at content version 3."""
    return f"quiz-item-ids:{quiz.pk}:{quiz.content_version}"


def quiz_item_ids(*, quiz: Quiz) -> list[int]:
    """The ids of the quiz's items (grading.selectors.quiz_item_ids), from the shared cache when
    any worker read them at this content version."""
    key = item_ids_key(quiz)
    try:
        kept = cache.get(key)
    except CACHE_ERRORS as error:
        logger.warning("quiz items not read from the shared cache: %s", error)
        return selectors.quiz_item_ids(quiz_id=quiz.pk)
    if kept is not None:
        return kept
    ids = selectors.quiz_item_ids(quiz_id=quiz.pk)
    try:
        cache.set(key, ids, timeout=KEPT_SECONDS)
    except CACHE_ERRORS as error:
        logger.warning("quiz items not kept in the shared cache: %s", error)
    return ids
