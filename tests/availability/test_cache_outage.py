"""While the shared cache (Redis) is down, every rate limit is open and logged, never a refusal
or an error: signing in, signing up and the API keep working; limits count again after."""

from __future__ import annotations

import logging

import pytest
from django.test import Client

from api.throttling import forget_blocks
from security.limits import Limit, limit_record, limit_reset, limit_take, limit_wait
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"


def test_limits_are_open_while_the_cache_is_down(cache_down, caplog):
    limit = Limit("login_failures_per_name", 1, 900)
    with caplog.at_level(logging.WARNING, logger="softgrade.availability"):
        for _ in range(3):
            limit_record(limit, "ada")
            assert limit_wait(limit, "ada") == 0
            assert limit_take(limit, "ada") == 0
        limit_reset(limit, "ada")
    assert "cache unavailable, limit login_failures_per_name not counted" in caplog.text
    assert "not checked" in caplog.text
    assert "not reset" in caplog.text


def test_signing_in_works_while_the_cache_is_down(cache_down, settings):
    settings.LOGIN_FAILURES_PER_NAME = "1/15m"
    settings.LOGIN_FAILURES_PER_PAIR = "1/15m"
    user = UserFactory(username="grace")
    user.set_password(PASSWORD)
    user.save()
    client = Client()
    for _ in range(3):
        page = client.post("/accounts/login/", {"username": "grace", "password": "guess"})
        assert page.status_code == 200
        assert "Too many failed sign-ins" not in page.content.decode()
    assert client.post("/accounts/login/", {"username": "grace", "password": PASSWORD}).url == "/"


def test_the_api_answers_while_the_cache_is_down(cache_down, settings):
    forget_blocks()
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"api_key": "1/m", "learner_session": "1/m", "anonymous": "1/m"},
    }
    client = Client()
    client.force_login(UserFactory())
    for _ in range(3):
        assert client.get("/api/v1/courses/").status_code == 200
    forget_blocks()
