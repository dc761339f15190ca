"""Quizzes that draw from pools, for the tests of grading/draws.py and the pages over it."""

from __future__ import annotations

from courses.models import Pool, Question, Quiz
from tests.factories import (
    ChoiceFactory,
    MisconceptionFactory,
    PoolFactory,
    ProblemFactory,
    QuestionFactory,
    QuizFactory,
    QuizItemFactory,
)


def two_choice_question(quiz: Quiz, prompt: str) -> Question:
    """A single-choice question in the quiz's lesson: a right choice first, then a wrong one."""
    question = QuestionFactory(lesson=quiz.lesson, kind=Question.Kind.SINGLE, prompt=prompt)
    ChoiceFactory(question=question, text=f"Right: {prompt}", is_correct=True, order=0)
    ChoiceFactory(
        question=question,
        text=f"Wrong: {prompt}",
        is_correct=False,
        misconception=MisconceptionFactory(lesson=quiz.lesson),
        order=1,
    )
    return question


def pool_of(quiz: Quiz, *, questions: int = 6, problems: int = 0) -> Pool:
    """A pool in the quiz's lesson: two-choice questions, then problems."""
    pool = PoolFactory(lesson=quiz.lesson)
    for n in range(questions):
        pool.questions.add(two_choice_question(quiz, f"Pooled question {n}?"))
    for _ in range(problems):
        pool.problems.add(ProblemFactory(lesson=quiz.lesson))
    return pool


def quiz_with_pool(
    *,
    draw: int = 2,
    questions: int = 6,
    problems: int = 0,
    points: int = 2,
    fixed: bool = True,
    mode: str = Quiz.Mode.PRACTICE,
    **settings,
) -> tuple[Quiz, Pool]:
    """A quiz of one fixed question (1 point) and `draw` items drawing from one pool."""
    feedback = Quiz.Feedback.AFTER_SUBMISSION if mode == Quiz.Mode.EXAM else "immediately"
    quiz = QuizFactory(mode=mode, show_feedback=feedback, **settings)
    pool = pool_of(quiz, questions=questions, problems=problems)
    if fixed:
        QuizItemFactory(quiz=quiz, question=two_choice_question(quiz, "Fixed question?"), order=0)
    for n in range(draw):
        QuizItemFactory(quiz=quiz, question=None, pool=pool, points=points, order=n + 1)
    return quiz, pool
