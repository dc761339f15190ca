"""Reads for the learner's pages: progress, practice, attempts and history.

Every function fetches its related rows up front (select_related / prefetch_related), so a page
costs the same few queries whatever the number of items, responses or attempts; the tests pin
those counts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Max, Prefetch, Q, QuerySet, Sum

from courses.models import Choice, Lesson, Misconception, Problem, Quiz, QuizItem
from grading import draws, ordering, policy, scores
from grading.accommodations import ReleaseTimes
from grading.models import Attempt, PracticeStreak, Response, Variant

# ---------------------------------------------------------------------------------------------
# Progress on the home page
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuizProgress:
    quiz: Quiz
    attempts: int
    submitted: int
    # None when there is no submitted attempt, or when the quiz policy hides scores.
    best_score: float | None
    max_score: float | None
    in_progress_id: int | None


@dataclass(frozen=True)
class LessonProgress:
    problems_total: int
    problems_mastered: int
    quizzes: list[QuizProgress]


def lesson_progress(
    *, user: AbstractBaseUser, lessons: Iterable[Lesson], now: datetime
) -> dict[int, LessonProgress]:
    """Per lesson id: practice problems mastered out of all, and each quiz's attempts and best
    score (only where grading.policy shows a submitted attempt's score).

    Lessons must come with their problems and quizzes prefetched (courses.selectors.course_list).
    """
    lessons = list(lessons)
    lesson_ids = [lesson.pk for lesson in lessons]
    mastered = dict(
        PracticeStreak.objects.filter(scores.MASTERED, user=user, problem__lesson_id__in=lesson_ids)
        .values_list("problem__lesson_id")
        .annotate(count=Count("id"))
    )
    per_quiz = {
        row["quiz_id"]: row
        for row in Attempt.objects.counted()
        .filter(user=user, quiz__lesson_id__in=lesson_ids)
        .values("quiz_id")
        .annotate(
            attempts=Count("id"),
            submitted=Count("id", filter=scores.SUBMITTED),
            best=scores.best_score(),
            out_of=Max("max_score"),
            open_id=Max("id", filter=Q(status=Attempt.Status.IN_PROGRESS)),
        )
    }
    progress = {}
    for lesson in lessons:
        quizzes = []
        for quiz in lesson.quizzes.all():
            row = per_quiz.get(quiz.pk, {})
            # Only the best score is read: when answers are released does not change it.
            shown = policy.learner_visibility(
                quiz=quiz, attempt_status=policy.SUBMITTED, now=now, answers_release_at=None
            )
            quizzes.append(
                QuizProgress(
                    quiz=quiz,
                    attempts=row.get("attempts", 0),
                    submitted=row.get("submitted", 0),
                    best_score=row.get("best") if shown.total_score else None,
                    max_score=row.get("out_of"),
                    in_progress_id=row.get("open_id"),
                )
            )
        progress[lesson.pk] = LessonProgress(
            problems_total=len(lesson.problems.all()),
            problems_mastered=mastered.get(lesson.pk, 0),
            quizzes=quizzes,
        )
    return progress


# ---------------------------------------------------------------------------------------------
# Practice
# ---------------------------------------------------------------------------------------------


def practice_problem(*, slug: str) -> Problem:
    """A published problem with its lesson and course (an exam-only one too, so that practising
    it is refused with the reason); raises Problem.DoesNotExist."""
    return Problem.objects.for_learners().select_related("lesson__course").get(slug=slug)


def practice_lesson(*, slug: str) -> Lesson:
    """A lesson with its course and practice problems in order; raises Lesson.DoesNotExist."""
    return (
        Lesson.objects.select_related("course")
        .prefetch_related(
            Prefetch("problems", queryset=Problem.objects.for_practice().order_by("order", "id"))
        )
        .get(slug=slug)
    )


def practice_streaks(
    *, user: AbstractBaseUser, problems: Iterable[Problem]
) -> dict[int, PracticeStreak]:
    """The learner's streak per problem id, for the problems that have one."""
    ids = [problem.pk for problem in problems]
    return {
        streak.problem_id: streak
        for streak in PracticeStreak.objects.filter(user=user, problem_id__in=ids)
    }


def practice_variant_of_learner(
    *, user: AbstractBaseUser, problem: Problem, variant_id: int
) -> Variant:
    """One of the learner's own practice variants of a problem; raises Variant.DoesNotExist."""
    return Variant.objects.get(pk=variant_id, user=user, problem=problem, attempt__isnull=True)


def variant_responses(*, variant: Variant) -> list[Response]:
    """Every submission on a variant, oldest first."""
    return list(Response.objects.filter(variant=variant).order_by("created_at", "id"))


def misconceptions_by_code(codes: Iterable[str]) -> dict[str, Misconception]:
    """The authored misconception behind each code, for the codes that have one."""
    wanted = {code for code in codes if code}
    if not wanted:
        return {}
    return {m.code: m for m in Misconception.objects.filter(code__in=wanted)}


# ---------------------------------------------------------------------------------------------
# Quizzes and attempts
# ---------------------------------------------------------------------------------------------


def quiz_detail(*, slug: str) -> Quiz:
    """A published quiz with its lesson, course and item count; raises Quiz.DoesNotExist."""
    return quiz_to_preview(slug=slug, quizzes=Quiz.objects.for_learners())


def quiz_to_preview(*, slug: str, quizzes: QuerySet[Quiz] | None = None) -> Quiz:
    """quiz_detail for an instructor's preview: published or not; raises Quiz.DoesNotExist."""
    return (
        (Quiz.objects.all() if quizzes is None else quizzes)
        .select_related("lesson__course")
        .annotate(item_count=Count("items"), points=Sum("items__points"))
        .get(slug=slug)
    )


class AttemptShown(NamedTuple):
    """An attempt and what its learner may see of it (grading.policy)."""

    attempt: Attempt
    shown: policy.Visibility


def attempts_shown(*, attempts: Iterable[Attempt], now: datetime) -> list[AttemptShown]:
    """Each attempt (its quiz already fetched) with what grading.policy lets its learner see
    (one query per quiz that releases answers after it closes, for its release time)."""
    release_at = ReleaseTimes()
    return [
        AttemptShown(
            attempt,
            policy.attempt_visibility(
                attempt=attempt, now=now, answers_release_at=release_at(attempt.quiz)
            ),
        )
        for attempt in attempts
    ]


def learner_quiz_attempts(*, user: AbstractBaseUser, quiz: Quiz) -> list[Attempt]:
    """The learner's attempts at one quiz, newest first (an instructor's previews are none of
    them)."""
    return list(
        Attempt.objects.counted()
        .filter(user=user, quiz=quiz)
        .select_related("quiz")
        .order_by("-number")
    )


def attempt_of_learner(
    *, user: AbstractBaseUser, attempt_id: int, with_sheet: bool = False
) -> Attempt:
    """The learner's own attempt with its quiz (and, `with_sheet`, its stored sheet, if any:
    grading/sheets.py); another learner's raises Attempt.DoesNotExist."""
    related = ["quiz__lesson__course", "sheet"] if with_sheet else ["quiz__lesson__course"]
    return Attempt.objects.select_related(*related).get(pk=attempt_id, user=user)


def attempt_item(*, attempt: Attempt, item_id: int) -> QuizItem:
    """One item of the attempt's quiz (a pool item as the attempt drew it); an item of another
    quiz raises QuizItem.DoesNotExist."""
    item = QuizItem.objects.select_related("question", "problem").get(
        pk=item_id, quiz_id=attempt.quiz_id
    )
    return draws.items_as_drawn(attempt=attempt, items=[item])[0]


@dataclass
class ItemRow:
    """One quiz item of an attempt, with everything its part of the page needs."""

    number: int
    item: QuizItem
    variant: Variant | None
    # A question's choices in the order this attempt shows them (grading/ordering.py).
    choices: list[Choice] = field(default_factory=list)
    responses: list[Response] = field(default_factory=list)
    score: float | None = None
    # The try whose score is the item's (grading.scores.counting_try); None when unanswered.
    counting: Response | None = None
    # None when the quiz saves answers instead of counting tries (grading.scores.tries_left).
    tries_left: int | None = None

    @property
    def counted(self) -> list[Response]:
        return [r for r in self.responses if r.counts_as_try]

    @property
    def latest(self) -> Response | None:
        return self.responses[-1] if self.responses else None

    @property
    def latest_counted(self) -> Response | None:
        counted = self.counted
        return counted[-1] if counted else None

    @property
    def tries_used(self) -> int:
        return len(self.counted)

    @property
    def solved(self) -> bool:
        return scores.solved(self.responses)

    @property
    def choice_ids(self) -> set[int]:
        """The choices of the answer that counts (the latest saved one)."""
        latest = self.latest_counted
        return {choice.pk for choice in latest.choices.all()} if latest else set()


def attempt_sheet(*, attempt: Attempt) -> list[ItemRow]:
    """Every item of an attempt in the order the attempt shows it (its own order when the quiz
    shuffles), with its variant, responses and choices: 5 queries, and 2 more for the
    questions and problems drawn from pools (grading/draws.py) when the quiz has any."""
    choices = Choice.objects.order_by("order", "id")
    items = draws.items_as_drawn(
        attempt=attempt,
        items=list(
            QuizItem.objects.filter(quiz_id=attempt.quiz_id)
            .select_related("question", "problem")
            .prefetch_related(Prefetch("question__choices", queryset=choices))
            .order_by("order", "id")
        ),
        choices=choices,
    )
    variants = {v.quiz_item_id: v for v in Variant.objects.filter(attempt=attempt)}
    by_item: dict[int, list[Response]] = defaultdict(list)
    responses = list(
        Response.objects.filter(attempt=attempt)
        .prefetch_related("choices")
        .order_by("created_at", "id")
    )
    for response in responses:
        by_item[response.quiz_item_id].append(response)
    item_scores = scores.item_scores(
        attempt=attempt, responses=responses, overrides=scores.item_overrides(attempt=attempt)
    )
    rule = scores.scoring_rule(attempt.quiz)
    return [
        ItemRow(
            number=index,
            item=item,
            variant=variants.get(item.pk),
            choices=choices,
            responses=by_item.get(item.pk, []),
            score=item_scores.get(item.pk),
            counting=scores.counting_try(
                rule=rule, tries=[r for r in by_item.get(item.pk, []) if r.counts_as_try]
            ),
            tries_left=scores.tries_left(quiz=attempt.quiz, tries=by_item.get(item.pk, [])),
        )
        for index, (item, choices) in enumerate(
            ordering.attempt_order(attempt=attempt, items=items), start=1
        )
    ]


# ---------------------------------------------------------------------------------------------
# History
# ---------------------------------------------------------------------------------------------


def learner_attempts(*, user: AbstractBaseUser) -> list[Attempt]:
    """All of a learner's attempts, newest first, with quiz and lesson (previews are none)."""
    return list(
        Attempt.objects.counted()
        .filter(user=user)
        .select_related("quiz__lesson")
        .order_by("-started_at", "-id")
    )


def learner_streaks(*, user: AbstractBaseUser) -> list[PracticeStreak]:
    """The learner's practice streaks with their problem and lesson, by lesson and problem."""
    return list(
        PracticeStreak.objects.filter(user=user)
        .select_related("problem__lesson")
        .order_by("problem__lesson__order", "problem__order", "problem__id")
    )
