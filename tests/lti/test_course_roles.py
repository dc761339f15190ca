"""What a launch gives the instructor pages: an LMS course's instructors and teaching assistants
get that role in the softgrade course of the link's content (the account the launch signed in,
never one found by name), and the results grid groups learners by the LMS course they came from
and lists those the LMS sent who made no attempt yet."""

from __future__ import annotations

import csv
import io

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils.module_loading import import_string
from lti_tool.models import LtiUser

from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from lti import selectors
from lti.launch.roles import INSTRUCTOR as INSTRUCTOR_ROLE
from lti.launch.roles import TEACHING_ASSISTANT, course_role
from lti.models import LinkTarget
from teaching import services
from teaching.models import CourseRole
from tests.factories import UserFactory
from tests.lti.fake_lms import INSTRUCTOR, LEARNER, launch_as

pytestmark = pytest.mark.django_db

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
TA_ROLE = MEMBERSHIP + "#TeachingAssistant"
TA_SUB_ROLE = MEMBERSHIP + "/Instructor#TeachingAssistant"


def quiz_custom(quiz) -> dict:
    return {"softgrade_quiz": quiz.slug}


def account_of(platform, sub: str):
    return LtiUser.objects.get(registration=platform.registration, sub=sub).auth_user


@pytest.mark.parametrize(
    ("roles", "expected"),
    [
        ([INSTRUCTOR], INSTRUCTOR_ROLE),
        (["Instructor"], INSTRUCTOR_ROLE),  # the short form LTI allows
        ([TA_ROLE], TEACHING_ASSISTANT),
        (["TeachingAssistant"], TEACHING_ASSISTANT),
        ([TA_SUB_ROLE], TEACHING_ASSISTANT),
        ([MEMBERSHIP + "/Instructor#TeachingAssistantSection"], TEACHING_ASSISTANT),
        # An LMS sends the principal role with the sub-role: the narrower word wins.
        ([INSTRUCTOR, TA_SUB_ROLE], TEACHING_ASSISTANT),
        ([LEARNER], None),
        ([MEMBERSHIP + "#Administrator"], None),
        ([MEMBERSHIP + "#ContentDeveloper"], None),
        ([MEMBERSHIP + "#Mentor"], None),
        (["http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor"], None),
        ([], None),
        ([42, None], None),  # not role names at all
    ],
)
def test_the_course_role_a_roles_claim_gives(roles, expected):
    assert course_role(roles) == expected


def test_the_launch_hooks_in_settings_are_teaching_s_and_lti_s():
    (grant,) = [import_string(path) for path in settings.SOFTGRADE_LAUNCH_COURSE_ROLE_HOOKS]
    assert grant is services.course_role_from_lms
    (contexts,) = [import_string(path) for path in settings.SOFTGRADE_LEARNER_LMS_CONTEXTS]
    assert contexts is selectors.quiz_learner_contexts


@pytest.mark.parametrize(
    ("roles", "expected"),
    [((INSTRUCTOR,), "instructor"), ((TA_ROLE,), "teaching_assistant")],
)
def test_an_instructor_or_assistant_launch_gives_the_role_in_the_quiz_s_course(
    client, platform, quiz, roles, expected
):
    assert launch_as(client, platform, sub="teacher-1", roles=roles, custom=quiz_custom(quiz))
    teacher = account_of(platform, "teacher-1")
    role = CourseRole.objects.get()
    assert (role.user, role.course, role.role, role.source) == (
        teacher,
        quiz.lesson.course,
        expected,
        CourseRole.Source.LMS,
    )
    # Signed in by the launch, they reach the course's instructor pages at once.
    assert client.get(reverse("teaching:quiz-results", args=[quiz.slug])).status_code == 200
    assert client.get(reverse("teaching:courses")).status_code == 200


def test_a_practice_link_gives_the_role_in_the_lesson_s_course(client, platform, lesson):
    launch_as(
        client,
        platform,
        sub="teacher-1",
        roles=(INSTRUCTOR,),
        custom={"softgrade_practice": lesson.slug},
    )
    assert CourseRole.objects.get().course == lesson.course


def test_a_learner_launch_gives_no_role_and_no_instructor_page(client, platform, quiz):
    launch_as(client, platform, custom=quiz_custom(quiz))
    assert not CourseRole.objects.exists()
    assert client.get(reverse("teaching:courses")).status_code == 404
    assert client.get(reverse("teaching:quiz-results", args=[quiz.slug])).status_code == 404


def test_a_deep_linking_launch_names_no_course_and_gives_no_role(client, platform, shipped_bank):
    response = launch_as(
        client, platform, sub="teacher-1", roles=(INSTRUCTOR,), message_type="LtiDeepLinkingRequest"
    )
    assert response.status_code == 302
    assert not CourseRole.objects.exists()


