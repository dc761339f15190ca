"""Rate limits taken from the shared counter in blocks: one round trip to the cache per block,
never more admitted than the limit, and little held back near it."""

from __future__ import annotations

import uuid

import pytest
from django.core.cache import cache
from django.test import override_settings
from hypothesis import given, settings
from hypothesis import strategies as st

from api import throttling
from tests.shared_cache import REDIS_CACHES, needs_redis


@pytest.fixture(autouse=True)
def _empty(limit_clock):
    # The clock stands still: two requests a test sends never fall in two windows.
    cache.clear()
    throttling.forget_blocks()
    yield
    cache.clear()
    throttling.forget_blocks()


@pytest.mark.parametrize(
    ("limit", "size"), [(1, 1), (60, 1), (300, 1), (399, 1), (400, 2), (3000, 15), (10**6, 16)]
)
def test_blocks_are_a_small_share_of_the_limit(limit, size):
    assert throttling.block_size(limit) == size


def test_a_worker_asks_the_cache_once_a_block(monkeypatch):
    asked = []
    count = throttling._WindowThrottle._count

    def counted(key, period, size=1):
        asked.append(size)
        return count(key, period, size)

    monkeypatch.setattr(throttling._WindowThrottle, "_count", staticmethod(counted))
    assert all(throttling._WindowThrottle._admit("throttle:t:a:1", 3000, 60) for _ in range(45))
    assert asked == [15, 15, 15]
    assert cache.get("throttle:t:a:1") == 45


def test_a_block_is_cut_to_what_is_left_of_the_limit():
    key = "throttle:t:b:1"
    cache.set(key, 2990, 60)  # other workers took the rest
    admitted = [throttling._WindowThrottle._admit(key, 3000, 60) for _ in range(15)]
    assert admitted == [True] * 10 + [False] * 5


def test_blocks_of_one_count_every_request_exactly():
    key = "throttle:t:c:1"
    assert [throttling._WindowThrottle._admit(key, 3, 60) for _ in range(5)] == [
        True,
        True,
        True,
        False,
        False,
    ]
    assert cache.get(key) == 5


@settings(max_examples=60, deadline=None)
@given(
    limit=st.integers(min_value=1, max_value=2500),
    workers=st.integers(min_value=1, max_value=6),
    order=st.randoms(use_true_random=False),
)
def test_workers_together_never_admit_more_than_the_limit(limit, workers, order):
    cache.clear()
    key = f"throttle:t:race:{uuid.uuid4().hex}"
    blocks = [{} for _ in range(workers)]  # each worker's own leftovers
    admitted = 0
    own = throttling._left
    try:
        for _ in range(limit + 40 * workers):
            throttling._left = blocks[order.randrange(workers)]
            admitted += throttling._WindowThrottle._admit(key, limit, 60)
            assert admitted <= limit
    finally:
        throttling._left = own
    held_back = sum(worker.get(key, 0) for worker in blocks)
    assert admitted + held_back == limit
    assert held_back <= workers * (throttling.block_size(limit) - 1)


def test_what_a_worker_holds_is_bounded(monkeypatch):
    monkeypatch.setattr(throttling, "_LEFT_AT_MOST", 4)
    for n in range(10):
        assert throttling._WindowThrottle._admit(f"throttle:t:many:{n}", 3000, 60)
        assert len(throttling._left) <= 4
    # Letting blocks go only ever refuses early: the counters still hold every block taken.
    assert cache.get("throttle:t:many:9") == 15


@needs_redis
@override_settings(CACHES=REDIS_CACHES)
def test_on_redis_a_block_is_one_command_and_the_counter_expires():
    from django.core.cache import caches

    key = f"throttle:t:redis:{uuid.uuid4().hex}"
    assert throttling._WindowThrottle._count(key, 60, 15) == 15
    assert throttling._WindowThrottle._count(key, 60, 15) == 30
    assert caches["default"].get(key) == 30
    name = caches["default"].make_and_validate_key(key)
    assert 0 < caches["default"]._cache.get_client(name).ttl(name) <= 61
    caches["default"].delete(key)


def _anonymous_rate(rate: str):
    from django.conf import settings as django_settings

    rest = django_settings.REST_FRAMEWORK
    rates = {**rest["DEFAULT_THROTTLE_RATES"], "anonymous": rate}
    return override_settings(REST_FRAMEWORK={**rest, "DEFAULT_THROTTLE_RATES": rates})


def _schema(client, forwarded: str):
    return client.get("/api/v1/schema/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=forwarded)


@pytest.mark.django_db
@override_settings(TRUSTED_PROXY_COUNT=0)
def test_a_made_up_forwarded_header_buys_no_new_anonymous_allowance(client):
    with _anonymous_rate("1/minute"):
        assert _schema(client, "198.51.100.1").status_code == 200
        assert _schema(client, "198.51.100.2").status_code == 429


@pytest.mark.django_db
@override_settings(TRUSTED_PROXY_COUNT=1)
def test_behind_one_proxy_the_anonymous_limit_counts_the_address_it_appended(client):
    with _anonymous_rate("1/minute"):
        assert _schema(client, "6.6.6.6, 198.51.100.1").status_code == 200
        # Another client behind the same proxy has its own allowance…
        assert _schema(client, "198.51.100.2").status_code == 200
        # …and the first one cannot buy more by making up the left-hand part.
        assert _schema(client, "7.7.7.7, 198.51.100.1").status_code == 429
