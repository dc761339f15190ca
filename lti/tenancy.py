"""Which softgrade courses an LMS reaches: only those an administrator granted its registration
(lti.CourseGrant), for every deployment or for one. Every LTI path asks here: a launch's content
and the course role it gives, the deep-linking picker and what it signs, the links' instructor
views and their roster syncs. A new registration has no course, so it reaches nothing.
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Q, QuerySet
from lti_tool.models import LtiDeployment, LtiRegistration

from courses.models import Course, Lesson, Quiz
from lti.models import CourseGrant, LinkTarget
from lti.refusals import content_not_granted

type Reference = LtiRegistration | LtiDeployment | int | OuterRef | None


def _grants(*, registration: Reference, deployment: Reference) -> QuerySet[CourseGrant]:
    # The one rule: a grant holds for its registration, through any deployment when it names
    # none, else through the one it names.
    return CourseGrant.objects.filter(
        Q(deployment__isnull=True) | Q(deployment=deployment), registration=registration
    )


def courses_granted(
    *, registration: LtiRegistration | int, deployment: LtiDeployment | int | None
) -> QuerySet[Course]:
    """The courses a launch through this registration and deployment may reach."""
    grants = _grants(registration=registration, deployment=deployment)
    return Course.objects.filter(Exists(grants.filter(course=OuterRef("pk"))))


def quizzes_granted(
    *, registration: LtiRegistration | int, deployment: LtiDeployment | int | None
) -> QuerySet[Quiz]:
    return Quiz.objects.filter(
        lesson__course__in=courses_granted(registration=registration, deployment=deployment)
    )


def lessons_granted(
    *, registration: LtiRegistration | int, deployment: LtiDeployment | int | None
) -> QuerySet[Lesson]:
    return Lesson.objects.filter(
        course__in=courses_granted(registration=registration, deployment=deployment)
    )


def _content_course(
    *,
    registration: LtiRegistration | int,
    deployment: LtiDeployment | int | None,
    content: Quiz | Lesson,
) -> Course | None:
    course_id = content.lesson.course_id if isinstance(content, Quiz) else content.course_id
    granted = courses_granted(registration=registration, deployment=deployment)
    return granted.filter(pk=course_id).first()


def content_granted(
    *,
    registration: LtiRegistration | int,
    deployment: LtiDeployment | int | None,
    content: Quiz | Lesson,
) -> bool:
    """Whether this registration (through this deployment) may reach the quiz or lesson."""
    found = _content_course(registration=registration, deployment=deployment, content=content)
    return found is not None


def targets_granted(targets: QuerySet[LinkTarget]) -> QuerySet[LinkTarget]:
    """Only the links whose content is in a course granted to the registration (and through
    the deployment) of the LMS course the link was placed in."""
    deployment = "resource_link__context__deployment"
    grants = _grants(
        registration=OuterRef(f"{deployment}__registration_id"),
        deployment=OuterRef(f"{deployment}_id"),
    )
    return targets.filter(
        Exists(grants.filter(course_id=OuterRef("quiz__lesson__course_id")))
        | Exists(grants.filter(course_id=OuterRef("lesson__course_id")))
    )


def launch_course(
    *, registration: LtiRegistration, deployment: LtiDeployment, content: Quiz | Lesson
) -> Course:
    """The course of the quiz or lesson a launch opens, if its registration (through its
    deployment) may reach it; else the launch is refused (`content_not_granted`)."""
    course = _content_course(registration=registration, deployment=deployment, content=content)
    if course is None:
        raise content_not_granted()
    return course
