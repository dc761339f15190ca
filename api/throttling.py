"""Rate limits per API key, per signed-in learner and per anonymous address.

A key is whatever credential the request's authentication accepted (`request.auth`; a site
session has none), so this module needs no app's models.

A fixed window counted with the cache's atomic increment, whatever the rate (security.limits
counts: on Redis, what production uses, one command). (DRF's stock throttle keeps a list of
every request time in the window and rewrites it on each request, which grows with the rate
and loses counts between workers.) The counters live in Django's default cache, which
production points at a cache shared by every worker (CACHE_URL), so a limit holds for the
whole deployment.

A worker takes its requests from the shared counter in blocks (`block_size`): one round trip
to the cache per block, not per request. A block is cut to what is left of the limit, so the
counter never admits more than the limit; what a worker holds unused when another runs dry is
under BLOCK_SHARE of the limit, so near the limit a caller may be refused that much early.
Small limits take blocks of one and are counted exactly.

The anonymous limit counts the client's address as security.addresses.client_address finds it:
X-Forwarded-For only as far as TRUSTED_PROXY_COUNT proxies vouch for it (DRF's own ident takes
the whole header as the client sends it, so every made-up header was a fresh allowance).
"""

from __future__ import annotations

import threading

from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from security import limits
from security.addresses import address_group, client_address
from security.limits import window_add

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
BLOCK_SHARE = 1 / 200  # a worker's unused block is under 0.5% of the limit
BLOCK_AT_MOST = 16
_LEFT_AT_MOST = 1024  # counters a worker holds part of a block for, before it lets all go
# Requests left in this worker's blocks, by counter (the counter's name holds its window).
_left: dict[str, int] = {}
_left_lock = threading.Lock()  # the development server serves requests in threads


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
        now = limits.clock()  # the windows' one clock, which tests stop
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
        """Add a block of `size` requests to the window's counter; returns the new count."""
        return window_add(key, period, size)

    def wait(self) -> float:
        return self._wait


class ApiKeyThrottle(_WindowThrottle):
    scope = "api_key"

    def ident(self, request) -> str | None:
        return str(request.auth.pk) if request.auth is not None else None


class LearnerSessionThrottle(_WindowThrottle):
    scope = "learner_session"

    def ident(self, request) -> str | None:
        if request.auth is None and request.user.is_authenticated:
            return str(request.user.pk)
        return None


class AnonymousThrottle(_WindowThrottle):
    scope = "anonymous"

    def ident(self, request) -> str | None:
        if request.user.is_authenticated:
            return None
        return address_group(client_address(request))
