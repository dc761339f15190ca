"""Rate limits per API key, per signed-in learner and per anonymous address.

A fixed window counted with the cache's atomic increment, whatever the rate: on Redis (what
production uses) one command per request, a script that increments and gives a new window's
counter its lifetime; on any other cache an incr per request and an add per window. (DRF's
stock throttle keeps a list of every request time in the window and rewrites it on each
request, which grows with the rate and loses counts between workers.) The counters live in
Django's default cache, which production points at a cache shared by every worker (CACHE_URL),
so a limit holds for the whole deployment.
"""

from __future__ import annotations

import time
import weakref

from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from integrations.models import ApiKey

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
# INCR starts a missing counter at 1; only then does the window's counter need its lifetime.
# One script is one atomic command: no MULTI/EXEC, and no counter left without an expiry.
_COUNT_SCRIPT = """
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return count
"""
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
        return self._count(key, period) <= limit

    @staticmethod
    def _count(key: str, period: int) -> int:
        """Count one request in the window. Increment first: every request but a window's first
        finds the counter there, so the add costs a round trip to the cache only once a window.
        """
        backend = caches["default"]
        if isinstance(backend, RedisCache):
            # Django's incr asks EXISTS before INCR: two round trips where one command will do.
            return int(_redis_counter(backend)(keys=[backend.make_key(key)], args=[period + 1]))
        for _ in range(3):
            try:
                return cache.incr(key)
            except ValueError:  # the window's first request, or its counter just expired
                if cache.add(key, 1, period + 1):
                    return 1
                # Another worker started the window between our incr and add: count in it.
        return 1  # the counter keeps vanishing (a cache being flushed): do not lock callers out

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
