"""Instructors set the shuffle options of a quiz and pin choices in the admin."""

import pytest
from django.urls import reverse

from courses.models import Choice, Quiz
from tests.courses.test_admin import question_post
from tests.factories import InstructorFactory, LessonFactory, MisconceptionFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def instructor_client(client):
    client.force_login(InstructorFactory())
    return client


def quiz_post(lesson, **overrides):
    data = {
        "lesson": str(lesson.pk),
        "title": "Final",
        "slug": "final",
        "mode": "exam",
        "tries_per_item": "1",
        "show_feedback": "after_submission",
        "release_answers": "after_submission",
        "overdue_handling": "submit",
        "grace_minutes": "0",
        "items-TOTAL_FORMS": "0",
        "items-INITIAL_FORMS": "0",
        "items-MIN_NUM_FORMS": "0",
        "items-MAX_NUM_FORMS": "1000",
    }
    data.update(overrides)
    return data


def test_the_quiz_form_words_the_default_and_saves_each_setting(instructor_client):
    lesson = LessonFactory()
    page = instructor_client.get(reverse("admin:courses_quiz_add")).content.decode()
    assert "By mode: on for exams, off for practice quizzes" in page
    assert 'name="shuffle_items"' in page
    assert 'name="shuffle_choices"' in page

    response = instructor_client.post(
        reverse("admin:courses_quiz_add"),
        quiz_post(lesson, shuffle_items="unknown", shuffle_choices="false"),
    )
    assert response.status_code == 302
    quiz = Quiz.objects.get(slug="final")
    assert (quiz.shuffle_items, quiz.shuffle_choices) == (None, False)
    assert (quiz.shuffles_items, quiz.shuffles_choices) == (True, False)

    response = instructor_client.post(
        reverse("admin:courses_quiz_change", args=[quiz.pk]),
        quiz_post(lesson, mode="practice", shuffle_items="unknown", shuffle_choices="true"),
    )
    assert response.status_code == 302
    quiz.refresh_from_db()
    assert (quiz.shuffles_items, quiz.shuffles_choices) == (False, True)


def test_the_quiz_form_sets_what_happens_when_time_runs_out(instructor_client):
    lesson = LessonFactory()
    page = instructor_client.get(reverse("admin:courses_quiz_add")).content.decode()
    assert '<option value="submit" selected>Submit what was saved</option>' in page
    assert '<option value="no_score">Never submitted: no score</option>' in page
    response = instructor_client.post(
        reverse("admin:courses_quiz_add"),
        quiz_post(lesson, overdue_handling="no_score", grace_minutes="5"),
    )
    assert response.status_code == 302
    quiz = Quiz.objects.get(slug="final")
    assert (quiz.overdue_handling, quiz.grace_minutes) == (Quiz.OverdueHandling.NO_SCORE, 5)


@pytest.mark.parametrize(
    ("field", "entered", "error"),
    [
        ("grace_minutes", "-1", "Ensure this value is greater than or equal to 0."),
        ("overdue_handling", "abandon", "Select a valid choice. abandon is not one of"),
    ],
)
def test_a_bad_overdue_setting_is_refused_and_saves_nothing(
    instructor_client, field, entered, error
):
    response = instructor_client.post(
        reverse("admin:courses_quiz_add"), quiz_post(LessonFactory(), **{field: entered})
    )
    assert response.status_code == 200
    assert error in response.content.decode()
    assert not Quiz.objects.exists()


def test_a_choice_can_be_pinned_in_the_question_form(instructor_client):
    lesson = LessonFactory()

    misconception = MisconceptionFactory(lesson=lesson)
    choices = [
        {"text": "$d_k$", "is_correct": "on"},
        {"text": "$\\sqrt{d_k}$", "misconception": str(misconception.pk)},
        {"text": "None of the above", "misconception": str(misconception.pk), "pinned": "on"},
    ]
    response = instructor_client.post(
        reverse("admin:courses_question_add"), question_post(lesson, choices)
    )
    assert response.status_code == 302
    assert list(Choice.objects.filter(pinned=True).values_list("text", flat=True)) == [
        "None of the above"
    ]
