"""A quiz's content version: one number that changes whenever what its learners' sheets show
changes (its items and their points, the prompts of its questions and problems, the choices).

What is kept per quiz (grading/sheets.py: the stored sheets) is keyed by
`Quiz.content_version`, which the attempt page reads with the
attempt in one query, so knowing whether a kept value is current costs nothing. Every path that
changes a quiz's content calls `content_changed` in its own transaction: the quiz, question,
problem and pool admin, the bank import, the Moodle import, publishing, and grading's points
changes and regrades. Never a signal or save(): a path that changes content says so, here.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import F, Q

from .models import Quiz, QuizItem


def quizzes_showing(
    *,
    question_ids: Iterable[int] = (),
    problem_ids: Iterable[int] = (),
    pool_ids: Iterable[int] = (),
) -> set[int]:
    """The ids of the quizzes with an item showing one of these questions, problems or pools, or
    drawing from a pool that holds one of the questions or problems."""
    questions, problems, pools = set(question_ids), set(problem_ids), set(pool_ids)
    if not (questions or problems or pools):
        return set()
    shown = (
        Q(question_id__in=questions)
        | Q(problem_id__in=problems)
        | Q(pool_id__in=pools)
        | Q(pool__questions__in=questions)
        | Q(pool__problems__in=problems)
    )
    return set(QuizItem.objects.filter(shown).values_list("quiz_id", flat=True).distinct())


def content_changed(
    *,
    quiz_ids: Iterable[int] = (),
    question_ids: Iterable[int] = (),
    problem_ids: Iterable[int] = (),
    pool_ids: Iterable[int] = (),
) -> set[int]:
    """Raise the content version of these quizzes and of every quiz showing one of these
    questions, problems or pools; the ids of the quizzes raised."""
    quizzes = {pk for pk in quiz_ids if pk is not None} | quizzes_showing(
        question_ids=question_ids, problem_ids=problem_ids, pool_ids=pool_ids
    )
    if quizzes:
        Quiz.objects.filter(pk__in=quizzes).update(content_version=F("content_version") + 1)
    return quizzes
