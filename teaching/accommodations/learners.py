"""The learners of a course an accommodation may be given to, found by name or username.

A course's learners are who the results pages list at its quizzes (teaching/results/reads.py):
everyone with an attempt that counts at one of its quizzes, and everyone an LMS sent to one of
them who holds no role in the course. Only active accounts. Searching is case-insensitive, on
the username, the first and last names and the full name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q, QuerySet, Value
from django.db.models.functions import Concat
from django.utils.translation import gettext

from courses.models import Course, Quiz
from grading.models import Attempt
from teaching.models import CourseRole
from teaching.results.reads import lms_contexts

SEARCH_LIMIT = 20
# A picked option reads "Full name (username)": the username in the brackets decides.
PICKED = re.compile(r"\(([^()]+)\)\s*$")


@dataclass(frozen=True)
class LearnerOption:
    username: str
    name: str

    @property
    def label(self) -> str:
        return f"{self.name} ({self.username})" if self.name != self.username else self.username


def course_learners(*, course: Course) -> QuerySet:
    """The course's learners (active accounts): with a counted attempt at one of its quizzes,
    or sent by an LMS to one of them without a role in the course. One query per quiz for the
    LMS launches, one for the result."""
    attempted = Attempt.objects.counted().filter(quiz__lesson__course=course).values("user_id")
    launched: set[int] = set()
    for quiz in Quiz.objects.filter(lesson__course=course).only("pk"):
        launched |= set(lms_contexts(quiz=quiz))
    if launched:
        launched -= set(
            CourseRole.objects.filter(course=course).order_by().values_list("user_id", flat=True)
        )
    return get_user_model().objects.filter(Q(pk__in=attempted) | Q(pk__in=launched), is_active=True)


def _option(user: AbstractBaseUser) -> LearnerOption:
    return LearnerOption(user.get_username(), user.get_full_name() or user.get_username())


def learners_matching(
    *, course: Course, text: str, limit: int = SEARCH_LIMIT
) -> list[LearnerOption]:
    """The course's learners whose username or name contains `text` (any case), by name."""
    text = text.strip()
    if not text:
        return []
    username = get_user_model().USERNAME_FIELD
    found = (
        course_learners(course=course)
        .annotate(full=Concat("first_name", Value(" "), "last_name"))
        .filter(
            Q(**{f"{username}__icontains": text})
            | Q(first_name__icontains=text)
            | Q(last_name__icontains=text)
            | Q(full__icontains=text)
        )
        .order_by("last_name", "first_name", username)[:limit]
    )
    return [_option(user) for user in found]


class LearnerNotFound(ValueError):
    """Why no one learner of the course is meant: the message the form shows."""


def course_learner(*, course: Course, text: str) -> AbstractBaseUser:
    """The one learner of the course `text` names: their username (any case), a picked option
    "Name (username)", or a name or part of one only they match. LearnerNotFound otherwise."""
    text = text.strip()
    if not text:
        raise LearnerNotFound(gettext("Name a learner of the course."))
    learners = course_learners(course=course)
    username = get_user_model().USERNAME_FIELD
    picked = PICKED.search(text)
    for wanted in ([picked.group(1).strip()] if picked else []) + [text]:
        exact = list(learners.filter(**{f"{username}__iexact": wanted})[:2])
        if len(exact) == 1:
            return exact[0]
    matches = learners_matching(course=course, text=text, limit=6)
    if len(matches) == 1:
        return learners.get(**{username: matches[0].username})
    if not matches:
        raise LearnerNotFound(
            gettext(
                "No learner of this course matches “%(text)s”. Its learners are those with an "
                "attempt at one of its quizzes or sent to one by the LMS."
            )
            % {"text": text}
        )
    shown = ", ".join(option.label for option in matches[:5])
    if len(matches) > 5:
        message = gettext(
            "Several learners match “%(text)s”: %(shown)s and more. Type or pick the username "
            "of the one you mean."
        )
    else:
        message = gettext(
            "Several learners match “%(text)s”: %(shown)s. Type or pick the username of the "
            "one you mean."
        )
    raise LearnerNotFound(message % {"text": text, "shown": shown})
