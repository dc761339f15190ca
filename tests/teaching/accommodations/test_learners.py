"""An accommodation's learner is picked from the course's learners, by name or username in any
case: the page's search (without the script), the suggestions endpoint (for those who may set
accommodations), and the form, which refuses anyone else with a clear error."""

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from courses.models import Quiz
from grading.models import Attempt, QuizAccommodation
from teaching.accommodations.learners import (
    LearnerNotFound,
    course_learner,
    course_learners,
    learners_matching,
)
from teaching.models import CourseRole
from tests.factories import QuizFactory, UserFactory

pytestmark = pytest.mark.django_db


def attempt_at(user, quiz, *, preview=False) -> None:
    Attempt.objects.create(
        user=user,
        quiz=quiz,
        number=1,
        status=Attempt.Status.SUBMITTED,
        submitted_at=timezone.now(),
        preview=preview,
    )


@pytest.fixture
def learners(exam, course_a, course_b, people):
    """Ada Lovelace and Adam Smith learn in course A; Bea only in course B."""
    practice = QuizFactory(lesson=course_a.lessons.first(), mode=Quiz.Mode.PRACTICE)
    ada = UserFactory(username="ada.l", first_name="Ada", last_name="Lovelace")
    adam = UserFactory(username="asmith", first_name="Adam", last_name="Smith")
    bea = UserFactory(username="bea", first_name="Bea", last_name="Ada-Other")
    attempt_at(ada, practice)
    attempt_at(adam, exam.quiz)
    attempt_at(bea, Quiz.objects.get(lesson__course=course_b))
    # An instructor's preview does not make them a learner.
    attempt_at(people.instructor, practice, preview=True)
    return ada, adam, bea


def test_the_course_s_learners_are_those_with_a_counted_attempt(course_a, learners, people):
    ada, adam, bea = learners
    assert set(course_learners(course=course_a)) >= {ada, adam}
    assert bea not in course_learners(course=course_a)
    assert people.instructor not in course_learners(course=course_a)


def test_an_inactive_account_is_no_learner(course_a, learners):
    ada, _, _ = learners
    ada.is_active = False
    ada.save()
    assert ada not in course_learners(course=course_a)


@pytest.mark.parametrize(
    ("text", "usernames"),
    [
        ("ADA", ["ada.l", "asmith"]),  # Ada, and Adam by his first name
        ("lovelace", ["ada.l"]),
        ("ada love", ["ada.l"]),
        ("ad", ["ada.l", "asmith"]),
        ("SMITH", ["asmith"]),
        ("bea", []),
        ("   ", []),
    ],
)
def test_the_search_is_case_insensitive_and_kept_to_the_course(course_a, learners, text, usernames):
    found = learners_matching(course=course_a, text=text)
    assert [option.username for option in found] == usernames


def test_the_form_s_text_names_one_learner(course_a, learners):
    ada, adam, _ = learners
    assert course_learner(course=course_a, text="ADA.L") == ada
    assert course_learner(course=course_a, text="Ada Lovelace (ada.l)") == ada
    assert course_learner(course=course_a, text="smith") == adam


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("bea", "No learner of this course matches “bea”"),
        ("nobody", "No learner of this course matches “nobody”"),
        ("ad", "Several learners match “ad”: Ada Lovelace (ada.l), Adam Smith (asmith)"),
        ("", "Name a learner of the course."),
    ],
)
def test_anyone_else_or_several_is_a_clear_error(course_a, learners, text, words):
    with pytest.raises(LearnerNotFound) as refused:
        course_learner(course=course_a, text=text)
    assert words in str(refused.value)


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def endpoint(course) -> str:
    return reverse("teaching:accommodation-learners", args=[course.slug])


def test_the_suggestions_endpoint_answers_the_course_s_instructors(course_a, learners, people):
    response = _client(people.instructor).get(endpoint(course_a), {"q": "LOVE"})
    assert response.status_code == 200
    assert response.json() == {"learners": [{"username": "ada.l", "label": "Ada Lovelace (ada.l)"}]}
    assert _client(people.instructor).get(endpoint(course_a), {"q": "bea"}).json() == {
        "learners": []
    }


@pytest.mark.parametrize(("who", "status"), [("assistant", 403), ("other_assistant", 404)])
def test_the_suggestions_endpoint_refuses_everyone_else(course_a, learners, people, who, status):
    response = _client(getattr(people, who)).get(endpoint(course_a), {"q": "ada"})
    assert response.status_code == status


def test_the_suggestions_endpoint_takes_only_gets_and_signed_in_users(course_a, people):
    assert _client(people.instructor).post(endpoint(course_a), {"q": "a"}).status_code == 405
    assert Client().get(endpoint(course_a), {"q": "a"}).status_code == 302


def test_without_the_script_the_page_searches_and_links_each_learner(course_a, learners, people):
    page = reverse("teaching:accommodations", args=[course_a.slug])
    html = _client(people.instructor).get(page, {"find": "ADA"}).content.decode()
    assert "?learner=ada.l#accommodation-form" in html
    assert "bea" not in html
    picked = _client(people.instructor).get(page, {"learner": "ada.l"})
    assert picked.context["form"]["learner"].value() == "ada.l"
    none = _client(people.instructor).get(page, {"find": "zzz"}).content.decode()
    assert "No learner of the course matches “zzz”" in none


def test_the_form_takes_a_name_and_saves_for_that_learner(exam, course_a, learners, people):
    ada, _, bea = learners
    Quiz.objects.filter(pk=exam.quiz.pk).update(time_limit_minutes=60)
    page = reverse("teaching:accommodations", args=[course_a.slug])
    data = {"quiz": exam.quiz.pk, "extra_minutes": 10, "extra_attempts": 0, "reason": ""}
    refused = _client(people.instructor).post(page, {**data, "learner": "bea"})
    assert refused.status_code == 400
    assert "No learner of this course matches" in refused.context["form"].errors["learner"][0]
    saved = _client(people.instructor).post(page, {**data, "learner": "ada lovelace"})
    assert saved.status_code == 302
    assert QuizAccommodation.objects.get().learner == ada
    assert not CourseRole.objects.filter(user=bea).exists()
