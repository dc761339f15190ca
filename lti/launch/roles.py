"""The course role a launch gives: an LMS course's instructors and teaching assistants get that
role in the softgrade course of the content their link opens, keep it while the LMS says so,
lose it when a later launch no longer does, and land on that content's instructor page.

The roles live in the teaching app, which lti never imports: the launch calls the functions
SOFTGRADE_LAUNCH_COURSE_ROLE_HOOKS names (teaching.services.course_role_from_lms), inside its
transaction, for the account the launch signed in (lti.identity: never one found by name); and
it lands where SOFTGRADE_LAUNCH_TEACHING_LANDING (teaching.launch_landing.teaching_landing_url)
says.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.utils.module_loading import import_string
from lti_tool.lti_core.constants import CONTEXT_ROLE_PATTERN, ContextRole
from lti_tool.lti_core.utils import normalize_role

from courses.models import Course
from lti.models import LinkTarget

INSTRUCTOR = "instructor"
TEACHING_ASSISTANT = "teaching_assistant"

# The LIS vocabulary makes a teaching assistant a sub-role of Instructor (…/membership/
# Instructor#TeachingAssistant, and #TeachingAssistantSection and the like); some LMSs send it
# as a context role of its own (…/membership#TeachingAssistant).
TEACHING_ASSISTANT_ROLE = CONTEXT_ROLE_PATTERN.format("TeachingAssistant")
TEACHING_ASSISTANT_SUB_ROLE = (
    "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"
)


def course_role(roles: list[str]) -> str | None:
    """The course role a launch's roles claim gives: a teaching assistant's when any role says
    so (an LMS sends the principal Instructor role with the sub-role, and the sub-role is the
    narrower word), else an instructor's for the Instructor role; None for anyone else."""
    normal = [normalize_role(role) for role in roles if isinstance(role, str)]
    if any(
        role == TEACHING_ASSISTANT_ROLE or role.startswith(TEACHING_ASSISTANT_SUB_ROLE)
        for role in normal
    ):
        return TEACHING_ASSISTANT
    if ContextRole.INSTRUCTOR.value in normal:
        return INSTRUCTOR
    return None


def launch_course_role_grant(
    *, user: AbstractBaseUser, roles: list[str], course: Course
) -> str | None:
    """Give the launch's instructor or teaching assistant their role in the course of the
    link's quiz or practice set, and return it (None for learners and other roles). The course
    is the one lti.tenancy found granted to the launch's LMS: a role is never given elsewhere.

    Every launch of a link asks the hooks, learners' too: a person the LMS no longer calls an
    instructor or teaching assistant of the course loses the role earlier launches gave (the
    hooks get role None), and an instructor the LMS now calls a teaching assistant becomes one.
    Which roles a launch may change (never an administrator's) is the hooks' decision.

    A roles claim naming no role at all (LTI allows an empty one: an LMS that keeps roles to
    itself) says nothing about the person, so it changes no role: the hooks are not asked."""
    if not any(isinstance(role, str) and role.strip() for role in roles):
        return None
    role = course_role(roles)
    hooks = getattr(settings, "SOFTGRADE_LAUNCH_COURSE_ROLE_HOOKS", ())
    if not hooks:
        return role
    for path in hooks:
        import_string(path)(user=user, course=course, role=role)
    return role


def launch_teaching_landing(*, user: AbstractBaseUser, target: LinkTarget) -> str | None:
    """Where a launch that gave a course role lands: the path the function
    SOFTGRADE_LAUNCH_TEACHING_LANDING names returns for the link's quiz or practice set's lesson
    (teaching.launch_landing: the instructor page of that content), or None to land as before."""
    path = getattr(settings, "SOFTGRADE_LAUNCH_TEACHING_LANDING", "")
    if not path:
        return None
    quiz = target.quiz if target.quiz_id else None
    lesson = target.lesson if target.lesson_id else None
    return import_string(path)(user=user, quiz=quiz, lesson=lesson)
