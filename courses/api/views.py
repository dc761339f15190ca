"""Content discovery for integrations and signed-in learners: courses, lessons, quizzes and
practice problems, each read in a fixed number of queries whatever the page size."""

from __future__ import annotations

from django.db.models import Prefetch
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.response import Response

from api.errors import not_found
from api.scope import request_scope
from api.validation import paging_params, query_params
from courses.api.serializers import (
    ContentQuerySerializer,
    CourseQuerySerializer,
    CourseSerializer,
    LessonDetailSerializer,
    LessonSerializer,
    NoQuerySerializer,
    ProblemSerializer,
    QuizDetailSerializer,
    QuizQuerySerializer,
    QuizSerializer,
)
from courses.models import Course, Lesson, Problem, Quiz, QuizItem


class _ContentList(generics.ListAPIView):
    """A list narrowed to the caller's courses and to the `course` / `lesson` asked for."""

    query_serializer = ContentQuerySerializer
    course_path = "lesson__course"  # from a row to its course
    lesson_path = "lesson"  # from a row to its lesson

    def filter_queryset(self, queryset):
        params = query_params(self.request, self.query_serializer, paging_params(self))
        rows = request_scope(self.request).courses(queryset, self.course_path)
        if params.get("course"):
            rows = rows.filter(**{f"{self.course_path}__slug": params["course"]})
        if params.get("lesson"):
            rows = rows.filter(**{f"{self.lesson_path}__slug": params["lesson"]})
        if params.get("mode"):
            rows = rows.filter(mode=params["mode"])
        return rows


class _ContentDetail(generics.GenericAPIView):
    course_path = "lesson__course"
    missing = gettext_lazy("No content with that slug is available to you.")

    def get(self, request, slug: str):
        rows = request_scope(request).courses(self.get_queryset(), self.course_path)
        found = rows.filter(slug=slug).first()
        if found is None:
            raise not_found(str(self.missing))
        return Response(self.get_serializer(found).data)


def _courses():
    return Course.objects.prefetch_related(
        Prefetch("lessons", queryset=Lesson.objects.order_by("order"))
    )


@extend_schema(tags=["content"], summary="List courses and their lessons")
class CourseList(_ContentList):
    serializer_class = CourseSerializer
    query_serializer = NoQuerySerializer
    course_path = "pk"

    def get_queryset(self):
        return _courses().order_by("title", "id")


@extend_schema(tags=["content"], summary="A course and its lessons")
class CourseDetail(_ContentDetail):
    serializer_class = CourseSerializer
    course_path = "pk"
    missing = gettext_lazy("No course with that slug is available to you.")

    def get_queryset(self):
        return _courses()


@extend_schema(tags=["content"], summary="List lessons with their key terms")
class LessonList(_ContentList):
    serializer_class = LessonSerializer
    query_serializer = CourseQuerySerializer
    course_path = "course"

    def get_queryset(self):
        return (
            Lesson.objects.select_related("course")
            .prefetch_related("key_terms")
            .order_by("course__title", "order", "id")
        )


@extend_schema(tags=["content"], summary="A lesson: its body, key terms and misconceptions")
class LessonDetail(_ContentDetail):
    serializer_class = LessonDetailSerializer
    course_path = "course"
    missing = gettext_lazy("No lesson with that slug is available to you.")

    def get_queryset(self):
        return Lesson.objects.select_related("course").prefetch_related(
            "key_terms", "misconceptions"
        )


@extend_schema(tags=["content"], summary="List quizzes: mode, limits and feedback policy")
class QuizList(_ContentList):
    serializer_class = QuizSerializer
    query_serializer = QuizQuerySerializer

    def get_queryset(self):
        return (
            Quiz.objects.for_learners()
            .select_related("lesson__course")
            .order_by("lesson__order", "title", "id")
        )


@extend_schema(tags=["content"], summary="A quiz and its items' public metadata")
class QuizDetail(_ContentDetail):
    serializer_class = QuizDetailSerializer
    missing = gettext_lazy("No quiz with that slug is available to you.")

    def get_queryset(self):
        items = QuizItem.objects.select_related("question", "problem", "pool").order_by(
            "order", "id"
        )
        return (
            Quiz.objects.for_learners()
            .select_related("lesson__course")
            .prefetch_related(Prefetch("items", queryset=items))
        )


@extend_schema(tags=["content"], summary="List practice problems")
class ProblemList(_ContentList):
    serializer_class = ProblemSerializer

    def get_queryset(self):
        return (
            Problem.objects.for_practice()
            .select_related("lesson__course")
            .order_by("lesson__order", "order", "id")
        )


@extend_schema(tags=["content"], summary="A practice problem")
class ProblemDetail(_ContentDetail):
    serializer_class = ProblemSerializer
    missing = gettext_lazy("No problem with that slug is available to you.")

    def get_queryset(self):
        # An exam-only problem is no practice problem: a 404 like any other slug.
        return Problem.objects.for_practice().select_related("lesson__course")
