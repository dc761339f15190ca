"""docs/statistics.md's worked example as records: five learners' first attempts at a quiz of a
true/false question (1 point), a single choice question of four choices (2 points) and a
dot-variance problem (2 points), made through the services, the half points set by an
instructor's overrides (grading.overrides).

| learner | item 1 | item 2 | item 3 (problem) | fractions | total |
|---|---|---|---|---|---|
| Ann | True ✓ | A ✓ | the answer ✓ | 1, 1, 1 | 5 |
| Ben | True ✓ | A ✓ | the width-ignored mistake; override 1 | 1, 1, 0.5 | 4 |
| Cai | False ✗ | B ✗; override 1 | "abc" (invalid), −answer (sign); override 1 | 0, .5, .5 | 2 |
| Dan | True ✓ | C ✗ | answer × 1.37 (unexplained); override 1 | 1, 0, 0.5 | 2 |
| Eve | False ✗ | A ✓ | no answer | 0, 1, NaN | 2 |

("override 1": an instructor set the item to 1 point.)
Besides: Ann's second attempt, submitted (False, D, answer × 1.37: 0 points), counted only with
every attempt; Ben's second attempt and Fay's first, both in progress, never counted. Wrong
choices name misconceptions: False `tf-wrong`; B `picked-b`; C and D `picked-c-or-d`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.contrib.auth.models import AbstractBaseUser

from courses.models import Choice, Misconception, Question, Quiz, QuizItem
from grading import engine
from grading.models import Attempt, Variant
from grading.overrides import item_score_override
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.responses import response_submit
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
class Example:
    quiz: Quiz
    items: list[QuizItem]
    choices: dict[str, Choice]  # "True", "False", "A" … "D"
    learners: dict[str, AbstractBaseUser]
    first: dict[str, Attempt]  # each learner's first attempt
    ann_second: Attempt


def _answer(attempt: Attempt, item: QuizItem) -> tuple[float, dict[str, float]]:
    variant = Variant.objects.get(attempt=attempt, quiz_item=item)
    solution = engine.get_family(variant.family).solve(variant.givens)
    mistakes = {code: float(np.asarray(value)) for code, value in solution.mistakes.items()}
    return float(np.asarray(solution.answer)), mistakes


def _sit(example: Example, user, picks: tuple[str, str], typed: list, submit=True):
    """One attempt: the two picks, then each answer typed to the problem, in order: a number
    is a factor of the true answer (1, -1, 1.37), a mistake's code its value, else the text."""
    attempt = attempt_start(user=user, quiz=example.quiz)
    for item, pick in zip(example.items, picks, strict=False):
        response_submit(attempt=attempt, item=item, choice_ids=[example.choices[pick].pk])
    answer, mistakes = _answer(attempt, example.items[2])
    for entry in typed:
        if isinstance(entry, float | int):
            text = repr(answer * entry)
        else:
            text = repr(mistakes[entry]) if entry in mistakes else entry
        response_submit(attempt=attempt, item=example.items[2], text=text)
    if submit:
        attempt_submit(attempt=attempt)
    attempt.refresh_from_db()
    return attempt


def example_build(*, by: AbstractBaseUser) -> Example:
    """The records, in a course of their own; `by` sets the overrides (a superuser)."""
    lesson = LessonFactory()
    quiz = QuizFactory(
        lesson=lesson, mode=Quiz.Mode.EXAM, show_feedback=Quiz.Feedback.AFTER_SUBMISSION
    )
    codes = {}
    for code, title in (
        ("tf-wrong", "Believes the opposite"),
        ("picked-b", "Confuses variance and standard deviation"),
        ("picked-c-or-d", "Forgets the width"),
    ):
        codes[code] = MisconceptionFactory(lesson=lesson, code=code, title=title)
    # The problem's named mistake (the shipped bank names it too, and codes are unique).
    Misconception.objects.get_or_create(
        code="width-ignored", defaults={"lesson": lesson, "title": "Ignores the width d_k"}
    )
    true_false = QuestionFactory(lesson=lesson, kind=Question.Kind.TRUE_FALSE)
    single = QuestionFactory(lesson=lesson, kind=Question.Kind.SINGLE)
    choices = {}
    for order, (label, question, wrong) in enumerate(
        (
            ("True", true_false, None),
            ("False", true_false, "tf-wrong"),
            ("A", single, None),
            ("B", single, "picked-b"),
            ("C", single, "picked-c-or-d"),
            ("D", single, "picked-c-or-d"),
        )
    ):
        choices[label] = ChoiceFactory(
            question=question,
            text=label,
            is_correct=wrong is None,
            misconception=codes.get(wrong),
            order=order,
        )
    items = [
        QuizItemFactory(quiz=quiz, question=true_false, points=1, order=1),
        QuizItemFactory(quiz=quiz, question=single, points=2, order=2),
        QuizItemFactory(
            quiz=quiz,
            question=None,
            problem=ProblemFactory(lesson=lesson, family="dot-variance"),
            points=2,
            order=3,
        ),
    ]
    names = ("Ann", "Ben", "Cai", "Dan", "Eve", "Fay")
    learners = {name: UserFactory(first_name=name, last_name="Learner") for name in names}
    example = Example(quiz, items, choices, learners, {}, None)  # type: ignore[arg-type]
    plan = {
        "Ann": (("True", "A"), [1]),
        "Ben": (("True", "A"), ["width-ignored"]),
        "Cai": (("False", "B"), ["abc", -1]),
        "Dan": (("True", "C"), [1.37]),
        "Eve": (("False", "A"), []),
    }
    for name, (picks, typed) in plan.items():
        example.first[name] = _sit(example, learners[name], picks, typed)
    overrides = {"Ben": [(2, 1)], "Cai": [(1, 1), (2, 1)], "Dan": [(2, 1)]}
    for name, changes in overrides.items():
        for index, points in changes:
            item_score_override(
                attempt=example.first[name],
                item=items[index],
                score=points,
                reason="Half marks: the working was right.",
                by=by,
            )
        example.first[name].refresh_from_db()
    example.ann_second = _sit(example, learners["Ann"], ("False", "D"), [1.37])
    _sit(example, learners["Ben"], ("False", "B"), [1], submit=False)
    _sit(example, learners["Fay"], ("True", "A"), [1], submit=False)
    return example
