"""The reads behind the grades API: which (learner, quiz) pairs a key's grades have, a page of
them with each one's grade (teaching.results.grades.grade_of, as the gradebook CSV has it),
and who each learner is, as much as the key's integration may know.

Every learner with an attempt at a quiz of the key's courses has a grade, whichever way they came
in: signed up on the site, provisioned through the API (by this integration or another) or sent
by an LMS through LTI. What identifies them (`learner_identity`, decided here once):

- softgrade's own id for the account and its user name, for everyone: stable, and private to no
  integration (an account an integration or an LMS made has a random user name);
- the name and email the account has, as the instructor's gradebook shows them;
- `external_id` only for the learners this key's integration provisioned: another integration's
  id for its learner is that integration's business;
- the LMS `sub` only for learners launched through an LTI registration tied to this key's
  integration (integrations.models.LtiTie): the LMS that issued the id gets it back, no one else.

A page costs a fixed few queries whatever its size: the pairs, their attempts with learners, the
quizzes with their courses and maximum scores, the LMS identities (one query per provider that
settings name) and the key's LTI ties.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Max, QuerySet, Sum
from django.utils.module_loading import import_string

from api.scope import Scope
from courses.models import Quiz
from grading.models import Attempt
from integrations.models import ApiKey, LtiTie
from teaching.results.grades import Grade, default_rule, grade_of
from teaching.results.reads import AttemptRule, learner_of


class Origin(StrEnum):
    """How a learner came to softgrade."""

    SITE = "site"  # signed up on the site
    API = "api"  # provisioned by an integration (this one or another)
    LTI = "lti"  # sent by an LMS through an LTI launch


@dataclass(frozen=True)
class LearnerIdentity:
    learner_id: int
    username: str
    name: str
    email: str
    origin: Origin
    external_id: str | None  # only for the key's own integration's learners
    lms_subject: str | None  # only for learners the key's own LMS launched in


@dataclass(frozen=True)
class GradeRow:
    learner: LearnerIdentity
    quiz: Quiz
    grade: Grade


def grade_index(
    *,
    scope: Scope,
    since: datetime | None = None,
    quiz: str | None = None,
    course: str | None = None,
    external_id: str | None = None,
) -> QuerySet:
    """One row per learner and quiz of the scope's courses that has an attempt, every learner
    whatever their origin: user_id, quiz_id and changed_at (the latest change to any of the
    learner's attempts at the quiz), for paging and `updated_since`."""
    attempts = scope.courses(Attempt.objects.counted(), "quiz__lesson__course")
    attempts = scope.learner_filter(attempts, external_id)
    if quiz:
        attempts = attempts.filter(quiz__slug=quiz)
    if course:
        attempts = attempts.filter(quiz__lesson__course__slug=course)
    rows = (
        attempts.order_by()  # the model's default ordering would join the GROUP BY
        .values("user_id", "quiz_id")
        .annotate(changed_at=Max("updated_at"))
    )
    if since is not None:
        rows = rows.filter(changed_at__gte=since)
    return rows


def lms_subjects(*, user_ids: Collection[int]) -> dict[int, tuple[int, str]]:
    """User id -> (LTI registration id, LMS `sub`) for the accounts an LTI launch made, from
    every provider SOFTGRADE_LEARNER_LMS_SUBJECTS names (the lti app; teaching never imports
    it)."""
    found: dict[int, tuple[int, str]] = {}
    for path in getattr(settings, "SOFTGRADE_LEARNER_LMS_SUBJECTS", ()):
        found.update(import_string(path)(user_ids=user_ids))
    return found


def learner_identity(
    *,
    user: AbstractBaseUser,
    key: ApiKey,
    lms_subject: tuple[int, str] | None,
    tied_registrations: Collection[int],
) -> LearnerIdentity:
    """Who a grade is about, as much as `key`'s integration may know (the module's docstring
    says what and why)."""
    provisioned = getattr(user, "integration_learner", None)
    if provisioned is not None:
        origin = Origin.API
    elif lms_subject is not None:
        origin = Origin.LTI
    else:
        origin = Origin.SITE
    own_learner = provisioned is not None and provisioned.integration_id == key.integration_id
    own_launch = lms_subject is not None and lms_subject[0] in tied_registrations
    names = learner_of(user)
    return LearnerIdentity(
        learner_id=user.pk,
        username=names.username,
        name=names.name,
        email=names.email,
        origin=origin,
        external_id=provisioned.external_id if own_learner else None,
        lms_subject=lms_subject[1] if own_launch else None,
    )


def quizzes_with_maxima(quiz_ids: Iterable[int]) -> dict[int, Quiz]:
    """The quizzes with course and their maximum score (`points`: their items' points, for a
    grade with no attempt counted), by id, in one query."""
    rows = (
        Quiz.objects.filter(pk__in=quiz_ids)
        .select_related("lesson__course")
        .annotate(points=Sum("items__points"))
    )
    return {quiz.pk: quiz for quiz in rows}


# What a grade and a learner's identity read: loading whole rows (and a quiz, lesson and course
# for each of 9,000 attempts) made the CSV of 3,000 learners several times slower.
ATTEMPT_FIELDS = ("user_id", "quiz_id", "number", "status", "score", "max_score")
TIMES = ("submitted_at", "updated_at")
USER_FIELDS = ("username", "first_name", "last_name", "email")
LEARNER_FIELDS = ("integration_id", "external_id")


def grade_rows(
    *, pairs: Iterable[Mapping], key: ApiKey, rule: AttemptRule | None = None
) -> list[GradeRow]:
    """The grades of these (user_id, quiz_id) pairs (a page of grade_index), in their order,
    each under `rule`, or under its quiz's default rule (teaching.results.grades.default_rule)."""
    pairs = [(row["user_id"], row["quiz_id"]) for row in pairs]
    if not pairs:
        return []
    wanted = set(pairs)
    attempts: dict[tuple[int, int], list[Attempt]] = defaultdict(list)
    rows = (
        Attempt.objects.counted()
        .filter(
            user_id__in={user_id for user_id, _ in pairs},
            quiz_id__in={quiz_id for _, quiz_id in pairs},
        )
        .select_related("user__integration_learner")
        .only(
            *ATTEMPT_FIELDS,
            *TIMES,
            *(f"user__{name}" for name in USER_FIELDS),
            *(f"user__integration_learner__{name}" for name in LEARNER_FIELDS),
        )
    )
    for attempt in rows.order_by("number"):
        if (attempt.user_id, attempt.quiz_id) in wanted:
            attempts[attempt.user_id, attempt.quiz_id].append(attempt)
    quizzes = quizzes_with_maxima({quiz_id for _, quiz_id in pairs})
    subjects = lms_subjects(user_ids={user_id for user_id, _ in pairs})
    tied = set(
        LtiTie.objects.filter(integration_id=key.integration_id).values_list(
            "registration_id", flat=True
        )
    )
    found = []
    for pair in pairs:
        mine = attempts[pair]
        if not mine:
            continue  # its attempts were deleted since the page was read
        quiz, user = quizzes[pair[1]], mine[0].user
        identity = learner_identity(
            user=user, key=key, lms_subject=subjects.get(user.pk), tied_registrations=tied
        )
        grade = grade_of(
            rule=rule or default_rule(quiz), attempts=mine, quiz_max=float(quiz.points or 0)
        )
        found.append(GradeRow(learner=identity, quiz=quiz, grade=grade))
    return found
