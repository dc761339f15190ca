"""Who may see which instructor page: every page and export under /teach/, for an instructor and
a teaching assistant of the course, a teaching assistant of another course, a learner (even on
their own attempt), staff without a role, a superuser and anonymous visitors."""

from __future__ import annotations

import pytest
from django.urls import reverse

from teaching import access
from teaching.urls import urlpatterns
from tests.factories import QuizItemFactory
from tests.grading.exam_records import sit
from tests.teaching.test_queries import PAGES, problem_pages

pytestmark = pytest.mark.django_db

SEES = 200
HIDDEN = 404
LOGIN = 302


@pytest.fixture
def attempt(exam, people):
    return sit(exam, people.learner, choice="B", factor=1.05)


@pytest.fixture
def pages(exam, course_a, attempt) -> dict[str, str]:
    """Every page and export of course A's instructor side."""
    quiz = exam.quiz.slug
    return {
        "course": reverse("teaching:course", args=[course_a.slug]),
        "results": reverse("teaching:quiz-results", args=[quiz]),
        "results, every attempt grouped": reverse("teaching:quiz-results", args=[quiz])
        + "?attempts=all&group=lms",
        "gradebook": reverse("teaching:quiz-gradebook", args=[quiz]),
        "gradebook, first": reverse("teaching:quiz-gradebook", args=[quiz]) + "?attempts=first",
        "responses CSV": reverse("teaching:quiz-responses", args=[quiz]) + "?attempts=last",
        "grade by item": reverse("teaching:item-grading", args=[quiz, exam.problem_item.pk]),
        "attempt": reverse("teaching:attempt", args=[attempt.pk]),
        "override": reverse("teaching:item-override", args=[attempt.pk, exam.question_item.pk]),
        "regrade": reverse("teaching:item-regrade", args=[exam.question_item.pk]),
        "regrade, a fix previewed": reverse("teaching:item-regrade", args=[exam.problem_item.pk])
        + "?fix=1&atol=0&rtol=0.1",
        **problem_pages(course_a, exam.problem, attempt.user),
        "statistics": reverse("teaching:quiz-statistics", args=[quiz]),
        "statistics, every attempt": reverse("teaching:quiz-statistics", args=[quiz])
        + "?attempts=all",
        "accommodations": reverse("teaching:accommodations", args=[course_a.slug]),
        "responses to a question": reverse(
            "teaching:item-responses", args=[quiz, exam.question_item.pk]
        ),
        "responses to a problem": reverse(
            "teaching:item-responses", args=[quiz, exam.problem_item.pk]
        )
        + "?attempts=all",
    }


# Pages whose POST changes a score (tests/teaching/scores/test_roles.py tries every role).
CHANGE_SCORES = {"override", "regrade", "regrade, a fix previewed", "grade by item"}
# Pages whose POST sets an accommodation (tests/teaching/accommodations/test_pages.py).
SET_ACCOMMODATIONS = {"accommodations"}


@pytest.mark.parametrize(
    ("who", "expected"),
    [
        ("instructor", SEES),
        ("assistant", SEES),
        ("superuser", SEES),
        ("other_assistant", HIDDEN),
        ("learner", HIDDEN),  # the attempt is their own: the staff view is still not theirs
        ("staff", HIDDEN),
    ],
)
def test_every_page_and_export_of_a_course_is_for_its_roles_only(
    client, people, pages, who, expected
):
    client.force_login(getattr(people, who))
    for name, url in pages.items():
        response = client.get(url)
        assert response.status_code == expected, (who, name)
        if expected == HIDDEN:
            # A 404 like any missing page: no word of the course, quiz or learner.
            assert b"Quiz " not in response.content, name


def test_anonymous_visitors_are_sent_to_sign_in(client, pages):
    for name, url in {**pages, "courses": reverse("teaching:courses")}.items():
        response = client.get(url)
        assert response.status_code == LOGIN, name
        assert response["Location"].startswith(reverse("login") + "?next=/teach/"), name


@pytest.mark.parametrize(
    ("who", "expected"),
    [
        ("instructor", SEES),
        ("assistant", SEES),
        ("other_assistant", SEES),
        ("superuser", SEES),
        ("learner", HIDDEN),
        ("staff", HIDDEN),
    ],
)
def test_the_course_list_is_a_404_for_anyone_who_teaches_nothing(client, people, who, expected):
    client.force_login(getattr(people, who))
    assert client.get(reverse("teaching:courses")).status_code == expected


