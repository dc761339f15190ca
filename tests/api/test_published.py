"""The API shows learners and integrations published content only: an unpublished quiz or
problem is missing from every list and a 404 everywhere else, like a slug that does not exist."""

from __future__ import annotations

import pytest

from courses.models import Lesson
from grading.models import Attempt, Variant
from tests.factories import ProblemFactory, QuizFactory, QuizItemFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def drafts(course):
    lesson = Lesson.objects.get(course=course)
    quiz = QuizFactory(lesson=lesson, slug="draft-quiz", published=False)
    QuizItemFactory(quiz=quiz)
    return quiz, ProblemFactory(lesson=lesson, slug="draft-problem", published=False)


def every_slug(client, path: str) -> set[str]:
    return {row["slug"] for row in client.get(f"{path}?page_size=1000").json()["results"]}


def test_lists_leave_unpublished_content_out(lms, drafts):
    client = lms.client()
    quizzes, problems = (
        every_slug(client, "/api/v1/quizzes/"),
        every_slug(client, "/api/v1/problems/"),
    )
    assert "attention-practice" in quizzes
    assert "dot-variance" in problems
    assert "draft-quiz" not in quizzes
    assert "draft-problem" not in problems


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/quizzes/draft-quiz/",
        "/api/v1/problems/draft-problem/",
        "/api/v1/quizzes/draft-quiz/rules/",
    ],
)
def test_an_unpublished_quiz_or_problem_is_not_found(lms, drafts, path):
    query = {"learner": "stud-1"} if "rules" in path else None
    assert lms.client().get(path, query).status_code == 404
    published = path.replace("draft-quiz", "attention-practice").replace(
        "draft-problem", "dot-variance"
    )
    assert lms.client().get(published, query).status_code == 200


def test_an_unpublished_quiz_cannot_be_started_nor_its_problem_practised(lms, drafts):
    client = lms.client()
    started = client.post("/api/v1/attempts/", {"quiz": "draft-quiz", "learner": "stud-1"})
    assert started.status_code == 404
    practised = client.post("/api/v1/variants/", {"problem": "draft-problem", "learner": "stud-1"})
    assert practised.status_code == 404
    assert not Attempt.objects.exists()
    assert not Variant.objects.exists()
