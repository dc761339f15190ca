"""Failed sign-ins pause a (user name, address) pair and an address; a user name guessed from
many addresses is slowed, never paused, so its owner always gets in from their own address.
Sign-ups are limited per address. Past a limit a clear message (and Retry-After) says how long
to wait, and the window's end lets the learner in again."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.test import override_settings
from django.urls import reverse

from security.limits import Limit
from tests.factories import InstructorFactory, UserFactory
from tests.shared_cache import REDIS_CACHES, needs_redis

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("limit_clock"),
]

PASSWORD = "correct horse battery"
PAUSED = "Too many failed sign-ins"
SLOWED = "Many failed sign-ins for this user name lately"
ATTACKER = "203.0.113.66"
OWNER = "198.51.100.9"


def sign_in(client, username: str, password: str, address: str = "203.0.113.7"):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


@pytest.fixture
def ada(db):
    return UserFactory(username="ada")


def fail(client, times: int, username: str = "ada", address: str = "203.0.113.7"):
    for _ in range(times):
        response = sign_in(client, username, "wrong guess", address)
        assert response.status_code == 200
        assert PAUSED not in response.content.decode()


def test_ten_failures_pause_the_name_from_that_address_with_a_message_saying_how_long(client, ada):
    fail(client, 10, address=ATTACKER)
    # The right password from the same address: paused, the password not checked.
    response = sign_in(client, "ada", PASSWORD, address=ATTACKER)
    assert response.status_code == 429
    assert response["Retry-After"] == "900"
    page = response.content.decode()
    assert "Too many failed sign-ins for this user name from your network" in page
    assert "try again in about 15 minutes" in page
    assert not signed_in(client)
    # The name counts whatever its case.
    assert sign_in(client, "ADA", PASSWORD, address=ATTACKER).status_code == 429
    # Other names from that address are not paused.
    UserFactory(username="grace")
    assert sign_in(client, "grace", PASSWORD, address=ATTACKER).status_code == 302


def test_a_guesser_at_one_address_never_locks_the_instructor_out_from_theirs(client):
    InstructorFactory(username="teacher")
    fail(client, 10, username="teacher", address=ATTACKER)
    assert sign_in(client, "teacher", "another guess", address=ATTACKER).status_code == 429
    response = sign_in(client, "teacher", PASSWORD, address=OWNER)
    assert response.status_code == 302
    assert signed_in(client)
    client.logout()
    # Their own typos count on their own pair only.
    fail(client, 9, username="teacher", address=OWNER)
    assert sign_in(client, "teacher", PASSWORD, address=OWNER).status_code == 302


def test_the_pause_ends_with_the_window(client, ada, limit_clock):
    fail(client, 10)
    limit_clock.advance(14 * 60)
    assert "try again in about a minute" in sign_in(client, "ada", PASSWORD).content.decode()
    limit_clock.advance(60)
    response = sign_in(client, "ada", PASSWORD)
    assert response.status_code == 302
    assert signed_in(client)


@override_settings(LOGIN_FAILURES_PER_ADDRESS="4/15m")
def test_failures_from_one_address_pause_every_name_from_it(client, ada):
    for name in ("grace", "alan", "edsger", "barbara"):
        fail(client, 1, username=name)
    response = sign_in(client, "ada", PASSWORD)
    assert response.status_code == 429
    assert "Too many failed sign-ins from your network" in response.content.decode()
    assert not signed_in(client)
    # Another address is not paused.
    assert sign_in(client, "ada", PASSWORD, address="198.51.100.9").status_code == 302


def test_a_success_counts_no_failure_and_forgets_its_pairs_failures(client, ada):
    fail(client, 9)
    assert sign_in(client, "ada", PASSWORD).status_code == 302
    client.logout()
    fail(client, 9)  # with the first nine still counted, the pair would pause at the tenth
    assert sign_in(client, "ada", PASSWORD).status_code == 302


@override_settings(LOGIN_FAILURES_PER_ADDRESS="3/15m")
def test_successes_do_not_clear_the_addresses_failures(client, ada):
    UserFactory(username="mallory")
    fail(client, 2, username="ada")
    assert sign_in(client, "mallory", PASSWORD).status_code == 302  # their own account
    client.logout()
    fail(client, 1, username="ada")
    assert sign_in(client, "ada", PASSWORD).status_code == 429


def test_a_blank_field_is_no_failure(client, ada):
    for _ in range(12):
        client.post(reverse("login"), {"username": "ada", "password": ""})
    assert sign_in(client, "ada", PASSWORD).status_code == 302


@override_settings(SIGNUPS_PER_ADDRESS="2/h")
def test_sign_ups_per_address_are_limited_and_a_refused_one_creates_nothing(client, limit_clock):
    def sign_up(username: str, address: str = "203.0.113.7"):
        client.logout()
        data = {"username": username, "password1": PASSWORD, "password2": PASSWORD}
        return client.post(reverse("signup"), data, REMOTE_ADDR=address)

    assert sign_up("first").status_code == 302
    assert sign_up("first").status_code == 200  # a name taken: refused, and it counts
    refused = sign_up("third")
    assert refused.status_code == 429
    assert "Too many sign-ups from your network. Try again in about 60 minutes." in (
        refused.content.decode()
    )
    assert not get_user_model().objects.filter(username="third").exists()
    assert sign_up("third", address="198.51.100.9").status_code == 302
    limit_clock.advance(3600)
    assert sign_up("fourth").status_code == 302


@override_settings(TRUSTED_PROXY_COUNT=1, LOGIN_FAILURES_PER_ADDRESS="2/15m")
def test_behind_a_proxy_the_forwarded_address_is_the_one_paused(client, ada):
    def through_proxy(username: str, password: str, forwarded: str):
        data = {"username": username, "password": password}
        return client.post(
            reverse("login"), data, REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=forwarded
        )

    through_proxy("grace", "wrong", "6.6.6.6, 203.0.113.7")
    through_proxy("grace", "wrong", "7.7.7.7, 203.0.113.7")  # a made-up part changes nothing
    assert through_proxy("ada", PASSWORD, "203.0.113.7").status_code == 429
    assert through_proxy("ada", PASSWORD, "198.51.100.9").status_code == 302


@needs_redis
@override_settings(CACHES=REDIS_CACHES)
def test_on_redis_the_pause_holds_for_every_worker(client, ada):
    counters = [
        Limit.of_setting("LOGIN_FAILURES_PER_PAIR").counter("203.0.113.7\nada")[0],
        Limit.of_setting("LOGIN_FAILURES_PER_ADDRESS").counter("203.0.113.7")[0],
        Limit.of_setting("LOGIN_FAILURES_PER_NAME").counter("ada")[0],
    ]
    caches["default"].delete_many(counters)  # not clear(): other suites share the server
    try:
        fail(client, 10)
        response = sign_in(client, "ada", PASSWORD)
        assert response.status_code == 429
        assert "about 15 minutes" in response.content.decode()
        # Another worker reads the same counter.
        rival = RedisCache(
            REDIS_CACHES["default"]["LOCATION"],
            {"KEY_PREFIX": REDIS_CACHES["default"]["KEY_PREFIX"]},
        )
        assert rival.get(counters[0]) == 10
    finally:
        caches["default"].delete_many(counters)


def spread_guess(client, failures: int, username: str = "ada") -> None:
    """One wrong guess from each of `failures` addresses (a guess spread over many)."""
    for n in range(failures):
        fail(client, 1, username=username, address=f"192.0.2.{n + 1}")


@override_settings(LOGIN_FAILURES_PER_NAME="5/15m", LOGIN_SLOWDOWN_SECONDS=30)
def test_a_guess_spread_over_many_addresses_is_slowed_with_the_wait_said(client, ada):
    spread_guess(client, 5)
    # Each address gets one try per delay: the first is checked (and fails), the next waits.
    fail(client, 1, address=ATTACKER)
    response = sign_in(client, "ada", "yet another guess", address=ATTACKER)
    assert response.status_code == 429
    assert response["Retry-After"] == "30"
    page = response.content.decode()
    assert SLOWED in page
    assert "only once every 30 seconds from each network: try again in 30 seconds" in page
    # A refused try counts nothing, so the name's delay is still 30 s half a delay later.
    fail(client, 1, address="192.0.2.200")
    assert sign_in(client, "ada", "guess", address="192.0.2.200")["Retry-After"] == "30"


@override_settings(LOGIN_FAILURES_PER_NAME="5/15m", LOGIN_SLOWDOWN_SECONDS=30)
def test_a_slowed_name_still_signs_its_owner_in_from_their_address(client, ada, limit_clock):
    spread_guess(client, 20)  # four times the ceiling: the delay is 240 s
    response = sign_in(client, "ada", PASSWORD, address=OWNER)
    assert response.status_code == 302
    assert signed_in(client)
    client.logout()
    # A typo costs the owner one delay, never a pause.
    limit_clock.advance(240)
    fail(client, 1, address=OWNER)
    slowed = sign_in(client, "ada", PASSWORD, address=OWNER)
    assert slowed.status_code == 429
    assert "once every 4 minutes from each network: try again in about 4 minutes" in (
        slowed.content.decode()
    )
    assert not signed_in(client)
    limit_clock.advance(240)
    assert sign_in(client, "ada", PASSWORD, address=OWNER).status_code == 302


@override_settings(LOGIN_FAILURES_PER_NAME="5/15m", LOGIN_SLOWDOWN_SECONDS=30)
def test_the_owners_sign_in_does_not_reopen_the_name_to_the_spread_guess(client, ada):
    spread_guess(client, 5)
    assert sign_in(client, "ada", PASSWORD, address=OWNER).status_code == 302
    client.logout()
    fail(client, 1, address=ATTACKER)
    assert SLOWED in sign_in(client, "ada", "guess", address=ATTACKER).content.decode()


@override_settings(LOGIN_FAILURES_PER_NAME="2/15m", LOGIN_SLOWDOWN_SECONDS=30)
def test_however_many_failures_the_delay_stops_at_the_window_and_a_new_address_gets_a_try(
    client, ada, limit_clock
):
    spread_guess(client, 60)
    fail(client, 1, address=ATTACKER)
    response = sign_in(client, "ada", "guess", address=ATTACKER)
    assert response["Retry-After"] == "900"
    assert sign_in(client, "ada", PASSWORD, address=OWNER).status_code == 302
    # The window's end forgets the name's failures: no slowdown at all.
    limit_clock.advance(900)
    fail(client, 2, address=ATTACKER)
