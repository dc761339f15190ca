"""Publishing: new content starts unpublished, learners see published content only, and a
published quiz holds only published content (courses.publishing), refused with the item named."""

from __future__ import annotations

import pytest

from courses.models import Lesson, Problem, Question, Quiz
from courses.publishing import (
    PublishRefused,
    content_publish,
    quiz_publish_problems,
    start_refusal,
)
from tests.factories import (
    LessonFactory,
    PoolFactory,
    ProblemFactory,
    QuestionFactory,
    QuizFactory,
    QuizItemFactory,
)

pytestmark = pytest.mark.django_db


def test_new_content_starts_unpublished_whatever_makes_it():
    lesson = LessonFactory()
    question = Question.objects.create(lesson=lesson, slug="q-new", prompt="Why?")
    problem = Problem.objects.create(lesson=lesson, slug="p-new", title="P", family="dot-variance")
    quiz = Quiz.objects.create(lesson=lesson, slug="quiz-new", title="Quiz")
    assert [question.published, problem.published, quiz.published] == [False, False, False]


def test_learners_see_published_rows_only():
    lesson = LessonFactory()
    shown = ProblemFactory(lesson=lesson, slug="shown")
    ProblemFactory(lesson=lesson, slug="hidden", published=False)
    ProblemFactory(lesson=lesson, slug="exam", exam_only=True)
    QuizFactory(lesson=lesson, slug="open-quiz")
    QuizFactory(lesson=lesson, slug="draft-quiz", published=False)
    assert list(Problem.objects.for_practice()) == [shown]
    assert sorted(Problem.objects.for_learners().values_list("slug", flat=True)) == [
        "exam",
        "shown",
    ]
    assert list(Quiz.objects.for_learners().values_list("slug", flat=True)) == ["open-quiz"]
    assert Lesson.objects.get().problems.count() == 3  # instructors read the plain manager


def test_publishing_questions_and_problems_changes_only_those_asked_for():
    first, second = QuestionFactory(published=False), QuestionFactory(published=False)
    other = QuestionFactory(published=False)
    changed = content_publish(
        rows=Question.objects.filter(pk__in=[first.pk, second.pk]), published=True
    )
    assert changed == 2
    assert sorted(Question.objects.filter(published=True).values_list("pk", flat=True)) == [
        first.pk,
        second.pk,
    ]
    other.refresh_from_db()
    assert not other.published


def test_a_quiz_holding_unpublished_content_is_not_published_and_the_items_are_named():
    quiz = QuizFactory(slug="attention-practice", published=False)
    QuizItemFactory(quiz=quiz, order=0)  # published
    QuizItemFactory(quiz=quiz, order=1, question=QuestionFactory(slug="q-draft", published=False))
    QuizItemFactory(
        quiz=quiz, order=2, question=None, problem=ProblemFactory(slug="p-draft", published=False)
    )
    other = QuizFactory(published=False)
    QuizItemFactory(quiz=other)
    with pytest.raises(PublishRefused) as refused:
        content_publish(rows=Quiz.objects.filter(pk__in=[quiz.pk, other.pk]), published=True)
    assert refused.value.problems == [
        "quiz attention-practice: item 2: question q-draft is not published",
        "quiz attention-practice: item 3: problem p-draft is not published",
    ]
    # All or nothing: the other quiz, which could have been published, was not.
    assert not Quiz.objects.filter(published=True).exists()


def test_a_pool_member_that_is_not_published_keeps_its_quiz_unpublished():
    quiz = QuizFactory(slug="with-pool", published=False)
    pool = PoolFactory(lesson=quiz.lesson, slug="warm-up")
    pool.questions.add(
        QuestionFactory(slug="q-ready"), QuestionFactory(slug="q-draft", published=False)
    )
    QuizItemFactory(quiz=quiz, question=None, pool=pool)
    assert quiz_publish_problems([quiz]) == [
        "quiz with-pool: item 1: question q-draft in pool warm-up is not published"
    ]
    Question.objects.filter(slug="q-draft").update(published=True)
    assert content_publish(rows=Quiz.objects.filter(pk=quiz.pk), published=True) == 1


def test_content_a_published_quiz_holds_is_not_unpublished():
    question = QuestionFactory(slug="q-held")
    problem = ProblemFactory(slug="p-pooled")
    QuizItemFactory(quiz=QuizFactory(slug="live"), question=question)
    pool = PoolFactory(slug="pool")
    pool.problems.add(problem)
    QuizItemFactory(quiz=QuizFactory(slug="live-pool"), question=None, pool=pool)
    QuizItemFactory(quiz=QuizFactory(slug="draft", published=False), question=question)
    with pytest.raises(PublishRefused) as refused:
        content_publish(rows=Question.objects.filter(pk=question.pk), published=False)
    assert refused.value.problems == [
        "question q-held is in published quiz live: unpublish the quiz first, or take it out "
        "of the quiz"
    ]
    with pytest.raises(PublishRefused) as refused:
        content_publish(rows=Problem.objects.filter(pk=problem.pk), published=False)
    assert "problem p-pooled is in published quiz live-pool" in refused.value.problems[0]
    question.refresh_from_db()
    problem.refresh_from_db()
    assert question.published
    assert problem.published


def test_unpublishing_a_quiz_then_its_content_is_allowed():
    question = QuestionFactory()
    quiz = QuizFactory()
    QuizItemFactory(quiz=quiz, question=question)
    assert content_publish(rows=Quiz.objects.filter(pk=quiz.pk), published=False) == 1
    assert content_publish(rows=Question.objects.filter(pk=question.pk), published=False) == 1
    question.refresh_from_db()
    assert not question.published


def test_a_learner_start_is_refused_for_an_unpublished_quiz_or_item_by_number_only():
    quiz = QuizFactory()
    QuizItemFactory(quiz=quiz, order=0)
    assert start_refusal(quiz) == ""
    QuizItemFactory(quiz=quiz, order=1, question=QuestionFactory(slug="q-secret", published=False))
    refusal = start_refusal(quiz)
    assert "not published item 2 yet" in refusal
    assert "q-secret" not in refusal
    quiz.published = False
    assert start_refusal(quiz) == "This quiz is not published."
