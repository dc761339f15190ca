"""Reads for a course's problem pages: which problems a course has, which of their variants and
responses belong to the course, and each answered variant's score beside its numbers (for
facility by parameter).

What counts for a course: the variants of its quizzes' attempts, and the practice variants of its
own lessons' problems (an instructor's preview, which has no learner, never). Each read costs a
fixed number of queries, whatever the number of learners and answers.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from enum import StrEnum

from django.db.models import Count, Q, QuerySet
from django.http import Http404
from django.utils.translation import gettext

from courses.models import Course, Problem, Quiz
from grading import scores
from grading.models import Attempt, Response, Variant, counted_attempt
from teaching.discovery.mistakes import numeric_givens
from teaching.discovery.parameters import VariantScore, list_measures


class Source(StrEnum):
    """Which variants a page counts: both kinds, quizzes' only or practice only."""

    ALL = "all"
    QUIZZES = "quizzes"
    PRACTICE = "practice"

    @property
    def label(self) -> str:
        return {
            Source.ALL: gettext("Quizzes and practice"),
            Source.QUIZZES: gettext("Quizzes only (submitted attempts)"),
            Source.PRACTICE: gettext("Practice only"),
        }[self]


def variants_of(course: Course, source: Source = Source.ALL) -> Q:
    """The Variant rows that belong to the course under `source` (an instructor's previews
    are none of them)."""
    quizzes = Q(attempt__quiz__lesson__course=course) & counted_attempt("attempt")
    practice = Q(attempt__isnull=True, user__isnull=False, problem__lesson__course=course)
    return {Source.ALL: quizzes | practice, Source.QUIZZES: quizzes, Source.PRACTICE: practice}[
        source
    ]


def responses_of(course: Course) -> Q:
    """The Response rows that belong to the course: to its quizzes (previews left out), or to
    practice variants of its problems."""
    return (Q(attempt__quiz__lesson__course=course) & counted_attempt("attempt")) | Q(
        attempt__isnull=True, variant__problem__lesson__course=course
    )


def course_problems(course: Course) -> QuerySet[Problem]:
    """The problems of the course's lessons and those its quizzes use, in lesson order."""
    return (
        Problem.objects.filter(
            Q(lesson__course=course) | Q(quiz_items__quiz__lesson__course=course)
        )
        .select_related("lesson")
        .distinct()
        .order_by("lesson__order", "order", "pk")
    )


def course_problem_or_404(*, course: Course, slug: str) -> Problem:
    """A problem of the course (the caller found the course through teaching.access)."""
    found = course_problems(course).filter(slug=slug).first()
    if found is None:
        raise Http404("No such problem in this course.")
    return found


@dataclass(frozen=True)
class ProblemCounts:
    problem: Problem
    answers: int  # counted tries
    correct: int
    unnamed: int  # wrong, with no named misconception
    learners: int


def problem_counts(*, course: Course) -> list[ProblemCounts]:
    """Each problem of the course with its counted tries in the course: how many, how many right,
    how many wrong with no misconception named, by how many learners. Two queries."""
    problems = list(course_problems(course))
    tallies = {
        row["variant__problem_id"]: row
        for row in Response.objects.filter(
            responses_of(course), variant__problem__in=problems, counts_as_try=True
        )
        .order_by()
        .values("variant__problem_id")
        .annotate(
            answers=Count("id"),
            correct=Count("id", filter=Q(status=Response.Status.CORRECT)),
            unnamed=Count("id", filter=Q(status=Response.Status.INCORRECT, misconception="")),
            learners=Count("user_id", distinct=True),
        )
    }
    found = []
    for problem in problems:
        row = tallies.get(problem.pk, {})
        found.append(
            ProblemCounts(
                problem=problem,
                answers=row.get("answers", 0),
                correct=row.get("correct", 0),
                unnamed=row.get("unnamed", 0),
                learners=row.get("learners", 0),
            )
        )
    return found


def variant_numbers(givens: object) -> dict[str, float]:
    """The numbers a variant was generated with, as its learner saw them: each finite number
    among the givens (a formula problem's values included), and n(z), spread(z) of each list."""
    if not isinstance(givens, dict):
        return {}
    return {**numeric_givens(givens), **list_measures(givens)}


def variant_scores(*, course: Course, problem: Problem, source: Source) -> list[VariantScore]:
    """Each answered variant of the problem in the course with its numbers and its score.

    A quiz variant of a submitted attempt scores its item's score as the quiz counts it
    (grading.scores.item_score: the best try with immediate feedback, else the last saved
    answer; an instructor's override is about the learner, not the numbers, and is left out).
    A practice variant scores its first counted try, as the mastery streak counts it. Variants
    without a counted try, and those of attempts in progress, are left out. Two queries.
    """
    variants = Variant.objects.filter(variants_of(course, source), problem=problem).filter(
        Q(attempt__isnull=True) | Q(attempt__status=Attempt.Status.SUBMITTED)
    )
    rows = list(
        variants.values_list(
            "id",
            "user_id",
            "attempt_id",
            "attempt__quiz__mode",
            "attempt__quiz__show_feedback",
            "attempt__quiz__extra_try_penalty",
            "givens",
        )
    )
    tries: dict[int, list[Response]] = defaultdict(list)
    for response in (
        Response.objects.filter(variant__in=variants, counts_as_try=True)
        .only("id", "variant_id", "score", "created_at")
        .order_by("created_at", "id")
    ):
        tries[response.variant_id].append(response)
    found = []
    for variant_id, user_id, attempt_id, mode, show_feedback, penalty, givens in rows:
        counted = tries.get(variant_id)
        if not counted:
            continue
        if attempt_id is None:
            score = counted[0].score
        else:
            quiz = Quiz(mode=mode, show_feedback=show_feedback, extra_try_penalty=penalty)
            score = scores.item_score(rule=scores.scoring_rule(quiz), tries=counted)
        found.append(
            VariantScore(
                variant=variant_id,
                learner=user_id,
                numbers=variant_numbers(givens),
                score=float(score),
            )
        )
    return found
