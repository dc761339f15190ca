"""Learners' pages show published content only: the home page, the lesson page, the practice
list, a problem's practice page and a quiz's page; a start is refused, with nothing written, for
a quiz holding unpublished content; and an instructor's preview still sees everything."""

from __future__ import annotations

import pytest
from django.urls import reverse

from courses.models import Problem, Question, Quiz
from grading import scores
from grading.models import Attempt, PracticeStreak
from grading.services.attempts import attempt_start
from grading.services.errors import QuizNotOpen
from tests.factories import (
    LessonFactory,
    ProblemFactory,
    QuestionFactory,
    QuizFactory,
    QuizItemFactory,
    UserFactory,
)
from tests.grading.exam_records import exam_build, instructor_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def lesson():
    lesson = LessonFactory(slug="attention")
    ProblemFactory(lesson=lesson, slug="shown-problem", title="Shown problem")
    ProblemFactory(lesson=lesson, slug="draft-problem", title="Draft problem", published=False)
    QuizItemFactory(quiz=QuizFactory(lesson=lesson, slug="shown-quiz", title="Shown quiz"))
    QuizItemFactory(
        quiz=QuizFactory(lesson=lesson, slug="draft-quiz", title="Draft quiz", published=False)
    )
    return lesson


@pytest.fixture
def learner_client(client):
    client.force_login(UserFactory())
    return client


def test_the_home_page_counts_and_links_published_content_only(learner_client, lesson):
    html = learner_client.get(reverse("home")).content.decode()
    assert "0 of 1 problem mastered" in html
    assert "Shown quiz" in html
    assert "Draft quiz" not in html


@pytest.mark.parametrize("page", ["lesson-detail", "practice-lesson"])
def test_the_lesson_page_and_practice_list_show_published_content_only(
    learner_client, lesson, page
):
    html = learner_client.get(reverse(page, args=[lesson.slug])).content.decode()
    assert "Shown problem" in html
    assert "Draft problem" not in html
    assert "draft-quiz" not in html
    if page == "lesson-detail":
        assert "Shown quiz" in html


def test_an_unpublished_problem_or_quiz_page_is_a_404_like_any_unknown_slug(learner_client, lesson):
    assert learner_client.get(reverse("practice", args=["shown-problem"])).status_code == 200
    assert learner_client.get(reverse("practice", args=["draft-problem"])).status_code == 404
    assert learner_client.post(reverse("practice-new", args=["draft-problem"])).status_code == 404
    assert learner_client.get(reverse("quiz-detail", args=["shown-quiz"])).status_code == 200
    assert learner_client.get(reverse("quiz-detail", args=["draft-quiz"])).status_code == 404
    assert learner_client.post(reverse("attempt-start", args=["draft-quiz"])).status_code == 404
    assert not Attempt.objects.exists()


def test_a_start_is_refused_by_item_number_when_a_published_quiz_holds_unpublished_content(
    learner_client,
):
    quiz = QuizFactory(slug="live")
    QuizItemFactory(quiz=quiz, order=0)
    QuizItemFactory(quiz=quiz, order=1, question=QuestionFactory(slug="q-draft"))
    Question.objects.filter(slug="q-draft").update(published=False)  # as if forced past the rule
    response = learner_client.post(reverse("attempt-start", args=["live"]), follow=True)
    html = response.content.decode()
    assert "its instructor has not published item 2 yet" in html
    assert "q-draft" not in html
    assert not Attempt.objects.exists()
    with pytest.raises(QuizNotOpen):
        attempt_start(user=UserFactory(), quiz=quiz)


def test_an_instructor_previews_an_unpublished_quiz_with_unpublished_items(client):
    exam = exam_build()
    Quiz.objects.filter(pk=exam.quiz.pk).update(published=False)
    Question.objects.filter(lesson=exam.quiz.lesson).update(published=False)
    instructor = instructor_of(exam)
    client.force_login(instructor)
    response = client.post(reverse("quiz-preview", args=[exam.quiz.slug]))
    assert response.status_code == 302
    preview = Attempt.objects.get(user=instructor)
    assert preview.preview
    assert client.get(response.url).status_code == 200
    # A learner of the same quiz gets nothing.
    client.force_login(UserFactory())
    assert client.get(reverse("quiz-detail", args=[exam.quiz.slug])).status_code == 404


def test_a_streak_on_a_problem_unpublished_since_is_not_counted_as_mastered():
    learner = UserFactory()
    problem = ProblemFactory()
    PracticeStreak.objects.create(
        user=learner, problem=problem, current=3, best=3, mastered_at=problem.lesson.created_at
    )
    assert PracticeStreak.objects.filter(scores.MASTERED).count() == 1
    Problem.objects.filter(pk=problem.pk).update(published=False)
    assert PracticeStreak.objects.filter(scores.MASTERED).count() == 0
