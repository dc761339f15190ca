"""Rate limits per API key, per signed-in learner and per anonymous address.

A fixed window counted with the cache's atomic increment, whatever the rate: on Redis (what
production uses) one command, a script that adds to the counter and gives a new window's
counter its lifetime; on any other cache an incr, and an add per window. (DRF's stock throttle
keeps a list of every request time in the window and rewrites it on each request, which grows
with the rate and loses counts between workers.) The counters live in Django's default cache,
which production points at a cache shared by every worker (CACHE_URL), so a limit holds for
the whole deployment.

A worker takes its requests from the shared counter in blocks (`block_size`): one round trip
to the cache per block, not per request. A block is cut to what is left of the limit, so the
counter never admits more than the limit; what a worker holds unused when another runs dry is
under BLOCK_SHARE of the limit, so near the limit a caller may be refused that much early.
Small limits take blocks of one and are counted exactly.
"""

from __future__ import annotations

import threading
import time
import weakref

from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from integrations.models import ApiKey

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
# INCRBY starts a missing counter at the block's size; only then does the window's counter
# need its lifetime. One script is one atomic command: no MULTI/EXEC, and no counter left
# without an expiry.
_COUNT_SCRIPT = """
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
if count == tonumber(ARGV[2]) then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return count
"""
BLOCK_SHARE = 1 / 200  # a worker's unused block is under 0.5% of the limit
BLOCK_AT_MOST = 16
_LEFT_AT_MOST = 1024  # counters a worker holds part of a block for, before it lets all go
# Requests left in this worker's blocks, by counter (the counter's name holds its window).
_left: dict[str, int] = {}
_left_lock = threading.Lock()  # the development server serves requests in threads
# Django's Redis backend builds a new client object on every call (~45 µs, more than the
# round trip); one script per cache backend, over the backend's own connection pool, is enough.
_redis_counters: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _redis_counter(backend: RedisCache):
    counter = _redis_counters.get(backend)
    if counter is None:
        client = backend._cache.get_client(write=True)
        counter = _redis_counters[backend] = client.register_script(_COUNT_SCRIPT)
    return counter


def parse_rate(rate: str) -> tuple[int, int]:
    """'3000/minute' -> (3000, 60)."""
    count, period = rate.split("/")
    return int(count), _PERIODS[period.strip()[0]]


def forget_blocks() -> None:
    """Let go of what is left of this worker's blocks (tests start each from an empty cache)."""
    with _left_lock:
        _left.clear()


def block_size(limit: int) -> int:
    """How many requests a worker takes from a counter at once: 15 of 3000, 1 of 300."""
    return max(1, min(BLOCK_AT_MOST, int(limit * BLOCK_SHARE)))


class _WindowThrottle(BaseThrottle):
    scope = ""

    def ident(self, request) -> str | None:
        """Who the limit counts, or None when this throttle does not apply to the request."""
        raise NotImplementedError

    def allow_request(self, request, view) -> bool:
        ident = self.ident(request)
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
        if ident is None or rate is None:
            return True
        limit, period = parse_rate(rate)
        now = time.time()
        window = int(now // period)
        key = f"throttle:{self.scope}:{ident}:{window}"
        self._wait = (window + 1) * period - now
        return self._admit(key, limit, period)

    @classmethod
    def _admit(cls, key: str, limit: int, period: int) -> bool:
        """Admit one request: from what is left of this worker's block for the counter, or
        from a new block, cut to what is left of the limit."""
        with _left_lock:
            left = _left.pop(key, 0)
            if left > 1:
                _left[key] = left - 1
        if left:
            return True
        size = block_size(limit)
        granted = min(size, limit - (cls._count(key, period, size) - size))
        if granted > 1:
            with _left_lock:
                if len(_left) >= _LEFT_AT_MOST:
                    _left.clear()  # many callers at once: let their blocks go, never overrun
                _left[key] = _left.get(key, 0) + granted - 1
        return granted > 0

    @staticmethod
    def _count(key: str, period: int, size: int = 1) -> int:
        """Add a block of `size` requests to the window's counter; returns the new count.
        Increment first: every block but a window's first finds the counter there, so the add
        costs a round trip to the cache only once a window."""
        backend = caches["default"]
        if isinstance(backend, RedisCache):
            # Django's incr asks EXISTS before INCR: two round trips where one command will do.
            counter = _redis_counter(backend)
            return int(counter(keys=[backend.make_key(key)], args=[period + 1, size]))
        for _ in range(3):
            try:
                return cache.incr(key, size)
            except ValueError:  # the window's first block, or its counter just expired
                if cache.add(key, size, period + 1):
                    return size
                # Another worker started the window between our incr and add: count in it.
        return size  # the counter keeps vanishing (a cache being flushed): do not lock callers out

    def wait(self) -> float:
        return self._wait


class ApiKeyThrottle(_WindowThrottle):
    scope = "api_key"

    def ident(self, request) -> str | None:
        return str(request.auth.pk) if isinstance(request.auth, ApiKey) else None


class LearnerSessionThrottle(_WindowThrottle):
    scope = "learner_session"

    def ident(self, request) -> str | None:
        if request.auth is None and request.user.is_authenticated:
            return str(request.user.pk)
        return None


class AnonymousThrottle(_WindowThrottle):
    scope = "anonymous"

    def ident(self, request) -> str | None:
        return None if request.user.is_authenticated else self.get_ident(request)
