"""The quiz form's penalty for extra tries: saved as a share, refused out of range or where tries
are not counted, and left empty it is no penalty."""

from __future__ import annotations

import pytest
from django.urls import reverse

from courses.models import Quiz
from tests.courses.test_admin import instructor_client  # noqa: F401 (a fixture)
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db


def quiz_post(lesson, **fields) -> dict:
    return {
        "lesson": str(lesson.pk),
        "title": "Drill",
        "slug": "drill",
        "mode": "practice",
        "tries_per_item": "3",
        "show_feedback": "immediately",
        "release_answers": "after_submission",
        "overdue_handling": "submit",
        "grace_minutes": "0",
        "items-TOTAL_FORMS": "0",
        "items-INITIAL_FORMS": "0",
        "items-MIN_NUM_FORMS": "0",
        "items-MAX_NUM_FORMS": "1000",
        **fields,
    }


@pytest.mark.parametrize(("entered", "stored"), [("0.3333", 0.3333), ("0.5", 0.5), ("", 0.0)])
def test_the_penalty_is_saved_as_entered_and_empty_is_none(instructor_client, entered, stored):  # noqa: F811
    lesson = LessonFactory()
    page = instructor_client.get(reverse("admin:courses_quiz_add")).content.decode()
    assert 'name="extra_try_penalty"' in page
    response = instructor_client.post(
        reverse("admin:courses_quiz_add"), quiz_post(lesson, extra_try_penalty=entered)
    )
    assert response.status_code == 302
    assert Quiz.objects.get().extra_try_penalty == stored


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"extra_try_penalty": "1.5"}, "Ensure this value is less than or equal to 1.0."),
        ({"extra_try_penalty": "-0.1"}, "Ensure this value is greater than or equal to 0.0."),
        (
            {"extra_try_penalty": "0.5", "show_feedback": "after_submission"},
            "A penalty per extra try needs feedback per item",
        ),
    ],
)
def test_a_penalty_that_cannot_apply_is_refused(instructor_client, fields, message):  # noqa: F811
    response = instructor_client.post(
        reverse("admin:courses_quiz_add"), quiz_post(LessonFactory(), **fields)
    )
    assert message in response.content.decode()
    assert not Quiz.objects.exists()


@pytest.mark.parametrize(
    "fields",
    [
        {"extra_try_penalty": 1.5},
        {"extra_try_penalty": 0.5, "show_feedback": Quiz.Feedback.AFTER_SUBMISSION},
    ],
)
def test_the_database_refuses_a_penalty_that_cannot_apply(fields):
    from django.db import IntegrityError, transaction

    from tests.factories import QuizFactory

    with pytest.raises(IntegrityError), transaction.atomic():
        QuizFactory(mode=Quiz.Mode.PRACTICE, **fields)
