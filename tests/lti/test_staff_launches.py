"""Where a launch of an LMS course's instructor or teaching assistant lands (the instructor page
of the link's content, with a way to the learner's page), and what a later launch changes: the
LMS's word gives, changes and takes away the roles launches gave, never an administrator's."""

from __future__ import annotations

import logging

import pytest
from django.urls import reverse
from lti_tool.models import LtiUser

from lti.models import LinkTarget
from teaching.models import CourseRole
from tests.factories import CourseFactory, LessonFactory, QuizFactory
from tests.lti.fake_lms import INSTRUCTOR, LEARNER, launch_as

pytestmark = pytest.mark.django_db

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
TA_ROLE = MEMBERSHIP + "#TeachingAssistant"
TA_SUB_ROLE = MEMBERSHIP + "/Instructor#TeachingAssistant"
MENTOR = MEMBERSHIP + "#Mentor"


def quiz_custom(quiz) -> dict:
    return {"softgrade_quiz": quiz.slug}


def role_changes(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "softgrade.teaching"]


def account_of(platform, sub: str):
    return LtiUser.objects.get(registration=platform.registration, sub=sub).auth_user


# ---------------------------------------------------------------------------------------------
# Landing
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("roles", [(INSTRUCTOR,), (TA_ROLE,), (INSTRUCTOR, TA_SUB_ROLE)])
def test_an_instructor_or_assistant_lands_on_the_quiz_s_results_with_the_learner_s_page_linked(
    client, platform, quiz, roles
):
    response = launch_as(client, platform, sub="teacher-1", roles=roles, custom=quiz_custom(quiz))
    results = reverse("teaching:quiz-results", args=[quiz.slug])
    assert response.status_code == 302
    assert response["Location"] == results
    page = client.get(results)
    assert page.status_code == 200
    learner_page = reverse("quiz-detail", args=[quiz.slug])
    assert f'href="{learner_page}">Open as a learner sees it</a>' in page.content.decode()
    assert client.get(learner_page).status_code == 200


def test_an_lms_instructor_s_landing_links_the_link_s_own_instructor_view(client, platform, quiz):
    response = launch_as(
        client, platform, sub="teacher-1", roles=(INSTRUCTOR,), custom=quiz_custom(quiz)
    )
    page = client.get(response["Location"]).content.decode()
    link_view = reverse("lti:link-instructor", args=[LinkTarget.objects.get().pk])
    assert f'<a href="{link_view}">Machine learning 101: Week 1 quiz</a>' in page
    assert client.get(link_view).status_code == 200


def test_an_assistant_s_landing_lists_no_link_view_they_cannot_open(client, platform, quiz):
    # The LMS link's view is for the LMS course's instructors (lti.selectors): a teaching
    # assistant there gets a 404 from it, so the results grid does not offer it.
    response = launch_as(client, platform, sub="ta-1", roles=(TA_ROLE,), custom=quiz_custom(quiz))
    page = client.get(response["Location"]).content.decode()
    link_view = reverse("lti:link-instructor", args=[LinkTarget.objects.get().pk])
    assert link_view not in page
    assert "In the LMS" not in page
    assert client.get(link_view).status_code == 404


def test_a_learner_still_lands_on_the_quiz_itself(client, platform, quiz):
    response = launch_as(client, platform, sub="learner-1", custom=quiz_custom(quiz))
    assert response["Location"] == reverse("quiz-detail", args=[quiz.slug])


def test_an_instructor_of_a_practice_link_lands_on_the_lesson_in_the_course_s_teaching_page(
    client, platform, lesson
):
    response = launch_as(
        client,
        platform,
        sub="teacher-1",
        roles=(TA_ROLE,),
        custom={"softgrade_practice": lesson.slug},
    )
    course_page = reverse("teaching:course", args=[lesson.course.slug])
    assert response["Location"] == f"{course_page}#lesson-{lesson.pk}"
    page = client.get(course_page).content.decode()
    assert f'id="lesson-{lesson.pk}"' in page
    practice = reverse("practice-lesson", args=[lesson.slug])
    assert f'href="{practice}">Open its practice set as a learner sees it</a>' in page


def test_a_learner_of_a_practice_link_still_lands_on_the_practice_set(client, platform, lesson):
    response = launch_as(client, platform, custom={"softgrade_practice": lesson.slug})
    assert response["Location"] == reverse("practice-lesson", args=[lesson.slug])


def test_a_learner_launch_of_someone_an_administrator_made_instructor_lands_as_a_learner(
    client, platform, quiz
):
    # The launch decides the landing from what the LMS says now; the admin's role stays.
    launch_as(client, platform, sub="teacher-1", roles=(INSTRUCTOR,), custom=quiz_custom(quiz))
    CourseRole.objects.update(source=CourseRole.Source.ADMIN)
    response = launch_as(client, platform, sub="teacher-1", custom=quiz_custom(quiz))
    assert response["Location"] == reverse("quiz-detail", args=[quiz.slug])
    assert CourseRole.objects.get().role == CourseRole.Role.INSTRUCTOR


