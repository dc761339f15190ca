"""Reads for the LTI pages: a link for its instructors, its learners' results and its passbacks.

Each function fetches related rows up front, so a page costs the same few queries whatever the
size of the course.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Max, Prefetch, QuerySet
from django.urls import reverse
from django.utils.translation import gettext, pgettext
from lti_tool.models import LtiDeployment, LtiMembership, LtiRegistration

from courses.models import Lesson, Quiz
from courses.visibility import learner_visible, practice_problem
from grading import scores
from grading.models import Attempt, PracticeStreak
from lti import access, tenancy
from lti.models import (
    CourseGrant,
    LinkLaunch,
    LinkTarget,
    LtiIdentity,
    PassbackOutcome,
    RosterSync,
    ScorePassback,
)


def _targets_taught(user: AbstractBaseUser) -> QuerySet[LinkTarget]:
    """The links whose instructor view the user may open (lti.access decides who), and only
    links to content in a course granted to the link's LMS (lti.tenancy)."""
    return tenancy.targets_granted(access.links_for(user=user, action=access.LinkAction.VIEW))


def link_target_for_teacher(*, user: AbstractBaseUser, pk: int) -> LinkTarget:
    """A link whose instructor view the user may open (lti.access); else
    LinkTarget.DoesNotExist (the page answers 404, never revealing other courses' links)."""
    return (
        _targets_taught(user)
        .select_related(
            "quiz__lesson",
            "lesson",
            "line_item",
            "resource_link__context__deployment__registration",
        )
        .get(pk=pk)
    )


def quiz_link_views(*, user: AbstractBaseUser, quiz: Quiz) -> list[tuple[str, str]]:
    """The LMS links to the quiz whose instructor view (members, roster sync, scores sent) the
    user may open, as (name, path) pairs; one query. The results grid (teaching) lists them,
    through SOFTGRADE_QUIZ_LMS_LINK_VIEWS, since an LMS instructor's launch lands there."""
    links = (
        _targets_taught(user)
        .filter(quiz=quiz)
        .order_by("pk")
        .values_list(
            "pk",
            "resource_link__title",
            "resource_link__id_on_platform",
            "resource_link__context__title",
            "resource_link__context__label",
        )
    )
    return [
        (
            f"{context_title or context_label or 'An LMS course'}: {title or id_on_platform}",
            reverse("lti:link-instructor", args=[pk]),
        )
        for pk, title, id_on_platform, context_title, context_label in links
    ]


@dataclass(frozen=True)
class LearnerRow:
    name: str
    sub: str
    active: bool
    roles: str
    attempts: int
    best_score: float | None
    max_score: float | None
    mastered: int


def _roles(membership: LtiMembership) -> str:
    names = [
        (pgettext("LMS role", "Instructor"), membership.is_instructor),
        (pgettext("LMS role", "Administrator"), membership.is_administrator),
        (pgettext("LMS role", "Content developer"), membership.is_content_developer),
        (pgettext("LMS role", "Learner"), membership.is_learner),
        (pgettext("LMS role", "Mentor"), membership.is_mentor),
    ]
    return ", ".join(name for name, held in names if held) or pgettext("LMS roles", "None")


def link_learners(*, target: LinkTarget) -> list[LearnerRow]:
    """Every member of the link's course (from launches and roster syncs) with their results."""
    memberships = list(
        LtiMembership.objects.filter(context_id=target.resource_link.context_id)
        .select_related("user")
        .order_by("user__family_name", "user__given_name", "user__sub")
    )
    user_ids = [m.user.auth_user_id for m in memberships if m.user.auth_user_id]
    quiz_rows: dict[int, dict] = {}
    mastered: dict[int, int] = {}
    if target.kind == LinkTarget.Kind.QUIZ:
        quiz_rows = {
            row["user_id"]: row
            for row in Attempt.objects.counted()
            .filter(user_id__in=user_ids, quiz_id=target.quiz_id)
            .values("user_id")
            .annotate(
                attempts=Count("id"),
                best=scores.best_score(),
                out_of=Max("max_score"),
            )
        }
    else:
        mastered = dict(
            PracticeStreak.objects.filter(
                scores.MASTERED, user_id__in=user_ids, problem__lesson_id=target.lesson_id
            )
            .values_list("user_id")
            .annotate(count=Count("id"))
        )
    rows = []
    for membership in memberships:
        lti_user = membership.user
        quiz_row = quiz_rows.get(lti_user.auth_user_id, {})
        rows.append(
            LearnerRow(
                name=lti_user.name
                or " ".join(p for p in (lti_user.given_name, lti_user.family_name) if p)
                or lti_user.sub,
                sub=lti_user.sub,
                active=membership.is_active,
                roles=_roles(membership),
                attempts=quiz_row.get("attempts", 0),
                best_score=quiz_row.get("best"),
                max_score=quiz_row.get("out_of"),
                mastered=mastered.get(lti_user.auth_user_id, 0),
            )
        )
    return rows


