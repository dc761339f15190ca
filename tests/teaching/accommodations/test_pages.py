"""The accommodations page under /teach/, the admin, and what the learner sees of their own
accommodation on the quiz page and in the API (and nobody else's)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from courses.models import Quiz
from grading.models import Attempt, QuizAccommodation
from grading.services.accommodations import AccommodationTerms, accommodation_set
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from tests.factories import QuizFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def quiz(exam):
    Quiz.objects.filter(pk=exam.quiz.pk).update(time_limit_minutes=60, attempts_allowed=2)
    exam.quiz.refresh_from_db()
    return exam.quiz


def enrol(user, course) -> None:
    """Make `user` a learner of the course: a submitted attempt at a practice quiz of it."""
    practice = QuizFactory(lesson=course.lessons.first(), mode=Quiz.Mode.PRACTICE)
    Attempt.objects.create(
        user=user,
        quiz=practice,
        number=1,
        status=Attempt.Status.SUBMITTED,
        submitted_at=timezone.now(),
    )


@pytest.fixture(autouse=True)
def learner_of_course(course_a, people):
    enrol(people.learner, course_a)


def page(course) -> str:
    return reverse("teaching:accommodations", args=[course.slug])


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _form(quiz, learner, **fields) -> dict:
    return {
        "quiz": quiz.pk,
        "learner": learner if isinstance(learner, str) else learner.username,
        "extra_minutes": 0,
        "extra_attempts": 0,
        "closes_at": "",
        "reason": "",
        **fields,
    }


def _given(quiz, learner, by, **terms) -> QuizAccommodation:
    return accommodation_set(quiz=quiz, learner=learner, terms=AccommodationTerms(**terms), by=by)


# --- the page, by role ---------------------------------------------------------------------------


def test_an_instructor_adds_one_and_it_is_listed_with_who_set_it(quiz, course_a, people):
    client = _client(people.instructor)
    response = client.post(
        page(course_a), _form(quiz, people.learner, extra_minutes=30, reason="Extra time letter")
    )
    assert response.status_code == 302
    row = QuizAccommodation.objects.get()
    assert (row.quiz, row.learner, row.extra_minutes) == (quiz, people.learner, 30)
    assert row.set_by == people.instructor
    listing = client.get(page(course_a)).content.decode()
    assert "Extra time letter" in listing
    assert people.instructor.username in listing
    assert 'id="accommodation-form"' in listing


def test_a_teaching_assistant_sees_the_list_without_forms_and_cannot_post(quiz, course_a, people):
    _given(quiz, people.learner, people.instructor, extra_attempts=1)
    client = _client(people.assistant)
    listing = client.get(page(course_a))
    assert listing.status_code == 200
    assert people.learner.username in listing.content.decode()
    assert 'id="accommodation-form"' not in listing.content.decode()
    row = QuizAccommodation.objects.get()
    refused = [
        client.post(page(course_a), _form(quiz, UserFactory(), extra_minutes=5)),
        client.post(reverse("teaching:accommodation-edit", args=[row.pk]), {}),
        client.post(reverse("teaching:accommodation-remove", args=[row.pk])),
    ]
    assert [r.status_code for r in refused] == [403, 403, 403]
    assert QuizAccommodation.objects.get().extra_attempts == 1


@pytest.mark.parametrize("who", ["other_assistant", "learner", "staff"])
def test_outside_the_course_everything_is_a_404(quiz, course_a, people, who):
    row = _given(quiz, people.learner, people.instructor, extra_attempts=1)
    client = _client(getattr(people, who))
    urls = [
        ("get", page(course_a)),
        ("post", page(course_a)),
        ("get", reverse("teaching:accommodation-edit", args=[row.pk])),
        ("post", reverse("teaching:accommodation-remove", args=[row.pk])),
    ]
    for method, url in urls:
        assert getattr(client, method)(url).status_code == 404, (method, url)
    assert QuizAccommodation.objects.count() == 1


def test_a_learner_cannot_see_another_learner_accommodation_on_the_quiz_page(quiz, people):
    _given(quiz, people.learner, people.instructor, extra_minutes=30)
    other = _client(UserFactory()).get(reverse("quiz-detail", args=[quiz.slug])).content.decode()
    assert "extra minutes" not in other
    assert "data-accommodation" not in other
    assert "60 minutes, from when you start" in other


def test_the_form_needs_the_csrf_token(quiz, course_a, people):
    client = Client(enforce_csrf_checks=True)
    client.force_login(people.instructor)
    response = client.post(page(course_a), _form(quiz, people.learner, extra_minutes=5))
    assert response.status_code == 403
    assert not QuizAccommodation.objects.exists()


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"extra_minutes": -5}, "extra_minutes", "greater than or equal to 0"),
        ({"extra_attempts": -1}, "extra_attempts", "greater than or equal to 0"),
        ({"who": "nobody-here"}, "learner", "No learner of this course matches “nobody-here”"),
        ({}, None, "Give extra minutes, extra attempts or a due date"),
        ({"closes_at": "2020-01-01T10:00"}, "closes_at", "after the quiz opens"),
        ({"closes_at": "not a date"}, "closes_at", "Enter a valid date/time"),
    ],
)
def test_form_errors_are_shown_beside_their_field_and_nothing_is_kept(
    quiz, course_a, people, fields, field, words
):
    Quiz.objects.filter(pk=quiz.pk).update(opens_at=datetime(2025, 1, 1, tzinfo=UTC))
    fields = dict(fields)
    learner = fields.pop("who", people.learner)
    response = _client(people.instructor).post(page(course_a), _form(quiz, learner, **fields))
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert words in " ".join(errors.get(field or "__all__", [])), errors
    assert not QuizAccommodation.objects.exists()


def test_a_quiz_of_another_course_cannot_be_chosen(quiz, course_a, course_b, people):
    elsewhere = Quiz.objects.get(lesson__course=course_b)
    response = _client(people.instructor).post(
        page(course_a), _form(elsewhere, people.learner, extra_minutes=5)
    )
    assert response.status_code == 400
    assert "quiz" in response.context["form"].errors
    assert not QuizAccommodation.objects.exists()


def test_an_instructor_changes_and_removes_one(quiz, course_a, people):
    row = _given(quiz, people.learner, people.instructor, extra_minutes=10)
    client = _client(people.instructor)
    edit = reverse("teaching:accommodation-edit", args=[row.pk])
    assert 'value="10"' in client.get(edit).content.decode()
    # The quiz and the learner are not the form's to change: what is sent for them is ignored.
    other = UserFactory()
    changed = client.post(edit, _form(quiz, other, extra_minutes=25, closes_at="2031-03-04T12:30"))
    assert changed.status_code == 302
    row.refresh_from_db()
    assert (row.learner, row.extra_minutes) == (people.learner, 25)
    assert row.closes_at == datetime(2031, 3, 4, 12, 30, tzinfo=UTC)
    assert client.post(edit, _form(quiz, other, extra_minutes=-1)).status_code == 400
    removed = client.post(reverse("teaching:accommodation-remove", args=[row.pk]))
    assert removed.status_code == 302
    assert not QuizAccommodation.objects.exists()


def test_the_course_page_links_to_the_accommodations(course_a, people):
    body = _client(people.assistant).get(reverse("teaching:course", args=[course_a.slug]))
    assert page(course_a) in body.content.decode()


# --- the learner's own rules -------------------------------------------------------------------


def test_the_learner_sees_their_own_rules_on_the_quiz_page(quiz, people):
    due = timezone.now() + timedelta(days=3)
    _given(
        quiz, people.learner, people.instructor, extra_minutes=30, extra_attempts=1, closes_at=due
    )
    body = _client(people.learner).get(reverse("quiz-detail", args=[quiz.slug])).content.decode()
    assert "You have 30 extra minutes: 90 minutes in all." in body
    assert "You have 1 extra attempt: 3 in all." in body
    assert "90 minutes, from when you start an attempt" in body
    assert "0 used of 3" in body
    assert "Your due date" in body
    assert f"{due.astimezone(UTC):%-d %b %Y, %H:%M} UTC</time>" in body


def test_the_quiz_page_lets_an_accommodated_learner_start_past_the_quiz_limit(quiz, people):
    Quiz.objects.filter(pk=quiz.pk).update(attempts_allowed=1)
    quiz.refresh_from_db()
    plain = UserFactory()
    _given(quiz, people.learner, people.instructor, extra_attempts=1)
    for learner in (plain, people.learner):
        attempt_submit(attempt=attempt_start(user=learner, quiz=quiz))
    url = reverse("quiz-detail", args=[quiz.slug])
    assert "You have used all 1 attempt at this quiz." in _client(plain).get(url).content.decode()
    client = _client(people.learner)
    assert "Start attempt 2" in client.get(url).content.decode()
    started = client.post(reverse("attempt-start", args=[quiz.slug]))
    assert started.status_code == 302
    assert people.learner.attempts.filter(quiz=quiz).count() == 2
    # The same start without the accommodation is refused on the server.
    _client(plain).post(reverse("attempt-start", args=[quiz.slug]))
    assert plain.attempts.filter(quiz=quiz).count() == 1


def test_the_api_gives_the_learner_their_own_rules_only(quiz, people):
    _given(quiz, people.learner, people.instructor, extra_minutes=15)
    url = f"/api/v1/quizzes/{quiz.slug}/rules/"
    own = APIClient()
    own.force_login(people.learner)
    body = own.get(url).json()
    assert body["time_limit_minutes"] == 75
    assert body["extra_minutes"] == 15
    assert body["attempts_allowed"] == 2
    assert body["own_due_date"] is False
    other = APIClient()
    other.force_login(UserFactory())
    assert other.get(url).json()["extra_minutes"] == 0
    # A learner cannot ask for someone else's.
    refused = own.get(url, {"learner": "someone"})
    assert refused.status_code == 400
    assert refused.json()["field"] == "learner"


# --- the admin -----------------------------------------------------------------------------------


def test_the_admin_sets_one_through_the_same_rules(quiz, people):
    client = _client(people.superuser)
    add = reverse("admin:grading_quizaccommodation_add")
    fields = {
        "quiz": quiz.pk,
        "learner": people.learner.pk,
        "extra_minutes": -3,
        "extra_attempts": 0,
        "reason": "",
    }
    refused = client.post(add, fields)
    assert refused.status_code == 200
    assert not QuizAccommodation.objects.exists()
    saved = client.post(add, {**fields, "extra_minutes": 20})
    assert saved.status_code == 302
    row = QuizAccommodation.objects.get()
    assert (row.extra_minutes, row.set_by_username) == (20, people.superuser.username)
    nothing = client.post(add, {**fields, "learner": UserFactory().pk, "extra_minutes": 0})
    assert "Give extra minutes, extra attempts or a due date" in nothing.content.decode()
    assert QuizAccommodation.objects.count() == 1


def test_the_admin_refuses_staff_without_a_role_in_the_course(quiz, people):
    people.staff.user_permissions.add(
        *Permission.objects.filter(codename__endswith="quizaccommodation")
    )
    client = _client(people.staff)
    response = client.post(
        reverse("admin:grading_quizaccommodation_add"),
        {"quiz": quiz.pk, "learner": people.learner.pk, "extra_minutes": 10, "extra_attempts": 0},
    )
    assert "Only the course&#x27;s instructors may set" in response.content.decode()
    assert not QuizAccommodation.objects.exists()


def test_a_due_date_typed_on_the_form_is_utc_whatever_the_current_zone(quiz, course_a, people):
    client = _client(people.instructor)
    with timezone.override("Pacific/Auckland"):
        form = _form(quiz, people.learner, closes_at="2031-03-04T12:30")
        assert client.post(page(course_a), form).status_code == 302
    row = QuizAccommodation.objects.get()
    assert row.closes_at == datetime(2031, 3, 4, 12, 30, tzinfo=UTC)
