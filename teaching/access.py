"""Who may see which course's instructor pages, decided here once.

Every page and export under /teach/ finds its course, quiz or attempt through these functions:
a superuser sees every course; anyone else the courses they hold a role in (teaching.models.
CourseRole), whatever that role; a course out of reach is a 404, exactly like one that does not
exist, so the pages never tell a teaching assistant which other courses, quizzes or attempts
there are. Being staff gives nothing here by itself: staff author in the admin.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet
from django.http import Http404

from courses.models import Course, Quiz
from grading.models import Attempt

NOT_TAUGHT = "No such course among the courses you teach."


def courses_taught(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Course]:
    """The courses whose instructor pages the user may see (none for anonymous and inactive
    users)."""
    if not user.is_authenticated or not user.is_active:
        return Course.objects.none()
    if user.is_superuser:
        return Course.objects.all()
    # One row per course: a user holds at most one role in a course.
    return Course.objects.filter(teaching_roles__user=user)


def teaching_or_404(user: AbstractBaseUser) -> None:
    """Raise a 404 unless the user teaches some course (a superuser always does)."""
    if not user.is_superuser and not courses_taught(user).exists():
        raise Http404(NOT_TAUGHT)


def course_for_staff_or_404(*, user: AbstractBaseUser, slug: str) -> Course:
    """A course the user teaches, by slug."""
    found = courses_taught(user).filter(slug=slug).first()
    if found is None:
        raise Http404(NOT_TAUGHT)
    return found


def quiz_for_staff_or_404(*, user: AbstractBaseUser, slug: str) -> Quiz:
    """A quiz of a course the user teaches, by slug, with its lesson and course."""
    found = (
        Quiz.objects.select_related("lesson__course")
        .filter(slug=slug, lesson__course__in=courses_taught(user))
        .first()
    )
    if found is None:
        raise Http404("No such quiz among the courses you teach.")
    return found


def attempt_for_staff_or_404(*, user: AbstractBaseUser, pk: int) -> Attempt:
    """An attempt at a quiz of a course the user teaches, with its learner, quiz and course."""
    found = (
        Attempt.objects.select_related("user", "quiz__lesson__course")
        .filter(pk=pk, quiz__lesson__course__in=courses_taught(user))
        .first()
    )
    if found is None:
        raise Http404("No such attempt among the courses you teach.")
    return found
