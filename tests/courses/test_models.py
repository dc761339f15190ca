import pytest
from django.db import IntegrityError, transaction

from courses.models import Quiz
from tests.factories import (
    ChoiceFactory,
    LessonFactory,
    MisconceptionFactory,
    ProblemFactory,
    QuestionFactory,
    QuizFactory,
    QuizItemFactory,
)

pytestmark = pytest.mark.django_db


def violates(factory, **kwargs) -> bool:
    try:
        with transaction.atomic():
            factory(**kwargs)
    except IntegrityError:
        return True
    return False


def test_wrong_choice_must_name_a_misconception():
    question = QuestionFactory()
    assert violates(ChoiceFactory, question=question, is_correct=False, misconception=None)
    misconception = MisconceptionFactory(lesson=question.lesson)
    assert not violates(
        ChoiceFactory, question=question, is_correct=False, misconception=misconception
    )


def test_quiz_item_is_exactly_one_of_question_or_problem():
    quiz = QuizFactory()
    problem = ProblemFactory(lesson=quiz.lesson)
    question = QuestionFactory(lesson=quiz.lesson)
    assert violates(QuizItemFactory, quiz=quiz, question=question, problem=problem)
    assert violates(QuizItemFactory, quiz=quiz, question=None, problem=None)
    assert not violates(QuizItemFactory, quiz=quiz, question=None, problem=problem)
    assert not violates(QuizItemFactory, quiz=quiz, question=question, problem=None)


def test_exam_cannot_give_immediate_feedback():
    assert violates(QuizFactory, mode=Quiz.Mode.EXAM, show_feedback=Quiz.Feedback.IMMEDIATELY)
    assert not violates(
        QuizFactory, mode=Quiz.Mode.EXAM, show_feedback=Quiz.Feedback.AFTER_SUBMISSION
    )


def test_answers_after_close_need_a_close_time():
    assert violates(QuizFactory, release_answers=Quiz.AnswerRelease.AFTER_CLOSE, closes_at=None)


def test_tries_per_item_must_be_positive():
    assert violates(QuizFactory, tries_per_item=0)


def test_problem_tolerance_is_both_or_neither():
    assert violates(ProblemFactory, atol=0.1, rtol=None)
    assert not violates(ProblemFactory, atol=None, rtol=None)
    assert not violates(ProblemFactory, atol=0.0, rtol=0.01)


def test_lesson_order_is_unique_within_a_course():
    lesson = LessonFactory(order=1)
    assert violates(LessonFactory, course=lesson.course, order=1)
    assert not violates(LessonFactory, order=1)


def test_readable_names():
    lesson = LessonFactory(title="Scaling", order=2, course__title="Attention math")
    assert str(lesson) == "Attention math › 2. Scaling"
    misconception = MisconceptionFactory(code="std-for-variance", title="Std for variance")
    assert str(misconception) == "std-for-variance: Std for variance"
    quiz = QuizFactory(title="Exam", mode=Quiz.Mode.EXAM, show_feedback="after_submission")
    assert str(quiz) == "Exam (Exam)"
    choice = ChoiceFactory(text="$d_k$", is_correct=True)
    assert str(choice) == "✓ dₖ"  # plain text: the admin shows it in lists and messages
