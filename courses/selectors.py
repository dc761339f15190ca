"""Reads for the learners' course and lesson pages, with their related rows fetched up front:
published content only (courses.visibility)."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from .models import Course, Lesson, Problem, Quiz


def course_list() -> QuerySet[Course]:
    """Courses with their lessons in order, each with its published practice problems (never an
    exam-only one) and published quizzes: four queries."""
    return Course.objects.prefetch_related(
        Prefetch("lessons", queryset=Lesson.objects.order_by("order")),
        Prefetch(
            "lessons__problems", queryset=Problem.objects.for_practice().order_by("order", "id")
        ),
        Prefetch(
            "lessons__quizzes", queryset=Quiz.objects.for_learners().order_by("-mode", "title")
        ),
    )


def lesson_detail(*, slug: str) -> Lesson:
    """One lesson with its course, key terms, published practice problems and quizzes; raises
    Lesson.DoesNotExist."""
    return (
        Lesson.objects.select_related("course")
        .prefetch_related(
            "key_terms",
            Prefetch("problems", queryset=Problem.objects.for_practice().order_by("order", "id")),
            Prefetch("quizzes", queryset=Quiz.objects.for_learners().order_by("-mode", "title")),
        )
        .get(slug=slug)
    )