def link_passbacks(*, target: LinkTarget, limit: int = 100) -> list[ScorePassback]:
    """The link's latest score passbacks, each with every try's outcome (and `last_outcome`)."""
    passbacks = list(
        ScorePassback.objects.filter(target=target)
        .select_related("lti_user")
        .prefetch_related(
            Prefetch("outcomes", queryset=PassbackOutcome.objects.order_by("created_at", "id"))
        )
        .order_by("-created_at")[:limit]
    )
    for passback in passbacks:
        outcomes = list(passback.outcomes.all())
        passback.last_outcome = outcomes[-1] if outcomes else None
    return passbacks


def link_roster_syncs(*, target: LinkTarget, limit: int = 5) -> list[RosterSync]:
    return list(
        RosterSync.objects.filter(context_id=target.resource_link.context_id)
        .select_related("requested_by")
        .order_by("-started_at")[:limit]
    )


def link_content_items(*, target: LinkTarget) -> list:
    """The quiz's items, or the practice set's problems, in order."""
    if target.kind == LinkTarget.Kind.QUIZ:
        return list(
            target.quiz.items.select_related("question", "problem", "pool").order_by("order")
        )
    return list(target.lesson.problems.for_practice().order_by("order"))


def quiz_learner_contexts(*, quiz: Quiz) -> dict[int, str]:
    """The LMS course each account launched a link to the quiz from, by user id: the latest
    launch's, named by its title (else its label, else the LMS's id for it); one query.

    The instructor pages (teaching) group their learners by it and list the learners an LMS
    sent who made no attempt yet; they call it through SOFTGRADE_LEARNER_LMS_CONTEXTS.
    """
    launches = (
        LinkLaunch.objects.filter(target__quiz=quiz)
        .order_by("last_launched_at", "id")
        .values_list(
            "user_id",
            "target__resource_link__context__title",
            "target__resource_link__context__label",
            "target__resource_link__context__id_on_platform",
        )
    )
    found = {}
    for user_id, title, label, id_on_platform in launches:
        # Later launches replace earlier ones: the latest is the course the learner is in now.
        found[user_id] = title or label or id_on_platform or gettext("An LMS course")
    return found


def learner_lms_subjects(*, user_ids: Collection[int]) -> dict[int, tuple[int, str]]:
    """The LMS identity of each of these accounts that an LTI launch made, by user id: the
    registration (which LMS) and the LMS's `sub` for the user; one query.

    The grades API (teaching) calls it through SOFTGRADE_LEARNER_LMS_SUBJECTS, to tell LTI
    learners apart and to give their `sub` to the LMS whose registration launched them only.
    """
    identities = LtiIdentity.objects.filter(user_id__in=user_ids).values_list(
        "user_id", "registration_id", "sub"
    )
    return {user_id: (registration_id, sub) for user_id, registration_id, sub in identities}


def _placeable(
    *, registration: LtiRegistration | int, deployment: LtiDeployment | int | None
) -> tuple[QuerySet[Quiz], QuerySet[Lesson]]:
    # What a link may open: the granted courses' published quizzes (a learner could not open an
    # unpublished one) and their lessons with problems learners may practise.
    quizzes = tenancy.quizzes_granted(registration=registration, deployment=deployment).filter(
        learner_visible()
    )
    lessons = (
        tenancy.lessons_granted(registration=registration, deployment=deployment)
        .annotate(problem_count=Count("problems", filter=practice_problem("problems__")))
        .filter(problem_count__gt=0)
    )
    return quizzes, lessons


def deep_linking_choices(
    *, registration: LtiRegistration | int, deployment: LtiDeployment | int | None
) -> tuple[list[Quiz], list[Lesson]]:
    """What an instructor may place in the LMS: every published quiz, and every lesson with
    problems to practise, of the courses granted to the LMS's registration (through its
    deployment)."""
    quizzes, lessons = _placeable(registration=registration, deployment=deployment)
    return (
        list(
            quizzes.select_related("lesson__course")
            .annotate(item_count=Count("items"))
            .order_by("lesson__course__title", "lesson__order", "title")
        ),
        list(lessons.select_related("course").order_by("course__title", "order")),
    )


def deep_linking_choice(
    *,
    registration: LtiRegistration | int,
    deployment: LtiDeployment | int | None,
    kind: str,
    slug: str,
) -> Quiz | Lesson | None:
    """The quiz ("quiz") or practice set ("practice") the picker posted, if it is one of
    `deep_linking_choices`; None otherwise."""
    quizzes, lessons = _placeable(registration=registration, deployment=deployment)
    found = {"quiz": quizzes, "practice": lessons}.get(kind)
    return None if found is None else found.filter(slug=slug).first()


def registrations_with_deployments() -> list[LtiRegistration]:
    return list(
        LtiRegistration.objects.prefetch_related(
            "deployments",
            Prefetch(
                "softgrade_course_grants",
                queryset=CourseGrant.objects.select_related("course", "deployment").order_by(
                    "course__title", "pk"
                ),
            ),
        ).order_by("name")
    )
