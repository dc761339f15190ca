"""Accepting a verified launch, its third step: django-lti stores what the launch says (the LMS
user, course, memberships and resource link), softgrade signs in the LMS user's own account and
finds where they go: the content the link opens, or, for an instructor's deep-linking request, the
content picker. The content must be in a course granted to the LMS (lti.tenancy), else the launch
is refused and its transaction stores nothing. An instructor or teaching assistant of the LMS
course gets that role in the softgrade course of the link's content (lti.launch.roles)."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils.translation import gettext
from lti_tool.lti_core.constants import ContextRole
from lti_tool.lti_core.utils import normalize_role
from lti_tool.models import (
    LtiContext,
    LtiDeployment,
    LtiLaunch,
    LtiRegistration,
    LtiResourceLink,
)
from lti_tool.utils import DjangoToolConfig, sync_data_from_launch
from pylti1p3.contrib.django import DjangoMessageLaunch

from courses.models import Course, Lesson, Quiz
from lti import tenancy
from lti.content import CUSTOM_MASTERY_PASSBACK, CUSTOM_PRACTICE, CUSTOM_QUIZ
from lti.deep_linking import deep_linking_request
from lti.identity import link_launch_record, lti_account
from lti.launch.claims import AGS_ENDPOINT, CUSTOM, DEEP_LINKING_REQUEST, ROLES
from lti.launch.roles import launch_course_role_grant
from lti.launch.verify import VerifiedLaunch
from lti.models import LineItem, LinkTarget
from lti.refusals import LaunchRefused

# Roles that land on the instructor view and may pick content in deep linking.
TEACHING_ROLES = (ContextRole.INSTRUCTOR, ContextRole.ADMINISTRATOR, ContextRole.CONTENT_DEVELOPER)


def is_teaching(roles: list[str]) -> bool:
    """Instructor, administrator or content developer of the context (sub-roles included)."""
    for role in roles:
        normal = normalize_role(role)
        if any(normal == r.value or normal.startswith(r.value + "#") for r in TEACHING_ROLES):
            return True
    return False


@dataclass(frozen=True)
class LaunchResult:
    """Who arrived, in which role, and where they go: a link's content or the deep-link picker."""

    user: AbstractBaseUser
    teaching: bool
    # The course role the launch gave (instructor or teaching_assistant), None for a learner.
    course_role: str | None
    registration: LtiRegistration
    deployment: LtiDeployment
    context: LtiContext | None
    target: LinkTarget | None
    deep_linking: dict | None


class _VerifiedToolConfig(DjangoToolConfig):
    """django-lti's tool configuration, holding what softgrade's own checks already found."""

    def __init__(self, registration: LtiRegistration, deployment: LtiDeployment):
        super().__init__(registration_uuid=registration.uuid)
        self.registration = registration
        self.deployment = deployment


def _django_lti_launch(request, launch: VerifiedLaunch) -> LtiLaunch:
    # A "restored" message launch skips pylti1p3's own validation: softgrade's is stricter and
    # has already run. django-lti's sync functions then store what the launch says.
    message_launch = DjangoMessageLaunch(
        request, _VerifiedToolConfig(launch.registration, launch.deployment)
    )
    message_launch.set_jwt({"header": launch.header, "body": launch.claims})
    message_launch.set_auto_validation(enable=False).set_restored()
    return LtiLaunch(message_launch)


