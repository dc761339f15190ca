"""Who may see which course's instructor pages, decided here once.

Every page and export under /teach/ finds its course, quiz or attempt through these functions:
a superuser sees every course; anyone else the courses they hold a role in (teaching.models.
CourseRole), whatever that role; a course out of reach is a 404, exactly like one that does not
exist, so the pages never tell a teaching assistant which other courses, quizzes or attempts
there are. Being staff gives nothing here by itself: staff author in the admin, and no rule
here or on the LTI side asks `is_staff`.

Whoever teaches a quiz's course (`teaches_quiz`: any role, and superusers) previews it, and what
they start there, on the quiz page or through the API, is always a preview, counted nowhere:
grading asks this function through SOFTGRADE_PREVIEW_RULE before every start.

An LMS link's instructor view and its roster sync (lti/access.py, which also honours the model
permissions `lti.view_linktarget` and `lti.add_rostersync`) are for the instructors of the
link's course (`courses_instructed`, asked through SOFTGRADE_COURSES_INSTRUCTED), not its
teaching assistants.

Changing a learner's score (an override, a regrade) is for the course's instructors and
superusers only (`may_change_scores`): a teaching assistant sees every score and its history,
but the forms are absent and a score change they send is refused (403). grading/overrides.py
asks the same function (SOFTGRADE_SCORE_CHANGE_RULE), so the pages and the services agree.
Naming a new mistake of a course's problem, or keeping a note on its answers, is for the same
people (`may_name_mistakes`), and so is giving a learner an accommodation at one of its quizzes
(`may_set_accommodations`; grading/services/accommodations.py asks the same rule).
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404

from courses.models import Course, Quiz, QuizItem
from grading.models import Attempt, QuizAccommodation
from teaching.models import CourseRole

NOT_TAUGHT = "No such course among the courses you teach."
SCORES_FOR_INSTRUCTORS = "Only the course's instructors may change a learner's score."


def courses_taught(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Course]:
    """The courses whose instructor pages the user may see (none for anonymous and inactive
    users)."""
    if not user.is_authenticated or not user.is_active:
        return Course.objects.none()
    if user.is_superuser:
        return Course.objects.all()
    # One row per course: a user holds at most one role in a course.
    return Course.objects.filter(teaching_roles__user=user)


def courses_instructed(*, user: AbstractBaseUser | AnonymousUser) -> QuerySet[Course]:
    """The courses the user is an instructor of (not a teaching assistant): every course for a
    superuser, none for anonymous and inactive users. LTI asks it through
    SOFTGRADE_COURSES_INSTRUCTED, for whom may open an LMS link's instructor view and sync its
    roster (lti/access.py)."""
    if not user.is_authenticated or not user.is_active:
        return Course.objects.none()
    if user.is_superuser:
        return Course.objects.all()
    return Course.objects.filter(
        teaching_roles__user=user, teaching_roles__role=CourseRole.Role.INSTRUCTOR
    )


def teaches_some_course(user: AbstractBaseUser | AnonymousUser) -> bool:
    """Does the user teach any course: an active superuser always does (no query), an anonymous
    or inactive user never (no query), anyone else when they hold a role in one (one EXISTS)."""
    if not user.is_authenticated or not user.is_active:
        return False
    return user.is_superuser or courses_taught(user).exists()


def teaching_or_404(user: AbstractBaseUser) -> None:
    """Raise a 404 unless the user teaches some course (a superuser always does)."""
    if not teaches_some_course(user):
        raise Http404(NOT_TAUGHT)


def teaches_quiz(*, user: AbstractBaseUser | AnonymousUser, quiz: Quiz) -> bool:
    """May the user see the quiz's instructor pages (one query at most)."""
    if not user.is_authenticated or not user.is_active:
        return False
    return user.is_superuser or courses_taught(user).filter(lessons__quizzes=quiz).exists()


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


def quiz_item_for_staff_or_404(*, user: AbstractBaseUser, pk: int) -> QuizItem:
    """An item of a quiz of a course the user teaches, with its quiz, course and content."""
    found = (
        QuizItem.objects.select_related("quiz__lesson__course", "question", "problem")
        .filter(pk=pk, quiz__lesson__course__in=courses_taught(user))
        .first()
    )
    if found is None:
        raise Http404("No such quiz item among the courses you teach.")
    return found


def accommodation_for_staff_or_404(*, user: AbstractBaseUser, pk: int) -> QuizAccommodation:
    """An accommodation at a quiz of a course the user teaches, with its quiz, course and
    learner."""
    found = (
        QuizAccommodation.objects.select_related("quiz__lesson__course", "learner")
        .filter(pk=pk, quiz__lesson__course__in=courses_taught(user))
        .first()
    )
    if found is None:
        raise Http404("No such accommodation among the courses you teach.")
    return found


def _instructs(user: AbstractBaseUser | AnonymousUser, **course_lookup: object) -> bool:
    """An active superuser, or an instructor (not a teaching assistant) of the course the
    lookup names. One query at most."""
    if not user.is_authenticated or not user.is_active:
        return False
    if user.is_superuser:
        return True
    return CourseRole.objects.filter(
        user=user, role=CourseRole.Role.INSTRUCTOR, **course_lookup
    ).exists()


def may_change_scores(*, user: AbstractBaseUser | AnonymousUser, quiz: Quiz) -> bool:
    """May the user override or regrade the scores of this quiz's attempts: an active
    superuser, or an instructor (not a teaching assistant) of the quiz's course. One query at
    most."""
    return _instructs(user, course__lessons__quizzes=quiz)


def may_name_mistakes(*, user: AbstractBaseUser | AnonymousUser, course: Course) -> bool:
    """May the user change what the course's learners are graded against (name a new mistake
    of one of its formula problems) and keep notes on its answers: the same people as for
    scores. A teaching assistant reads the same pages and changes nothing."""
    return _instructs(user, course=course)


def may_set_accommodations(*, user: AbstractBaseUser | AnonymousUser, course: Course) -> bool:
    """May the user give, change or remove a learner's accommodation at the course's quizzes:
    the same people as for scores. A teaching assistant sees them and changes nothing."""
    return _instructs(user, course=course)


def scores_changeable_or_403(*, user: AbstractBaseUser, quiz: Quiz) -> None:
    """Raise a 403 unless the user may change the quiz's scores (a page the user may see, so
    the refusal says so rather than pretending the page is missing)."""
    if not may_change_scores(user=user, quiz=quiz):
        raise PermissionDenied(SCORES_FOR_INSTRUCTORS)
