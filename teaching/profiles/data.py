"""Reads for the misconception profiles: a course's counted tries as TryRow rows (teaching.
misconception_profiles computes the profiles), the words for their families, and whether a user is
a learner of the course. Each read costs a fixed number of queries."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.utils.translation import gettext

from courses.models import Course
from grading import engine
from grading.models import Attempt, Response, Variant
from teaching.discovery.problems import responses_of
from teaching.profiles.summaries import TryRow

COUNTED = (Response.Status.CORRECT, Response.Status.INCORRECT)


def family_key(*, family: str | None, problem_id: int | None, question_id: int | None) -> str:
    """A problem's engine family; a formula problem and a question are each a family of their
    own (see teaching.profiles.summaries)."""
    if question_id is not None:
        return f"question:{question_id}"
    if family == engine.FORMULA_FAMILY:
        return f"formula:{problem_id}"
    return str(family)


def _family_label(family: str | None, problem_title: str, question_slug: str) -> str:
    if question_slug:
        return f"Question {question_slug}"
    if family == engine.FORMULA_FAMILY:
        return problem_title
    try:
        return gettext(engine.get_family(family).title)
    except engine.UnknownFamily:
        return str(family)


def course_tries(
    *, course: Course, learner: int | None = None
) -> tuple[list[TryRow], dict[str, str]]:
    """The course's counted tries (of one learner, if given), in the order they were made, and
    each family's words. One query."""
    found = Response.objects.filter(
        responses_of(course), counts_as_try=True, status__in=COUNTED
    ).order_by("created_at", "id")
    if learner is not None:
        found = found.filter(user_id=learner)
    rows: list[TryRow] = []
    labels: dict[str, str] = {}
    for (
        response_id,
        user_id,
        status,
        misconception,
        attempt_id,
        variant_id,
        family,
        problem_id,
        problem_title,
        question_id,
        question_slug,
    ) in found.values_list(
        "id",
        "user_id",
        "status",
        "misconception",
        "attempt_id",
        "variant_id",
        "variant__family",
        "variant__problem_id",
        "variant__problem__title",
        "question_id",
        "question__slug",
    ):
        key = family_key(family=family, problem_id=problem_id, question_id=question_id)
        if key not in labels:
            labels[key] = _family_label(family, problem_title or "", question_slug or "")
        # A question answered in an attempt is one instance; a problem's is its variant.
        instance = ("question", attempt_id, question_id) if question_id else ("variant", variant_id)
        rows.append(
            TryRow(
                response=response_id,
                learner=user_id,
                family=key,
                instance=instance,
                status=status,
                misconception=misconception,
                attempt=attempt_id,
            )
        )
    return rows, labels


def learner_attempts(*, course: Course, user: AbstractBaseUser) -> list[Attempt]:
    """The user's attempts at the course's quizzes, by quiz and number."""
    return list(
        Attempt.objects.counted()
        .filter(user=user, quiz__lesson__course=course)
        .select_related("quiz")
        .order_by("quiz__title", "quiz_id", "number")
    )


def practised_in(*, course: Course, user: AbstractBaseUser) -> bool:
    """Whether the user practised a problem of the course's lessons."""
    return Variant.objects.filter(
        user=user, attempt__isnull=True, problem__lesson__course=course
    ).exists()
