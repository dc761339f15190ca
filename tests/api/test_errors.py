"""Every 4xx has one shape, {"code", "message", "field"?}; bad bodies are never a 500."""

from __future__ import annotations

import json
import uuid

import pytest
from django.test import override_settings
from rest_framework.settings import api_settings
from rest_framework.test import APIClient

from api.parsers import MAX_BODY_BYTES
from grading.models import Attempt
from tests.api.conftest import first_item, key_client, start_attempt
from tests.shared_cache import REDIS_CACHES, needs_redis

pytestmark = pytest.mark.django_db


def assert_error(response, status: int, code: str, field: str | None = None):
    assert response.status_code == status, response.content
    body = response.json()
    assert body["code"] == code
    assert body["message"]
    assert body.get("field") == field
    assert set(body) <= {"code", "message", "field"}


def post_raw(client, body, content_type="application/json"):
    return client.generic("POST", "/api/v1/attempts/", body, content_type=content_type)


def test_malformed_json(lms):
    response = post_raw(lms.client(), '{"quiz": "attention-exam",')
    assert_error(response, 400, "malformed_json")
    assert "line 1" in response.json()["message"]


@pytest.mark.parametrize("body", ["NaN", '{"quiz": Infinity}', b"\xff\xfe{}"])
def test_json_that_is_not_json(lms, body):
    assert_error(post_raw(lms.client(), body), 400, "malformed_json")


def test_a_body_that_is_not_an_object(lms):
    assert_error(post_raw(lms.client(), "[1, 2]"), 400, "invalid")


@pytest.mark.parametrize(
    "content_type", ["application/x-www-form-urlencoded", "text/plain", "multipart/form-data"]
)
def test_wrong_content_type(lms, content_type):
    response = post_raw(lms.client(), "quiz=attention-exam", content_type=content_type)
    assert_error(response, 415, "unsupported_media_type")


def test_body_over_64_kib_is_refused_before_it_is_read(lms):
    big = json.dumps({"quiz": "x" * MAX_BODY_BYTES})
    assert_error(post_raw(lms.client(), big), 413, "body_too_large")
    assert not Attempt.objects.exists()


def test_a_body_just_under_the_limit_is_read(lms):
    body = json.dumps({"quiz": "x" * (MAX_BODY_BYTES - 100), "learner": "stud-1"})
    assert_error(post_raw(lms.client(), body), 400, "max_length", "quiz")


def test_unknown_field(lms, practice_quiz):
    response = lms.client().post(
        "/api/v1/attempts/",
        {"quiz": "attention-practice", "learner": "stud-1", "student": "x"},
        format="json",
    )
    assert_error(response, 400, "unknown_field", "student")
    assert not Attempt.objects.exists()


def test_missing_and_mistyped_fields_are_named(lms):
    assert_error(lms.client().post("/api/v1/attempts/", {}, format="json"), 400, "required", "quiz")
    response = lms.client().post(
        "/api/v1/attempts/", {"quiz": ["a"], "learner": "stud-1"}, format="json"
    )
    assert_error(response, 400, "invalid", "quiz")


def test_nested_errors_name_the_entry(lms, practice_quiz):
    client = lms.client()
    attempt = start_attempt(client)
    item = first_item(client, attempt, "question")
    response = client.post(
        f"/api/v1/attempts/{attempt['id']}/items/{item['id']}/answers/",
        {"choices": [1, "two"]},
        format="json",
    )
    assert_error(response, 400, "invalid", "choices.1")


def test_unknown_paths_under_the_api_are_404_in_the_shape(lms):
    assert_error(lms.client().get("/api/v1/no/such/thing/"), 404, "not_found")


@pytest.mark.parametrize(
    "path", ["/api/v1/quizzes/a%0Ab/statistics.csv", "/api/v1/no/such%0D%0Athing/", "/api/v1/%0A"]
)
def test_a_path_with_a_line_break_is_a_404_in_the_shape_too(lms, path):
    """A slug no endpoint matches, with a line break in it, still gets the API's JSON 404 (the
    catch-all once missed it: a regular expression's dot does not match a line break)."""
    assert_error(lms.client().get(path), 404, "not_found")


def test_method_not_allowed(lms):
    assert_error(lms.client().delete("/api/v1/courses/"), 405, "method_not_allowed")


