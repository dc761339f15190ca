"""Domain errors reach the API through one table (SOFTGRADE_API_ERRORS): its status, the
error's own code and message; an error the table does not name is not turned into a 4xx."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from api.errors import api_exception_handler
from grading.models import Attempt
from grading.services.errors import NoTriesLeft, ServiceError
from tests.factories import QuizFactory, QuizItemFactory

HERE = __name__


class Refused(Exception):
    code = "refused_here"

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


class RefusedForGood(Refused):
    code = "refused_for_good"


class Plain(Exception):
    """No code and no message of its own."""


TABLE = {f"{HERE}.Refused": 422, f"{HERE}.RefusedForGood": 410, f"{HERE}.Plain": 409}


def answer(exc):
    response = api_exception_handler(exc, {})
    return None if response is None else (response.status_code, response.data)


def test_the_rules_refusing_is_a_409_with_the_services_code_and_message():
    assert answer(NoTriesLeft("No tries left on this item.")) == (
        409,
        {"code": "no_tries_left", "message": "No tries left on this item."},
    )


@override_settings(SOFTGRADE_API_ERRORS=TABLE)
def test_the_table_gives_the_status_and_the_error_its_code():
    assert answer(Refused("Not now.")) == (422, {"code": "refused_here", "message": "Not now."})


@override_settings(SOFTGRADE_API_ERRORS=TABLE)
def test_a_subclass_named_in_the_table_answers_with_its_own_status():
    assert answer(RefusedForGood("Never.")) == (
        410,
        {"code": "refused_for_good", "message": "Never."},
    )


@override_settings(SOFTGRADE_API_ERRORS=TABLE)
def test_an_error_without_a_code_gets_the_statuss_name():
    assert answer(Plain("Two at once.")) == (409, {"code": "conflict", "message": "Two at once."})


@override_settings(SOFTGRADE_API_ERRORS={f"{HERE}.Refused": 422})
def test_an_error_the_table_does_not_name_is_left_to_fail_loudly():
    assert answer(ServiceError("Refused.")) is None
    assert answer(ValueError("a bug")) is None


@pytest.mark.parametrize(
    ("table", "error"),
    [
        ({f"{HERE}.TABLE": 400}, TypeError),  # not an exception
        ({f"{HERE}.Refused": 499}, ValueError),  # not an HTTP status
        ({f"{HERE}.Missing": 400}, ImportError),
    ],
)
def test_a_wrong_table_fails_at_the_first_error_it_is_asked_about(table, error):
    with override_settings(SOFTGRADE_API_ERRORS=table), pytest.raises(error):
        answer(Refused("Not now."))


@pytest.mark.django_db
def test_the_table_is_the_one_place_an_api_refusal_takes_its_status(lms):
    """Through a real request: start an attempt on a quiz that is not open yet."""
    lesson = lms.integration.api_keys.get().courses.get().lessons.first()
    later = QuizFactory(opens_at=timezone.now() + timedelta(days=1), lesson=lesson)
    QuizItemFactory(quiz=later)
    start = {"quiz": later.slug, "learner": "stud-1"}
    with override_settings(SOFTGRADE_API_ERRORS={"grading.services.errors.QuizNotOpen": 423}):
        refused = lms.client().post("/api/v1/attempts/", start, format="json")
    assert refused.status_code == 423
    assert refused.json()["code"] == "quiz_not_open"
    assert not Attempt.objects.filter(quiz=later).exists()