def test_the_course_list_names_only_the_courses_taught(client, people, course_a, course_b):
    client.force_login(people.other_assistant)
    page = client.get(reverse("teaching:courses")).content.decode()
    assert course_b.title in page
    assert "Teaching assistant" in page
    assert course_a.title not in page

    client.force_login(people.superuser)
    page = client.get(reverse("teaching:courses")).content.decode()
    assert course_a.title in page
    assert course_b.title in page


def test_another_course_s_quiz_and_attempts_are_hidden_from_its_teaching_assistant(
    client, people, course_b
):
    """The other way round: course A's instructor reaches nothing of course B."""
    quiz_b = course_b.lessons.get().quizzes.get()
    client.force_login(people.instructor)
    assert client.get(reverse("teaching:course", args=[course_b.slug])).status_code == HIDDEN
    assert client.get(reverse("teaching:quiz-results", args=[quiz_b.slug])).status_code == HIDDEN
    gradebook = reverse("teaching:quiz-gradebook", args=[quiz_b.slug])
    assert client.get(gradebook).status_code == HIDDEN
    statistics = reverse("teaching:quiz-statistics", args=[quiz_b.slug])
    assert client.get(statistics).status_code == HIDDEN
    item = QuizItemFactory(quiz=quiz_b)
    responses = reverse("teaching:item-responses", args=[quiz_b.slug, item.pk])
    assert client.get(responses).status_code == HIDDEN


def test_a_missing_object_and_one_out_of_reach_look_the_same(client, people, attempt):
    client.force_login(people.other_assistant)
    hidden = client.get(reverse("teaching:attempt", args=[attempt.pk]))
    missing = client.get(reverse("teaching:attempt", args=[attempt.pk + 1000]))
    assert hidden.status_code == missing.status_code == HIDDEN

    def main(response) -> str:
        page = response.content.decode()
        return page[page.index("<main") : page.index("</main>")]

    assert main(hidden) == main(missing)


def test_an_inactive_holder_of_a_role_teaches_nothing(people, course_a):
    people.instructor.is_active = False
    assert list(access.courses_taught(people.instructor)) == []
    assert list(access.courses_taught(people.assistant)) == [course_a]


@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_the_pages_only_read(client, people, pages, method):
    client.force_login(people.instructor)
    for name, url in pages.items():
        if method == "post" and name in CHANGE_SCORES | SET_ACCOMMODATIONS:
            continue
        assert getattr(client, method)(url).status_code == 405, name


@pytest.mark.parametrize(
    ("page", "query"),
    [
        ("teaching:quiz-results", "?attempts=worst"),
        ("teaching:quiz-results", "?group=nation"),
        ("teaching:quiz-gradebook", "?attempts=all"),  # one attempt per learner in a gradebook
        ("teaching:quiz-gradebook", "?attempts="),
        ("teaching:quiz-responses", "?attempts=all"),  # one attempt per learner, as a gradebook
        ("teaching:quiz-statistics", "?attempts=best"),  # statistics: first or all
    ],
)
def test_an_unknown_filter_is_a_400(client, people, exam, page, query):
    client.force_login(people.assistant)
    assert client.get(reverse(page, args=[exam.quiz.slug]) + query).status_code == 400


def test_every_page_is_in_the_matrix():
    """A page added under /teach/ must join the tests above and the query bounds
    (test_queries.PAGES; the course list has tests of its own here)."""
    covered = {
        "courses": "courses",
        "course": "course",
        "quiz-results": "results",
        "quiz-gradebook": "gradebook",
        "quiz-responses": "responses CSV",
        "item-grading": "grade by item",
        "attempt": "attempt",
        "item-override": "override",
        "item-regrade": "regrade",
        "course-problems": "problems",
        "problem-parameters": "by parameter",
        "problem-misconceptions": "new misconceptions",
        "course-misconceptions": "misconception profile",
        "learner-profile": "learner profile",
        "quiz-statistics": "statistics",
        "item-responses": "responses to a question",
        "accommodations": "accommodations",
    }
    # Pages that only take a POST, or are only for those who may change something, with their
    # own tests of who may (CSRF included): naming a mistake or keeping a note
    # (test_mistake_naming.py); changing or removing an accommodation
    # (accommodations/test_pages.py); the learner suggestions only instructors who set
    # accommodations get (accommodations/test_learners.py).
    actions = {
        "problem-misconception-name",
        "accommodation-edit",
        "accommodation-remove",
        "accommodation-learners",
    }
    assert {pattern.name for pattern in urlpatterns} == set(covered) | actions
    assert set(covered.values()) <= set(PAGES)