def test_the_role_goes_to_the_launch_s_own_account_never_one_with_the_same_name_or_email(
    client, platform, quiz
):
    site_user = UserFactory(username="ada", email="ada@example.edu", first_name="Ada")
    launch_as(client, platform, sub="teacher-1", roles=(INSTRUCTOR,), custom=quiz_custom(quiz))
    teacher = account_of(platform, "teacher-1")
    assert teacher != site_user
    assert list(CourseRole.objects.values_list("user", flat=True)) == [teacher.pk]


def test_a_later_launch_as_assistant_changes_a_launch_s_role_not_an_administrator_s(
    client, platform, quiz
):
    launch_as(client, platform, sub="teacher-1", roles=(INSTRUCTOR,), custom=quiz_custom(quiz))
    launch_as(client, platform, sub="teacher-1", roles=(TA_ROLE,), custom=quiz_custom(quiz))
    assert CourseRole.objects.get().role == "teaching_assistant"
    CourseRole.objects.update(role="instructor", source=CourseRole.Source.ADMIN)
    launch_as(client, platform, sub="teacher-1", roles=(TA_ROLE,), custom=quiz_custom(quiz))
    assert CourseRole.objects.get().role == "instructor"


def test_a_learner_launch_takes_away_the_role_a_launch_gave_and_an_empty_claim_does_not(
    client, platform, quiz
):
    """An empty roles claim names no role: it is no word that the person stopped teaching."""
    launch_as(client, platform, sub="teacher-1", roles=(INSTRUCTOR,), custom=quiz_custom(quiz))
    launch_as(client, platform, sub="teacher-1", roles=(), custom=quiz_custom(quiz))
    assert CourseRole.objects.get().role == "instructor"
    launch_as(client, platform, sub="teacher-1", roles=("", " "), custom=quiz_custom(quiz))
    assert CourseRole.objects.get().role == "instructor"
    launch_as(client, platform, sub="teacher-1", roles=(LEARNER,), custom=quiz_custom(quiz))
    assert not CourseRole.objects.exists()


# ---------------------------------------------------------------------------------------------
# LMS learners on the instructor pages
# ---------------------------------------------------------------------------------------------


def test_lms_learners_are_grouped_by_their_lms_course_even_before_an_attempt(
    client, platform, quiz
):
    launch_as(client, platform, sub="teacher-1", roles=(INSTRUCTOR,), custom=quiz_custom(quiz))
    launch_as(client, platform, sub="learner-1", custom=quiz_custom(quiz))
    launch_as(client, platform, sub="learner-2", custom=quiz_custom(quiz))
    learner = account_of(platform, "learner-1")
    attempt_submit(attempt=attempt_start(user=learner, quiz=quiz))
    site_learner = UserFactory(first_name="Sam")
    attempt_submit(attempt=attempt_start(user=site_learner, quiz=quiz))

    client.force_login(account_of(platform, "teacher-1"))
    page = client.get(
        reverse("teaching:quiz-results", args=[quiz.slug]) + "?group=lms"
    ).content.decode()
    lms_part, site_part = page.split("Not from an LMS")
    assert "Machine learning 101" in lms_part
    assert lms_part.count("Ada Lovelace") == 2  # both LMS learners, one without an attempt
    assert "No attempt yet" in lms_part
    assert "Sam" in site_part
    teacher = account_of(platform, "teacher-1").username
    assert f'data-learner="{teacher}"' not in page  # launched the quiz, but no learner
    assert page.count("data-learner=") == 3

    response = client.get(reverse("teaching:quiz-gradebook", args=[quiz.slug]))
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    by_learner = {row["learner"]: row for row in rows}
    assert set(by_learner) == {
        learner.username,
        account_of(platform, "learner-2").username,
        site_learner.username,
    }
    assert by_learner[learner.username]["lms_course"] == "Machine learning 101"
    assert by_learner[learner.username]["attempt"] == "1"
    assert by_learner[account_of(platform, "learner-2").username]["attempt"] == ""
    assert by_learner[site_learner.username]["lms_course"] == ""


@pytest.mark.parametrize("learners", [1, 6])
def test_the_lms_courses_of_a_quiz_s_learners_cost_one_query(
    client, platform, quiz, django_assert_num_queries, learners
):
    for number in range(learners):
        launch_as(client, platform, sub=f"learner-{number}", custom=quiz_custom(quiz))
    with django_assert_num_queries(1):
        found = selectors.quiz_learner_contexts(quiz=quiz)
    assert len(found) == learners
    assert set(found.values()) == {"Machine learning 101"}


def test_the_lti_instructor_view_links_the_results_grid(client, platform, quiz):
    launch_as(client, platform, sub="teacher-1", roles=(INSTRUCTOR,), custom=quiz_custom(quiz))
    target = LinkTarget.objects.get()
    page = client.get(reverse("lti:link-instructor", args=[target.pk])).content.decode()
    grid = reverse("teaching:quiz-results", args=[quiz.slug])
    assert f'href="{grid}"' in page
    assert client.get(grid).status_code == 200
