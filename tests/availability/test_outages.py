"""An outage of the database or the cache: a 503 with Retry-After (a page, or the API's JSON
error), logged, never a 500 or a stack trace; the next request after it is served."""

from __future__ import annotations

import logging

import pytest
import redis
from django.db import InterfaceError, OperationalError
from django.test import Client, RequestFactory
from django.urls import reverse

from availability.outages import outage_part, server_error_or_unavailable
from grading.models import Attempt
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def learner_client():
    # Like a browser: an error is a response, not an exception raised into the test.
    client = Client(raise_request_exception=False)
    client.force_login(UserFactory())
    return client


def test_a_page_during_a_database_outage_is_a_clear_503_then_recovers(
    learner_client, shipped_bank, database_down, caplog
):
    with caplog.at_level(logging.WARNING):
        response = learner_client.get(reverse("history"))
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    assert "briefly unavailable" in html
    assert "Traceback" not in html
    assert "OperationalError" not in html
    assert "database unavailable: GET /history/ answered 503" in caplog.text
    assert database_down.refused >= 1

    database_down.down = False
    assert learner_client.get(reverse("history")).status_code == 200


def test_the_outage_page_is_logged_once_and_may_show_inside_an_lms_frame(
    learner_client, shipped_bank, database_down, caplog
):
    """A learner working inside an LMS's iframe sees softgrade's 503 page, not the browser's own
    "refused to connect": the page holds no form or link that acts, so any site may frame it.
    The response phase reads nothing from the session that failed, so one outage is one log."""
    with caplog.at_level(logging.WARNING):
        response = learner_client.get(reverse("history"))
    assert response.status_code == 503
    assert "X-Frame-Options" not in response
    assert "frame-ancestors *" in response["Content-Security-Policy"]
    assert "<form" not in response.content.decode()
    assert caplog.text.count("answered 503") == 1


def test_pages_that_work_still_refuse_to_be_framed(learner_client, shipped_bank):
    response = learner_client.get(reverse("history"))
    assert response.status_code == 200
    assert response["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'self'" in response["Content-Security-Policy"]


def test_the_api_during_a_database_outage_answers_its_json_error(
    learner_client, shipped_bank, database_down
):
    response = learner_client.get("/api/v1/courses/")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.json()["code"] == "unavailable"
    assert "again" in response.json()["message"]

    database_down.down = False
    assert learner_client.get("/api/v1/courses/").status_code == 200


def test_an_answer_post_during_an_outage_is_503_and_nothing_is_half_done(
    learner_client, shipped_bank, database_down
):
    database_down.down = False
    start = learner_client.post(reverse("attempt-start", kwargs={"slug": "attention-exam"}))
    assert start.status_code == 302
    database_down.down = True
    response = learner_client.post(start.url.rstrip("/") + "/save/", {"action": "submit"})
    assert response.status_code == 503
    database_down.down = False
    assert Attempt.objects.get().status == Attempt.Status.IN_PROGRESS


@pytest.mark.parametrize(
    ("error", "part"),
    [
        (OperationalError("server closed the connection unexpectedly"), "database"),
        (InterfaceError("connection already closed"), "database"),
        (redis.exceptions.ConnectionError("Connection refused"), "cache"),
        (redis.exceptions.TimeoutError("Timeout reading from socket"), "cache"),
        (ValueError("a bug"), ""),
        (redis.exceptions.ResponseError("WRONGTYPE"), ""),
    ],
)
def test_which_errors_are_outages(error, part):
    assert outage_part(error) == part


def _handled(error: BaseException, path: str):
    """What the 500 handler answers while Django handles `error`."""
    try:
        raise error
    except BaseException:
        return server_error_or_unavailable(RequestFactory().get(path))


def test_a_cache_outage_not_degraded_elsewhere_is_a_503_too():
    page = _handled(redis.exceptions.ConnectionError("refused"), "/lessons/x/")
    assert page.status_code == 503
    assert b"briefly unavailable" in page.content
    api = _handled(redis.exceptions.ConnectionError("refused"), "/api/v1/quizzes/")
    assert api.status_code == 503
    assert b'"unavailable"' in api.content


def test_any_other_error_stays_a_500():
    response = _handled(ValueError("a bug"), "/history/")
    assert response.status_code == 500
    assert "Retry-After" not in response


def test_the_outage_page_speaks_the_browser_s_language(learner_client, shipped_bank, database_down):
    """The person's profile cannot be read during an outage; their browser's language still can."""
    response = learner_client.get(reverse("history"), HTTP_ACCEPT_LANGUAGE="de-DE")
    assert response.status_code == 503
    html = response.content.decode()
    assert '<html lang="de" dir="ltr">' in html
    assert "softgrade ist kurz nicht erreichbar" in html
    assert response["Content-Language"] == "de"
