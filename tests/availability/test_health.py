"""/health/: 200 while the database answers, naming each part; no session, no user."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_healthy(client, django_assert_num_queries):
    with django_assert_num_queries(1):
        response = client.get("/health/")
    assert response.status_code == 200
    assert response.json() == {"database": "ok", "cache": "ok"}
    assert "no-cache" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]


def test_database_down_is_503_with_retry_after(database_down):
    response = Client(raise_request_exception=False).get("/health/")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.json() == {"database": "unavailable", "cache": "ok"}
    database_down.down = False
    assert Client().get("/health/").status_code == 200


def test_cache_down_keeps_the_node_in_service(cache_down):
    response = Client().get("/health/")
    assert response.status_code == 200
    assert response.json() == {"database": "ok", "cache": "unavailable"}


def test_only_get(client):
    assert client.post("/health/").status_code == 405