def test_without_a_landing_in_the_settings_lti_lands_as_it_did_alone(
    client, platform, quiz, settings
):
    # lti knows the instructor pages only through the setting: without it an instructor sees
    # the link's own instructor view and a teaching assistant the learner's page.
    settings.SOFTGRADE_LAUNCH_TEACHING_LANDING = ""
    response = launch_as(
        client, platform, sub="teacher-1", roles=(INSTRUCTOR,), custom=quiz_custom(quiz)
    )
    assert response["Location"] == reverse(
        "lti:link-instructor", args=[LinkTarget.objects.get().pk]
    )
    response = launch_as(
        client, platform, sub="teacher-2", roles=(TA_ROLE,), custom=quiz_custom(quiz)
    )
    assert response["Location"] == reverse("quiz-detail", args=[quiz.slug])


def test_the_landing_in_the_settings_is_teaching_s(settings):
    assert settings.SOFTGRADE_LAUNCH_TEACHING_LANDING == (
        "teaching.launch_landing.teaching_landing_url"
    )


# ---------------------------------------------------------------------------------------------
# Later launches: demotion and removal
# ---------------------------------------------------------------------------------------------


# An empty roles claim is not among them: it names no role, so it keeps the role
# (tests/lti/test_course_roles.py).
@pytest.mark.parametrize("now", [(LEARNER,), (MENTOR,)])
def test_a_launch_that_no_longer_says_instructor_takes_the_launch_s_role_away(
    client, platform, quiz, caplog, now
):
    launch_as(client, platform, sub="teacher-1", roles=(INSTRUCTOR,), custom=quiz_custom(quiz))
    teacher = account_of(platform, "teacher-1")
    assert CourseRole.objects.filter(user=teacher).exists()
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="softgrade.teaching"):
        response = launch_as(client, platform, sub="teacher-1", roles=now, custom=quiz_custom(quiz))
    assert not CourseRole.objects.exists()
    assert response["Location"] == reverse("quiz-detail", args=[quiz.slug])
    assert client.get(reverse("teaching:quiz-results", args=[quiz.slug])).status_code == 404
    assert client.get(reverse("teaching:courses")).status_code == 404
    assert role_changes(caplog) == [
        (
            f"Course role of user {teacher.pk} ({teacher.username}) in course "
            f"{quiz.lesson.course.slug} changed by an LMS launch: instructor -> none"
        )
    ]


def test_an_instructor_the_lms_now_calls_a_teaching_assistant_becomes_one(
    client, platform, quiz, caplog
):
    launch_as(client, platform, sub="teacher-1", roles=(INSTRUCTOR,), custom=quiz_custom(quiz))
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="softgrade.teaching"):
        response = launch_as(
            client, platform, sub="teacher-1", roles=(TA_ROLE,), custom=quiz_custom(quiz)
        )
    role = CourseRole.objects.get()
    assert (role.role, role.source) == (CourseRole.Role.TEACHING_ASSISTANT, CourseRole.Source.LMS)
    assert response["Location"] == reverse("teaching:quiz-results", args=[quiz.slug])
    assert [change.rsplit(": ", 1)[1] for change in role_changes(caplog)] == [
        "instructor -> teaching_assistant"
    ]
    # Another launch saying the same changes nothing and logs nothing.
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="softgrade.teaching"):
        launch_as(client, platform, sub="teacher-1", roles=(TA_ROLE,), custom=quiz_custom(quiz))
    assert role_changes(caplog) == []
    assert CourseRole.objects.get().role == CourseRole.Role.TEACHING_ASSISTANT


@pytest.mark.parametrize("admin_role", ["instructor", "teaching_assistant"])
def test_a_role_set_in_the_admin_outlives_any_launch(client, platform, quiz, caplog, admin_role):
    launch_as(client, platform, sub="teacher-1", custom=quiz_custom(quiz))
    teacher = account_of(platform, "teacher-1")
    CourseRole.objects.create(user=teacher, course=quiz.lesson.course, role=admin_role)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="softgrade.teaching"):
        for roles in [(LEARNER,), (INSTRUCTOR,), (TA_ROLE,), ()]:
            launch_as(client, platform, sub="teacher-1", roles=roles, custom=quiz_custom(quiz))
    role = CourseRole.objects.get()
    assert (role.role, role.source) == (admin_role, CourseRole.Source.ADMIN)
    assert role_changes(caplog) == []


def test_a_learner_launch_in_one_course_leaves_the_role_in_another(client, platform, quiz):
    other_quiz = QuizFactory(lesson=LessonFactory(course=CourseFactory(title="Course B")))
    platform.grant(other_quiz.lesson.course)
    launch_as(
        client,
        platform,
        sub="teacher-1",
        roles=(INSTRUCTOR,),
        custom=quiz_custom(other_quiz),
        resource_link_id="link-b",
    )
    launch_as(client, platform, sub="teacher-1", roles=(INSTRUCTOR,), custom=quiz_custom(quiz))
    launch_as(client, platform, sub="teacher-1", roles=(LEARNER,), custom=quiz_custom(quiz))
    teacher = account_of(platform, "teacher-1")
    (kept,) = CourseRole.objects.filter(user=teacher)
    assert kept.course == other_quiz.lesson.course
    # Still teaching course B, the navigation still offers the instructor pages.
    assert ">Teaching</a>" in client.get(reverse("home")).content.decode()
