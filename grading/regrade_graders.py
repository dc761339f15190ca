"""How a regrade grades an item's recorded answers (grading.regrades): a Grader reads, out of an
answer's plain row, the key its verdict depends on, and grades that key. Grading is a function
of the key alone, so each distinct key is graded once (retries of one variant, learners who
picked the same choices).

An item drawing from a pool has no one question or problem: each answer is graded against what
it answered, as that stands now, so its key names it too (the question's id, or the problem of
the answer's variant) and two members' answers never share a verdict.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import Prefetch
from django.utils import translation

from courses.models import Choice, Problem, Question, QuizItem
from grading.engine import Verdict
from grading.families import problem_tolerance
from grading.models import Response, Variant
from grading.regrade_fixes import FixedContent
from grading.services.verdicts import question_grade, variant_grade

# What one recorded answer's verdict is graded from (a Grader's key): a question's picked choice
# ids, ascending; for a problem the variant's family, givens and grading key (as the database's
# text of them), the typed text and the decimal separator it was typed with (the page's, kept in
# the verdict's detail when it is a comma); for a pool item either, after the question or
# problem answered ("question", id, …) or ("problem", id, …). Every key ends with the language
# its feedback was written in (the learner's page's), which its regrade writes it in again.
AnswerKey = tuple

# What a problem's key reads of an answer's row, besides its text.
PROBLEM_FIELDS = ("family", "givens", "grading_key", "text")


@dataclass(frozen=True)
class Grader:
    """Grades the item's recorded answers as the (fixed) content has it: `key` reads what an
    answer's verdict depends on out of its row (grading.regrades._answers), `grade` grades that."""

    key: Callable[[Any, tuple[int, ...]], AnswerKey]
    grade: Callable[[AnswerKey], Verdict]
    tolerance: tuple[float, float] | None  # a problem's (atol, rtol); None for a question or pool
    fields: tuple[str, ...]  # what `key` reads besides the verdict, for _answers
    picks: bool  # whether `key` reads the choices an answer picked


def decimal_of(detail: Any) -> str:
    """The decimal separator an answer was read with: "," when its verdict says so (a
    decimal-comma page), else "." (every answer from the API, and every older one)."""
    return detail.get("decimal", ".") if isinstance(detail, dict) else "."


def language_of(detail: Any) -> str:
    """The language an answer's feedback was written in: its verdict's detail says so when it
    was not the default (grading.services.verdicts.verdict_fields)."""
    language = detail.get("language") if isinstance(detail, dict) else None
    return language if isinstance(language, str) and language else settings.LANGUAGE_CODE


def key_language(key: AnswerKey) -> str:
    """The language a key's verdict is written in: every key ends with it."""
    return key[-1]


def _in_language(grade: Callable[[AnswerKey], Verdict]) -> Callable[[AnswerKey], Verdict]:
    """`grade` of a key whose last part is a language, run in that language (grading.regrades
    also writes the verdict's columns in it)."""

    def graded(key: AnswerKey) -> Verdict:
        with translation.override(key_language(key)):
            return grade(key[:-1])

    return graded


def _variant_grade(problem: Problem, key: AnswerKey) -> Verdict:
    family, givens, grading_key, text, decimal = key
    tolerance = problem_tolerance(problem)
    # In memory only: this grading uses the problem's tolerance now; apply() stores it.
    variant = Variant(
        family=family,
        givens=json.loads(givens),
        grading_key=json.loads(grading_key),
        atol=tolerance.atol,
        rtol=tolerance.rtol,
    )
    return variant_grade(variant=variant, text=text, decimal=decimal)


def item_grader(item: QuizItem, content: FixedContent) -> Grader:
    """How the item's recorded answers are graded as the (fixed) content has it."""
    if item.pool_id:
        return _pool_grader(item)
    if content.problem is not None:
        problem = content.problem
        tolerance = problem_tolerance(problem)
        return Grader(
            key=lambda row, picked: (
                row.family,
                row.givens,
                row.grading_key,
                row.text,
                decimal_of(row.detail),
                language_of(row.detail),
            ),
            grade=_in_language(lambda key: _variant_grade(problem, key)),
            tolerance=(tolerance.atol, tolerance.rtol),
            fields=PROBLEM_FIELDS,
            picks=False,
        )
    question = content.question

    def grade_question(key: AnswerKey) -> Verdict:
        return question_grade(question=question, choice_ids=key[0])

    return Grader(
        key=lambda row, picked: (picked, language_of(row.detail)),
        grade=_in_language(grade_question),
        tolerance=None,
        fields=(),
        picks=True,
    )


def _pool_grader(item: QuizItem) -> Grader:
    """A pool item's grader: every question and problem its answers answered, read up front,
    as they stand now. Three queries (the questions, their choices, the problems)."""
    choices = Choice.objects.select_related("misconception").order_by("order", "pk")
    answered = Response.objects.filter(quiz_item=item).values("question_id")
    questions = {
        question.pk: question
        for question in Question.objects.filter(pk__in=answered).prefetch_related(
            Prefetch("choices", queryset=choices)
        )
    }
    problems = Problem.objects.filter(variants__quiz_item=item).order_by().distinct()
    by_id = {problem.pk: problem for problem in problems}

    def key(row: Any, picked: tuple[int, ...]) -> AnswerKey:
        if row.question_id:
            return ("question", row.question_id, picked, language_of(row.detail))
        return (
            "problem",
            row.drawn_problem,
            row.family,
            row.givens,
            row.grading_key,
            row.text,
            decimal_of(row.detail),
            language_of(row.detail),
        )

    def grade(key: AnswerKey) -> Verdict:
        if key[0] == "question":
            return question_grade(question=questions[key[1]], choice_ids=key[2])
        return _variant_grade(by_id[key[1]], key[2:])

    return Grader(
        key=key,
        grade=_in_language(grade),
        tolerance=None,
        fields=("question_id", "drawn_problem", *PROBLEM_FIELDS),
        picks=True,
    )


def store_pool_tolerances(item: QuizItem) -> None:
    """Each problem a pool item drew stores its tolerance on the item's variants of it, as one
    problem's do (grading.regrades.quiz_item_regrade): later answers are graded alike."""
    for problem in Problem.objects.filter(variants__quiz_item=item).distinct():
        now = problem_tolerance(problem)
        Variant.objects.filter(quiz_item=item, problem=problem).update(atol=now.atol, rtol=now.rtol)
