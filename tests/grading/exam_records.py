"""A small exam with hand-checkable numbers, for the tests of overrides, regrades and deletions.

Item 1 is a single-choice question worth 2 points (choice A marked right, B and C wrong); item 2 is
a dot-variance problem worth 3 points. Feedback comes after submission, so the latest answer to an
item counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.contrib.auth.models import AbstractBaseUser

from courses.models import Choice, Problem, Question, Quiz, QuizItem
from grading import engine
from grading.models import Attempt, Variant
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.previews import preview_start
from grading.services.responses import response_submit
from teaching.models import CourseRole
from tests.factories import (
    ChoiceFactory,
    LessonFactory,
    MisconceptionFactory,
    ProblemFactory,
    QuestionFactory,
    QuizFactory,
    QuizItemFactory,
    UserFactory,
)


@dataclass
class Exam:
    quiz: Quiz
    question_item: QuizItem
    problem_item: QuizItem
    problem: Problem
    choices: dict[str, Choice]


def exam_build() -> Exam:
    lesson = LessonFactory()
    quiz = QuizFactory(
        lesson=lesson, mode=Quiz.Mode.EXAM, show_feedback=Quiz.Feedback.AFTER_SUBMISSION
    )
    question = QuestionFactory(lesson=lesson, kind=Question.Kind.SINGLE)
    mistaken = MisconceptionFactory(lesson=lesson)
    choices = {
        label: ChoiceFactory(
            question=question,
            text=label,
            is_correct=label == "A",
            misconception=None if label == "A" else mistaken,
            order=i,
        )
        for i, label in enumerate("ABC")
    }
    problem = ProblemFactory(lesson=lesson, family="dot-variance")
    question_item = QuizItemFactory(quiz=quiz, question=question, points=2, order=1)
    problem_item = QuizItemFactory(quiz=quiz, question=None, problem=problem, points=3, order=2)
    return Exam(quiz, question_item, problem_item, problem, choices)


def instructor_of(exam: Exam, **user_fields) -> AbstractBaseUser:
    """An instructor of the exam's course: who may override and regrade its scores
    (teaching.access.may_change_scores)."""
    user = UserFactory(**user_fields)
    CourseRole.objects.create(
        course=exam.quiz.lesson.course, user=user, role=CourseRole.Role.INSTRUCTOR
    )
    return user


def true_answer(variant: Variant) -> float:
    family = engine.get_family(variant.family)
    return float(np.asarray(family.solve(variant.givens).answer))


def sit(
    exam: Exam,
    user: AbstractBaseUser,
    *,
    choice: str,
    factor: float,
    submit: bool = True,
    preview: bool = False,
) -> Attempt:
    """The learner picks a choice and types the problem's answer times `factor` (1.05 is 5 % off:
    wrong under the family's 1 % tolerance, right under 10 %); with `preview`, an instructor
    does so in a fresh preview of the exam."""
    if preview:
        attempt = preview_start(user=user, quiz=exam.quiz, fresh=True)
    else:
        attempt = attempt_start(user=user, quiz=exam.quiz)
    response_submit(attempt=attempt, item=exam.question_item, choice_ids=[exam.choices[choice].pk])
    variant = Variant.objects.get(attempt=attempt, quiz_item=exam.problem_item)
    response_submit(
        attempt=attempt, item=exam.problem_item, text=repr(true_answer(variant) * factor)
    )
    if submit:
        attempt_submit(attempt=attempt)
    attempt.refresh_from_db()
    return attempt


def sit_preview(
    exam: Exam, user: AbstractBaseUser, *, choice: str = "A", factor: float = 1.0, submit=True
) -> Attempt:
    """An instructor previews the exam and answers as `sit` does, in a fresh preview."""
    return sit(exam, user, choice=choice, factor=factor, submit=submit, preview=True)


def cohort_sits(exam: Exam) -> dict[str, Attempt]:
    """Four learners sit the exam, for the regrade tests. Ann: A and the exact answer,
    2 + 3 = 5. Ben: B and 5 % off, 0. Cal: C and 5 % off, 0. Dee (still in progress): B and the
    exact answer, 0 + 3 = 3."""
    picks = {"ann": ("A", 1.0), "ben": ("B", 1.05), "cal": ("C", 1.05), "dee": ("B", 1.0)}
    return {
        name: sit(
            exam, UserFactory(username=name), choice=choice, factor=factor, submit=name != "dee"
        )
        for name, (choice, factor) in picks.items()
    }


def cohort_with_override(exam: Exam, instructor: AbstractBaseUser) -> dict[str, Attempt]:
    """cohort_sits, then the instructor overrides Ben's question to 1.5 of its 2 points (Ben
    1.5), for the tests of a points change."""
    from grading.overrides import item_score_override

    attempts = cohort_sits(exam)
    item_score_override(
        attempt=attempts["ben"],
        item=exam.question_item,
        score=1.5,
        reason="B is fair.",
        by=instructor,
    )
    for attempt in attempts.values():
        attempt.refresh_from_db()
    return attempts


submitted_hook_calls: list[int] = []


def record_submitted_hook(*, attempt: Attempt) -> None:
    """Stands in for the LTI passback: what grading tells the LMS, in order."""
    submitted_hook_calls.append(attempt.pk)
