"""Fixed-window limits in the default cache: counted, refused with the rest of the window to
wait, forgotten when the window ends, and shared by every worker on Redis."""

from __future__ import annotations

import uuid

import pytest
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.test import override_settings

from security.limits import (
    Limit,
    limit_count,
    limit_record,
    limit_reset,
    limit_take,
    limit_wait,
    wait_in_words,
    window_add,
)
from tests.shared_cache import REDIS_CACHES, needs_redis


@pytest.mark.parametrize(
    ("rate", "count", "period"),
    [("10/15m", 10, 900), ("600/m", 600, 60), ("30/h", 30, 3600), ("5/minute", 5, 60)],
)
def test_rates_read_as_count_per_period(rate, count, period):
    assert Limit.of_rate("x", rate) == Limit("x", count, period)


@pytest.mark.parametrize("rate", ["", "10", "ten/m", "10/15", "10/15w", "-1/m"])
def test_an_unreadable_rate_is_refused_by_name(rate):
    with pytest.raises(ValueError, match="is not a rate"):
        Limit.of_rate("x", rate)


def test_records_up_to_the_limit_then_a_wait_until_the_window_ends(limit_clock):
    limit = Limit("test-record", 3, 900)
    limit_clock.advance(100)
    for _ in range(3):
        assert limit_wait(limit, "ada") == 0
        limit_record(limit, "ada")
    assert limit_wait(limit, "ada") == 800
    assert limit_wait(limit, "grace") == 0  # each ident counts on its own
    limit_clock.advance(799)
    assert limit_wait(limit, "ada") == 1
    limit_clock.advance(1)
    assert limit_wait(limit, "ada") == 0


def test_count_reads_the_windows_events_without_counting(limit_clock):
    limit = Limit("test-count", 3, 900)
    assert limit_count(limit, "ada") == 0
    for _ in range(5):
        limit_record(limit, "ada")
    assert [limit_count(limit, "ada") for _ in range(2)] == [5, 5]
    assert limit_count(limit, "grace") == 0
    limit_clock.advance(900)
    assert limit_count(limit, "ada") == 0


def test_take_counts_and_refuses_past_the_limit(limit_clock):
    limit = Limit("test-take", 2, 60)
    assert [limit_take(limit, "1.2.3.4") for _ in range(4)] == [0, 0, 60, 60]
    limit_clock.advance(60)
    assert limit_take(limit, "1.2.3.4") == 0


def test_reset_forgets_the_window(limit_clock):
    limit = Limit("test-reset", 1, 60)
    limit_record(limit, "ada")
    assert limit_wait(limit, "ada") == 60
    limit_reset(limit, "ada")
    assert limit_wait(limit, "ada") == 0


@pytest.mark.parametrize(
    ("seconds", "words"),
    [(5, "about a minute"), (60, "about a minute"), (61, "about 2 minutes"),
     (900, "about 15 minutes"), (3600, "about 60 minutes"), (7200, "about 2 hours")],
)  # fmt: skip
def test_waits_in_words(seconds, words):
    assert wait_in_words(seconds) == words


@needs_redis
@override_settings(CACHES=REDIS_CACHES)
def test_on_redis_every_worker_counts_in_one_counter_that_expires(limit_clock):
    import redis

    limit = Limit(f"test-redis-{uuid.uuid4().hex}", 3, 900)
    key, _ = limit.counter("ada")
    # Another worker: its own cache client, the same Redis.
    rival = RedisCache(
        REDIS_CACHES["default"]["LOCATION"], {"KEY_PREFIX": REDIS_CACHES["default"]["KEY_PREFIX"]}
    )
    limit_record(limit, "ada")
    assert rival.get(key) == 1
    assert rival.incr(key, 2) == 3  # two failures the other worker saw
    assert limit_wait(limit, "ada") == 900
    server = redis.Redis.from_url(REDIS_CACHES["default"]["LOCATION"])
    assert 0 < server.ttl(rival.make_key(key)) <= 901
    caches["default"].delete(key)
    assert limit_wait(limit, "ada") == 0
    assert window_add(key, 900) == 1
    caches["default"].delete(key)
