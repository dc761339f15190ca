"""Reads for the instructor pages: the courses a user teaches, a course's quizzes with their
counts, and an attempt item by item with every try. Each costs a fixed number of queries."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, OuterRef, Prefetch, Q, QuerySet, Subquery, Sum
from django.utils.module_loading import import_string
from django.utils.translation import gettext

from courses.models import Course, Lesson, Misconception, Quiz
from grading import scores, selectors
from grading.models import Attempt, Response
from grading.templatetags.grading_display import choice_letter
from teaching.access import courses_taught
from teaching.models import CourseRole
from teaching.results.reads import item_times, time_taken


def quiz_lms_link_views(*, user: AbstractBaseUser, quiz: Quiz) -> list[tuple[str, str]]:
    """The LMS links to the quiz whose own instructor view (the LMS course's members, roster
    sync, scores sent) the user may open, as (name, path): asked of the function
    SOFTGRADE_QUIZ_LMS_LINK_VIEWS names (the lti app, which teaching never imports); none
    without it."""
    path = getattr(settings, "SOFTGRADE_QUIZ_LMS_LINK_VIEWS", "")
    return import_string(path)(user=user, quiz=quiz) if path else []


def courses_with_roles(*, user: AbstractBaseUser) -> list[Course]:
    """The courses the user teaches, by title, each with `role` (the user's role's label, or
    "Superuser"), `lesson_count` and `quiz_count`."""
    role = CourseRole.objects.filter(course=OuterRef("pk"), user=user).order_by().values("role")
    courses = list(
        courses_taught(user)
        .annotate(
            held=Subquery(role[:1]),
            lesson_count=Count("lessons", distinct=True),
            quiz_count=Count("lessons__quizzes", distinct=True),
        )
        .order_by("title", "pk")
    )
    labels = dict(CourseRole.Role.choices)
    for course in courses:
        course.role = labels.get(course.held, gettext("Superuser"))
    return courses


@dataclass(frozen=True)
class QuizCounts:
    quiz: Quiz
    items: int
    points: int
    learners: int
    attempts: int
    submitted: int
    in_progress: int


def course_lessons(*, course: Course) -> list[tuple[Lesson, list[QuizCounts]]]:
    """The course's lessons in order, each with its quizzes and their counts: items and points,
    learners with an attempt, attempts, submitted and in progress. Three queries."""
    quizzes: QuerySet[Quiz] = Quiz.objects.annotate(
        item_count=Count("items"), points=Sum("items__points")
    ).order_by("title", "pk")
    lessons = list(
        course.lessons.order_by("order", "pk").prefetch_related(
            Prefetch("quizzes", queryset=quizzes)
        )
    )
    per_quiz = {
        row["quiz_id"]: row
        for row in Attempt.objects.counted()
        .filter(quiz__lesson__course=course)
        .order_by()
        .values("quiz_id")
        .annotate(
            learners=Count("user", distinct=True),
            attempts=Count("id"),
            submitted=Count("id", filter=scores.SUBMITTED),
            # Not attempts less submitted: one never submitted when time ran out is neither.
            in_progress=Count("id", filter=Q(status=Attempt.Status.IN_PROGRESS)),
        )
    }
    found = []
    for lesson in lessons:
        rows = []
        for quiz in lesson.quizzes.all():
            counts = per_quiz.get(quiz.pk, {})
            attempts = counts.get("attempts", 0)
            submitted = counts.get("submitted", 0)
            rows.append(
                QuizCounts(
                    quiz=quiz,
                    items=quiz.item_count,
                    points=quiz.points or 0,
                    learners=counts.get("learners", 0),
                    attempts=attempts,
                    submitted=submitted,
                    in_progress=counts.get("in_progress", 0),
                )
            )
        found.append((lesson, rows))
    return found


@dataclass(frozen=True)
class Try:
    """One response to an item, as the staff view lists it: the choices it picked by their
    letters in the attempt's order, whether it is the answer that counts, and the authored
    misconception its code names."""

    response: Response
    letters: list[str]
    counts: bool
    misconception: Misconception | None


@dataclass
class ReviewItem:
    """One item of an attempt as its learner saw it (grading.selectors.ItemRow, numbered in the
    learner's order), every response to it, its number in the quiz's order (the results grid's
    column) and the time on it (teaching.results.reads.item_times; None without an answer)."""

    row: selectors.ItemRow
    tries: list[Try]
    quiz_number: int
    time: timedelta | None


@dataclass
class AttemptReview:
    items: list[ReviewItem]
    # By code, for every response of the attempt (the learner's verdict panels read it too).
    misconceptions: dict[str, Misconception]
    time_taken: timedelta | None


def attempt_review(*, attempt: Attempt) -> AttemptReview:
    """The attempt item by item (grading.selectors.attempt_sheet: the order its learner saw,
    items and choices, and every response, invalid ones too), each response marked with the
    letters it picked in that order and whether it counts (grading.scores.counting_try).
    Seven queries."""
    rows = selectors.attempt_sheet(attempt=attempt)
    misconceptions = selectors.misconceptions_by_code(
        response.misconception for row in rows for response in row.responses
    )
    quiz_order = sorted(rows, key=lambda row: (row.item.order, row.item.pk))
    quiz_numbers = {row.item.pk: number for number, row in enumerate(quiz_order, start=1)}
    times = item_times(
        started_at=attempt.started_at,
        answers=[response for row in rows for response in row.responses],
    )
    items = []
    for row in rows:
        letters = {
            choice.pk: choice_letter(number) for number, choice in enumerate(row.choices, start=1)
        }
        counting = row.counting
        tries = [
            Try(
                response=response,
                letters=sorted(letters.get(choice.pk, "?") for choice in response.choices.all()),
                counts=response is counting,
                misconception=misconceptions.get(response.misconception),
            )
            for response in row.responses
        ]
        items.append(
            ReviewItem(
                row=row,
                tries=tries,
                quiz_number=quiz_numbers[row.item.pk],
                time=times.get(row.item.pk),
            )
        )
    return AttemptReview(items=items, misconceptions=misconceptions, time_taken=time_taken(attempt))
