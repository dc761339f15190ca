"""Reads for the authoring side's pages, with their related rows fetched up front."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from .models import Course, Lesson


def course_list() -> QuerySet[Course]:
    """Courses with their lessons in order, in two queries."""
    return Course.objects.prefetch_related(
        Prefetch("lessons", queryset=Lesson.objects.order_by("order"))
    )


def lesson_detail(*, slug: str) -> Lesson:
    """One lesson with its course, key terms, problems and quizzes; raises Lesson.DoesNotExist."""
    return (
        Lesson.objects.select_related("course")
        .prefetch_related("key_terms", "problems", "quizzes")
        .get(slug=slug)
    )
