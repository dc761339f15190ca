"""Production's shared cache in tests: Redis on 127.0.0.1:6379, when it answers."""

from __future__ import annotations

import os
import socket

import pytest


def _redis_answers() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=1):
            return True
    except OSError:
        return False


REDIS_CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:6379/14",
        # One prefix per test process: two suites run at once on one machine (a developer's and
        # a worktree's) never count each other's requests.
        "KEY_PREFIX": f"softgrade-tests-{os.getpid()}",
    }
}
needs_redis = pytest.mark.skipif(
    not _redis_answers(), reason="needs Redis on 127.0.0.1:6379 (production's shared cache)"
)