def _custom_target(
    custom: dict, *, launch: VerifiedLaunch
) -> tuple[str, Quiz | Lesson, bool] | None:
    """What the link's custom parameters name, or None when they name nothing; refused when it
    does not exist, or is outside the courses granted to the launch's LMS."""
    for parameter, model, kind in (
        (CUSTOM_QUIZ, Quiz, LinkTarget.Kind.QUIZ),
        (CUSTOM_PRACTICE, Lesson, LinkTarget.Kind.PRACTICE),
    ):
        slug = custom.get(parameter)
        if not slug:
            continue
        content = model.objects.filter(slug=slug).first()
        if content is None:
            # A sentence for each kind: "quiz" and "practice set" take different words around
            # them in other languages.
            gone = {
                LinkTarget.Kind.QUIZ: gettext(
                    "This link names a softgrade quiz that no longer exists. Ask your instructor "
                    "to choose it again."
                ),
                LinkTarget.Kind.PRACTICE: gettext(
                    "This link names a softgrade practice set that no longer exists. Ask your "
                    "instructor to choose it again."
                ),
            }
            raise LaunchRefused(
                gone[kind],
                reason=f"unknown_{kind} ({slug})",
                status=404,
            )
        tenancy.launch_course(
            registration=launch.registration, deployment=launch.deployment, content=content
        )
        mastery = kind == LinkTarget.Kind.PRACTICE and str(
            custom.get(CUSTOM_MASTERY_PASSBACK, "")
        ).lower() in ("1", "true", "yes")
        return kind, content, mastery
    return None


def _link_target(
    *, resource_link: LtiResourceLink, launch: VerifiedLaunch
) -> tuple[LinkTarget, Course]:
    """The link's content, and its course, which the launch's LMS must have been granted."""
    named = _custom_target(launch.claims.get(CUSTOM) or {}, launch=launch)
    if named is None:
        target = LinkTarget.objects.filter(resource_link=resource_link).first()
        if target is None:
            raise LaunchRefused(
                gettext(
                    "This LMS link does not open any softgrade content yet. Your instructor adds "
                    "softgrade quizzes through the LMS's content picker (deep linking)."
                ),
                reason="link_without_content",
                status=404,
            )
    else:
        kind, content, mastery = named
        target, _created = LinkTarget.objects.update_or_create(
            resource_link=resource_link,
            defaults={
                "kind": kind,
                "quiz": content if kind == LinkTarget.Kind.QUIZ else None,
                "lesson": content if kind == LinkTarget.Kind.PRACTICE else None,
                "mastery_passback": mastery,
            },
        )
    # A link placed earlier is asked again: its course may have been taken from this LMS since.
    course = tenancy.launch_course(
        registration=launch.registration, deployment=launch.deployment, content=target.content
    )
    return target, course


def _line_item_from_launch(*, target: LinkTarget, claims: dict) -> None:
    # When the LMS names the link's column (deep linking made one), that is the one to use.
    lineitem_url = (claims.get(AGS_ENDPOINT) or {}).get("lineitem")
    if lineitem_url and target.sends_scores:
        LineItem.objects.update_or_create(target=target, defaults={"url": lineitem_url})


@transaction.atomic
def launch_accept(*, request, launch: VerifiedLaunch) -> LaunchResult:
    """Store what a verified launch says and find the softgrade user and content it leads to."""
    lti_launch = _django_lti_launch(request, launch)
    sync_data_from_launch(lti_launch)
    lti_user = lti_launch.user
    user = lti_account(lti_user=lti_user)
    teaching = is_teaching(launch.claims[ROLES])
    context = lti_launch.context
    target = deep_linking = course_role = None
    if launch.message_type == DEEP_LINKING_REQUEST:
        if not teaching:
            raise LaunchRefused(
                gettext("Only instructors can choose softgrade content for the LMS."),
                reason="deep_linking_not_instructor",
                status=403,
            )
        deep_linking = deep_linking_request(launch=launch)
    else:
        target, course = _link_target(resource_link=lti_launch.resource_link, launch=launch)
        _line_item_from_launch(target=target, claims=launch.claims)
        link_launch_record(target=target, lti_user=lti_user, user=user)
        course_role = launch_course_role_grant(user=user, roles=launch.claims[ROLES], course=course)
    return LaunchResult(
        user=user,
        teaching=teaching,
        course_role=course_role,
        registration=launch.registration,
        deployment=launch.deployment,
        context=context,
        target=target,
        deep_linking=deep_linking,
    )