def test_credentials(lms):
    assert_error(APIClient().get("/api/v1/courses/"), 401, "not_authenticated")
    assert_error(key_client("sg_000000000000_nope").get("/api/v1/courses/"), 401, "invalid_api_key")
    assert_error(key_client("not-a-key").get("/api/v1/courses/"), 401, "invalid_api_key")
    forged = lms.token[:-4] + "AAAA"
    assert_error(key_client(forged).get("/api/v1/courses/"), 401, "invalid_api_key")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {lms.token} extra")
    assert_error(client.get("/api/v1/courses/"), 401, "invalid_api_key")


def test_revoked_key(revoked_token):
    response = key_client(revoked_token).get("/api/v1/courses/")
    assert_error(response, 401, "api_key_revoked")
    assert response["WWW-Authenticate"] == 'Bearer realm="softgrade"'


def test_throttled_per_key_with_retry_after(lms, other_lms, limit_clock):
    rates = {**api_settings.DEFAULT_THROTTLE_RATES, "api_key": "3/minute"}
    with override_settings(REST_FRAMEWORK={**_rest_framework(), "DEFAULT_THROTTLE_RATES": rates}):
        client = lms.client()
        for _ in range(3):
            assert client.get("/api/v1/courses/").status_code == 200
        response = client.get("/api/v1/courses/")
        assert_error(response, 429, "throttled")
        assert int(response["Retry-After"]) > 0
        # The limit is per key: another integration's key is unaffected.
        assert other_lms.client().get("/api/v1/courses/").status_code == 200


def test_a_window_started_by_another_worker_between_incr_and_add_counts_the_request(
    monkeypatch,
):
    """The counter is incremented first and added only when missing; when another worker adds
    it in between, this request is counted in that window, not lost and not counted as first."""
    from django.core.cache import cache

    from api import throttling

    key = "throttle:test:race:1"
    cache.delete(key)
    real_incr = cache.incr
    calls = []

    def incr_after_a_rival_starts_the_window(name, *args, **kwargs):
        calls.append(name)
        if len(calls) == 1:
            cache.add(name, 1, 60)  # the rival's add lands after our miss
            raise ValueError(name)
        return real_incr(name, *args, **kwargs)

    monkeypatch.setattr(cache, "incr", incr_after_a_rival_starts_the_window)
    assert throttling._WindowThrottle._count(key, 60) == 2
    assert throttling._WindowThrottle._count(key, 60) == 3
    cache.delete(key)
    assert throttling._WindowThrottle._count(key, 60) == 1


@needs_redis
@override_settings(CACHES=REDIS_CACHES)
def test_on_redis_one_counter_per_window_is_shared_by_every_worker_and_expires(monkeypatch):
    import redis
    from django.core.cache import caches
    from django.core.cache.backends.redis import RedisCache

    from api import throttling

    key = f"throttle:test:redis:{uuid.uuid4().hex}"
    rival = RedisCache(
        REDIS_CACHES["default"]["LOCATION"], {"KEY_PREFIX": REDIS_CACHES["default"]["KEY_PREFIX"]}
    )
    with monkeypatch.context() as patched:
        # One round trip per request: no EXISTS before the INCR (Django's own incr asks it).
        patched.setattr(redis.Redis, "exists", lambda *args: pytest.fail("EXISTS was sent"))
        assert throttling._WindowThrottle._count(key, 60) == 1
        assert throttling._WindowThrottle._count(key, 60) == 2
    # Another worker: its own cache client, the same Redis.
    assert rival.incr(key) == 3
    assert throttling._WindowThrottle._count(key, 60) == 4
    assert caches["default"].get(key) == 4
    name = caches["default"].make_and_validate_key(key)
    ttl = caches["default"]._cache.get_client(name).ttl(name)
    assert 0 < ttl <= 61
    caches["default"].delete(key)


@needs_redis
@override_settings(CACHES=REDIS_CACHES)
def test_throttled_per_key_on_redis(lms, limit_clock):
    from django.core.cache import caches

    caches["default"].clear()
    rates = {**api_settings.DEFAULT_THROTTLE_RATES, "api_key": "3/minute"}
    with override_settings(REST_FRAMEWORK={**_rest_framework(), "DEFAULT_THROTTLE_RATES": rates}):
        client = lms.client()
        for _ in range(3):
            assert client.get("/api/v1/courses/").status_code == 200
        assert_error(client.get("/api/v1/courses/"), 429, "throttled")
    caches["default"].clear()


def _rest_framework() -> dict:
    from django.conf import settings

    return settings.REST_FRAMEWORK
