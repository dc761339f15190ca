"""Answers to problems with chosen numbers, for the tests of the problem pages.

A learner's variant is made the way grading makes it (an attempt's start, a practice request);
the test then sets its givens to the numbers it needs, and every answer goes through grading's
own services, so verdicts, misconceptions and details are what grading stores."""

from __future__ import annotations

from typing import NamedTuple

from django.contrib.auth.models import AbstractBaseUser

from courses.models import Lesson, Problem, Quiz, QuizItem
from grading.models import Attempt, Response, Variant
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.practice import practice_answer_submit, practice_variant_new
from grading.services.responses import response_submit
from tests.factories import ProblemFactory, QuizFactory, QuizItemFactory, UserFactory

PROMPT = "Components have standard deviation {@s@} and d_k = {@d_k@}. What is Var(q·k)?"


def formula_problem(lesson: Lesson, **fields) -> Problem:
    """A formula problem: Var(q·k) = d_k · s², with the named mistake std-for-variance."""
    params = {
        "variables": {"d_k": {"choices": [16, 64, 256]}, "s": {"min": 0.5, "max": 3, "step": 0.5}},
        "answer": "d_k * s^2",
        "mistakes": {"std-for-variance": "sqrt(d_k) * s"},
        "prompt": PROMPT,
    }
    return ProblemFactory(lesson=lesson, family="formula", params=params, **fields)


def formula_givens(d_k: float, s: float) -> dict:
    return {"values": {"d_k": d_k, "s": s}, "prompt": PROMPT}


def dot_givens(d_k: int, sigma_q: float = 1.0, sigma_k: float = 1.0) -> dict:
    """Givens of a dot-variance variant, whose answer is d_k σq² σk²."""
    return {"d_k": d_k, "sigma_q": sigma_q, "sigma_k": sigma_k}


def exam_of(problem: Problem, lesson: Lesson | None = None) -> tuple[Quiz, QuizItem]:
    """An exam of one problem: feedback after submission, so the last saved answer counts."""
    quiz = QuizFactory(
        lesson=lesson or problem.lesson,
        mode=Quiz.Mode.EXAM,
        show_feedback=Quiz.Feedback.AFTER_SUBMISSION,
    )
    item = QuizItemFactory(quiz=quiz, question=None, problem=problem, points=2)
    return quiz, item


def sit_with(
    quiz: Quiz,
    item: QuizItem,
    user: AbstractBaseUser,
    givens: dict,
    *texts: str,
    submit: bool = True,
) -> Attempt:
    """An attempt whose variant of `item` has these givens, answered with each text in turn."""
    attempt = attempt_start(user=user, quiz=quiz)
    Variant.objects.filter(attempt=attempt, quiz_item=item).update(givens=givens)
    for text in texts:
        response_submit(attempt=attempt, item=item, text=text)
    if submit:
        attempt_submit(attempt=attempt)
    attempt.refresh_from_db()
    return attempt


def practise_with(
    problem: Problem, user: AbstractBaseUser, givens: dict, *texts: str
) -> list[Response]:
    """A fresh practice variant with these givens, answered with each text in turn."""
    variant = practice_variant_new(user=user, problem=problem)
    Variant.objects.filter(pk=variant.pk).update(givens=givens)
    variant.refresh_from_db()
    return [practice_answer_submit(user=user, variant=variant, text=text) for text in texts]


# Var(q·k) = d_k · s² on five sets of numbers: name → (d_k, s), answer.
VARIANTS = {
    1: ((16, 0.5), 4.0),
    2: ((64, 1.5), 144.0),
    3: ((256, 2.0), 1024.0),
    4: ((32, 1.0), 32.0),
    5: ((128, 2.5), 800.0),
}
# Six learners multiply by √d_k (rounded as learners round); on variant 1, 16 is also the
# square of 4, which grading diagnoses as a generic slip ("squared").
SCALED = [(1, "16"), (2, "1152"), (3, "16384"), (4, "181"), (1, "16"), (5, "9051")]
# Wrong values no relation explains (1000 is 1024 rounded to too few significant figures,
# grading says).
NOISE = [(2, "150.3"), (3, "1000"), (4, "29.5"), (5, "612"), (1, "7.3"), (2, "88.1")]


class Discovered(NamedTuple):
    problem: Problem
    quiz: Quiz
    item: QuizItem
    attempts: dict[str, Attempt]  # by user name: scaled1…6, noise1…6


def discovered_build(lesson: Lesson) -> Discovered:
    """The formula problem in an exam, answered × √d_k by six learners (SCALED) and with
    unrelated wrong values by six more (NOISE); one more answers right and one more with the
    named mistake std-for-variance (√d_k·s), which do not count among the unexplained."""
    problem = formula_problem(lesson, slug="var-formula")
    quiz, item = exam_of(problem)
    attempts = {}
    for name, rows in (("scaled", SCALED), ("noise", NOISE)):
        for number, (variant, text) in enumerate(rows, start=1):
            (d_k, s), _ = VARIANTS[variant]
            user = UserFactory(username=f"{name}{number}", first_name=f"{name.title()} {number}")
            attempts[user.username] = sit_with(quiz, item, user, formula_givens(d_k, s), text)
    sit_with(quiz, item, UserFactory(), formula_givens(64, 1.5), "144")
    sit_with(quiz, item, UserFactory(), formula_givens(64, 1.5), "12")
    return Discovered(problem, quiz, item, attempts)
