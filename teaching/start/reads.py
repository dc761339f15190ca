"""What the admin's start page shows a user: the courses they teach (with their role and links to
each course's instructor pages), what they may add, and the imports they made lately.

Imports are read from the admin's log: the Moodle XML import records one entry on the lesson it
filled (courses.moodle_admin.IMPORT_LOG_PREFIX). A superuser teaches every course: the page
lists the first few by title and links to the whole list under /teach/.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import AbstractBaseUser
from django.urls import reverse
from django.utils.translation import gettext

from courses.models import Course
from courses.moodle_admin import IMPORT_LOG_PREFIX, IMPORT_PERMISSIONS
from teaching.selectors import courses_with_roles

COURSES_SHOWN = 12
IMPORTS_SHOWN = 5


@dataclass(frozen=True)
class Link:
    label: str
    url: str


@dataclass(frozen=True)
class StartCourse:
    course: Course
    role: str
    links: list[Link]


@dataclass(frozen=True)
class StartPage:
    courses: list[StartCourse]
    # How many more courses the user teaches than are listed (a superuser's).
    more: int
    adds: list[Link]
    imports: list[LogEntry]


def _course_links(course: Course) -> list[Link]:
    slug = course.slug
    return [
        Link(gettext("Quizzes and results"), reverse("teaching:course", args=[slug])),
        Link(gettext("Problems"), reverse("teaching:course-problems", args=[slug])),
        Link(gettext("Misconceptions"), reverse("teaching:course-misconceptions", args=[slug])),
        Link(gettext("Accommodations"), reverse("teaching:accommodations", args=[slug])),
        Link(
            gettext("Lessons here"),
            reverse("admin:courses_lesson_changelist") + f"?course__id__exact={course.pk}",
        ),
    ]


def _adds(user: AbstractBaseUser) -> list[Link]:
    """The buttons to add content, each only with the permission it needs."""
    offered = [
        ("courses.add_problem", gettext("Add a problem"), "admin:courses_problem_add"),
        ("courses.add_question", gettext("Add a question"), "admin:courses_question_add"),
        ("courses.add_quiz", gettext("Add a quiz"), "admin:courses_quiz_add"),
    ]
    adds = [Link(label, reverse(name)) for perm, label, name in offered if user.has_perm(perm)]
    if user.has_perms(IMPORT_PERMISSIONS):
        adds.append(
            Link(gettext("Import Moodle XML"), reverse("admin:courses_lesson_moodle_import"))
        )
    return adds


def recent_imports(user: AbstractBaseUser) -> list[LogEntry]:
    """The user's latest imports, newest first."""
    return list(
        LogEntry.objects.filter(user=user, change_message__startswith=IMPORT_LOG_PREFIX)
        .select_related("content_type")
        .order_by("-action_time", "-pk")[:IMPORTS_SHOWN]
    )


def start_page(user: AbstractBaseUser) -> StartPage:
    courses = courses_with_roles(user=user)
    shown = courses[:COURSES_SHOWN]
    return StartPage(
        courses=[StartCourse(c, c.role, _course_links(c)) for c in shown],
        more=len(courses) - len(shown),
        adds=_adds(user),
        imports=recent_imports(user),
    )
