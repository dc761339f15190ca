"""How often a client may do something: counters in fixed windows, in Django's default cache.

A limit allows `count` events per `period` seconds for each ident (a user name, an address).
Windows are fixed, aligned on the clock (a 15-minute limit counts 10:00–10:15, 10:15–10:30, …):
one counter per window, a single atomic increment per event, and the time left until a refused
client may try again is the rest of the window. The price of fixed windows is their edge: a
client may spend a window's allowance at its end and the next one's at the start, so at most
twice `count` in any one period. That bounds password guessing and sign-up floods just as well,
and needs no list of event times.

The counters live in the default cache. Production points it at Redis (CACHE_URL), shared by
every worker, so a limit holds for the whole deployment; on Redis an event is one command, a
script that adds to the counter and gives a new window's counter its lifetime. Elsewhere (the
local-memory cache of development and tests) it is an incr, and an add once per window.

Rates are written "count/period", the period in s, m, h or d with an optional number before
the unit: "10/15m" is ten per fifteen minutes, "600/m" six hundred per minute.

While the cache is down (Redis restarting) every limit is open: nothing is counted and nothing
is refused, and each miss is logged. Refusing instead would lock a whole class out of signing
in, and the API out of answering, for as long as the cache is away, to stop a guesser who can
try for those seconds only, at the password hasher's pace; limits count again as soon as the
cache answers.
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.utils.translation import gettext, ngettext

from availability.outages import CACHE_ERRORS

logger = logging.getLogger("softgrade.availability")

# The clock the windows are cut from; tests move it instead of sleeping.
clock = time.time

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*([smhd])[a-z]*\s*$")
# INCRBY starts a missing counter at the increment; only then does the window's counter need
# its lifetime. One script is one atomic command: no counter is left without an expiry.
_COUNT_SCRIPT = """
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
if count == tonumber(ARGV[2]) then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return count
"""
# Django's Redis backend builds a new client on every call (~45 µs, more than the round trip)
# and its incr asks EXISTS before INCR: one script per server, over one connection pool per
# process (redis-py's pools are thread-safe), is one round trip per event.
_redis_scripts: dict[str, object] = {}


def _redis_script(location: str | list[str]):
    """The counting script on the cache's server (the first LOCATION, where Django writes)."""
    url = location[0] if isinstance(location, list | tuple) else location.split(",")[0]
    script = _redis_scripts.get(url)
    if script is None:
        import redis  # only deployments with a Redis cache need the client

        script = _redis_scripts[url] = redis.Redis.from_url(url).register_script(_COUNT_SCRIPT)
    return script


def window_add(key: str, period: int, size: int = 1) -> int:
    """Add `size` events to a window's counter (created with a lifetime just over the period
    when missing); returns the new count. Increment first: every event but a window's first
    finds the counter there, so the add costs a round trip only once a window. While the cache
    is down, returns `size` (a new window's count: under every limit) and counts nothing."""
    try:
        return _window_add(key, period, size)
    except CACHE_ERRORS as error:
        logger.warning("cache unavailable, limit %s not counted: %s", key.split(":")[1], error)
        return size


def _window_add(key: str, period: int, size: int) -> int:
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        script = _redis_script(settings.CACHES["default"]["LOCATION"])
        return int(script(keys=[backend.make_key(key)], args=[period + 1, size]))
    for _ in range(3):
        try:
            return backend.incr(key, size)
        except ValueError:  # the window's first event, or its counter just expired
            if backend.add(key, size, period + 1):
                return size
            # Another worker started the window between our incr and add: count in it.
    return size  # the counter keeps vanishing (a cache being flushed): do not lock callers out


@dataclass(frozen=True)
class Limit:
    """At most `count` events per `period` seconds for each ident; `name` keeps the counters
    of different limits apart."""

    name: str
    count: int
    period: int

    @classmethod
    def of_rate(cls, name: str, rate: str) -> Limit:
        """Limit.of_rate("login", "10/15m") -> Limit("login", 10, 900)."""
        match = _RATE.match(rate)
        if match is None:
            raise ValueError(f"{rate!r} is not a rate like '10/15m' (count/period).")
        count, number, unit = match.groups()
        return cls(name, int(count), int(number or 1) * _UNITS[unit])

    @classmethod
    def of_setting(cls, setting: str) -> Limit:
        """The limit a setting names (read at each call, so a changed setting takes effect)."""
        return cls.of_rate(setting.lower(), getattr(settings, setting))

    def counter(self, ident: str) -> tuple[str, float]:
        """The cache key of the ident's counter in the current window, and the seconds left
        until that window ends."""
        now = clock()
        window = int(now // self.period)
        # Hashed: an ident is whatever a client sent (a user name may hold spaces or be long).
        digest = hashlib.sha256(ident.encode()).hexdigest()[:32]
        return f"limit:{self.name}:{digest}:{window}", (window + 1) * self.period - now


def limit_count(limit: Limit, ident: str) -> int:
    """The ident's events in the current window (0 while the cache is down); counts nothing."""
    key, _ = limit.counter(ident)
    try:
        return caches["default"].get(key) or 0
    except CACHE_ERRORS as error:
        logger.warning("cache unavailable, limit %s not checked: %s", limit.name, error)
        return 0


def limit_wait(limit: Limit, ident: str) -> float:
    """Seconds until the ident may act again (0 while it is under the limit); counts nothing."""
    _, rest_of_window = limit.counter(ident)
    return rest_of_window if limit_count(limit, ident) >= limit.count else 0.0


def limit_record(limit: Limit, ident: str) -> None:
    """Count one event for the ident (say, a failed sign-in)."""
    key, _ = limit.counter(ident)
    window_add(key, limit.period)


def limit_take(limit: Limit, ident: str) -> float:
    """Count one event and say whether it was allowed: 0, or the seconds until the ident may
    act again when the event went over the limit (refused events count too)."""
    key, rest_of_window = limit.counter(ident)
    return rest_of_window if window_add(key, limit.period) > limit.count else 0.0


def limit_reset(limit: Limit, ident: str) -> None:
    """Forget the ident's events in the current window (nothing to forget while the cache is
    down: it counted nothing)."""
    key, _ = limit.counter(ident)
    try:
        caches["default"].delete(key)
    except CACHE_ERRORS as error:
        logger.warning("cache unavailable, limit %s not reset: %s", limit.name, error)


def wait_in_words(seconds: float) -> str:
    """How long a refused client waits, for a message: 'about 12 minutes', 'about a minute'."""
    # Every message puts it after "in" ("try again in about a minute"): translations give the
    # form that fits there (German: the dative, "in etwa einer Minute").
    minutes = math.ceil(seconds / 60)
    if minutes <= 1:
        return gettext("about a minute")
    if minutes < 120:
        return ngettext("about %(count)s minute", "about %(count)s minutes", minutes) % {
            "count": minutes
        }
    hours = round(minutes / 60)
    return ngettext("about %(count)s hour", "about %(count)s hours", hours) % {"count": hours}
