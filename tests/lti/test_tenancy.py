"""An LMS reaches only the courses its registration was granted: a launch naming anything else is
refused and stores and grants nothing; the picker offers and signs only granted content; a
link's instructor view and roster sync answer only for links to granted content."""

from __future__ import annotations

import dataclasses

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from lti_tool.models import LtiDeployment, LtiUser

from lti.deep_linking import LtiServiceError, deep_linking_respond
from lti.models import CourseGrant, LinkLaunch, LinkTarget, LtiIdentity, RosterSync
from lti.selectors import quiz_link_views
from teaching.models import CourseRole
from tests.factories import CourseFactory, LessonFactory, ProblemFactory, QuizFactory
from tests.lti.fake_lms import INSTRUCTOR, TestPlatform, launch_as

pytestmark = pytest.mark.django_db

REFUSAL = "its course is not one softgrade&#x27;s administrator gave this LMS"
ADMINISTRATOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Administrator"


@pytest.fixture
def other_quiz(quiz):
    """A quiz of a course the test platform was never granted."""
    return QuizFactory(lesson=LessonFactory(course=CourseFactory(title="Another school's course")))


def nothing_stored_for(platform: TestPlatform) -> bool:
    return not (
        LtiIdentity.objects.filter(registration=platform.registration).exists()
        or LtiUser.objects.filter(registration=platform.registration).exists()
        or LinkTarget.objects.exists()
        or LinkLaunch.objects.exists()
        or CourseRole.objects.exists()
        or get_user_model().objects.filter(username__startswith="lti-").exists()
    )


def refused(response) -> bool:
    return response.status_code == 403 and REFUSAL in response.content.decode()


# ---------------------------------------------------------------------------------------------
# Launches
# ---------------------------------------------------------------------------------------------


def test_a_new_registration_reaches_no_course(client, lms, quiz):
    new = TestPlatform(client_id="new-client")
    new.register()
    lms.add("GET", new.keyset_url, json=new.jwks())
    response = launch_as(client, new, roles=(INSTRUCTOR,), custom={"softgrade_quiz": quiz.slug})
    assert refused(response)
    assert nothing_stored_for(new)


@pytest.mark.parametrize("roles", [(INSTRUCTOR,), ()])
def test_an_instructor_naming_another_course_s_quiz_is_refused_and_given_nothing(
    client, platform, other_quiz, roles, caplog
):
    response = launch_as(client, platform, roles=roles, custom={"softgrade_quiz": other_quiz.slug})
    assert refused(response)
    assert "reason=content_not_granted" in caplog.text
    assert nothing_stored_for(platform)
    assert "_auth_user_id" not in client.session
    # The course's results stay closed to the one who tried.
    results = reverse("teaching:quiz-results", args=[other_quiz.slug])
    assert client.get(results).status_code in (302, 404)


def test_a_practice_set_of_another_course_is_refused(client, platform, other_quiz):
    ProblemFactory(lesson=other_quiz.lesson)
    custom = {"softgrade_practice": other_quiz.lesson.slug}
    response = launch_as(client, platform, roles=(INSTRUCTOR,), custom=custom)
    assert refused(response)
    assert nothing_stored_for(platform)


def test_a_quiz_that_exists_nowhere_keeps_its_own_refusal(client, platform):
    response = launch_as(client, platform, custom={"softgrade_quiz": "no-such-quiz"})
    assert response.status_code == 404


def test_a_link_placed_before_its_course_was_taken_away_is_refused(client, platform, quiz):
    custom = {"softgrade_quiz": quiz.slug}
    assert launch_as(client, platform, sub="learner-1", custom=custom).status_code == 302
    CourseGrant.objects.filter(registration=platform.registration).delete()
    client.logout()
    # The link's content comes from the link now (no custom parameter), and is refused too.
    response = launch_as(client, platform, sub="learner-2", roles=(INSTRUCTOR,))
    assert refused(response)
    assert not LtiUser.objects.filter(sub="learner-2").exists()
    assert not CourseRole.objects.exists()
    assert LinkLaunch.objects.count() == 1


def test_an_lms_named_link_cannot_be_moved_to_another_course(client, platform, quiz, other_quiz):
    launch_as(client, platform, custom={"softgrade_quiz": quiz.slug})
    response = launch_as(
        client, platform, roles=(INSTRUCTOR,), custom={"softgrade_quiz": other_quiz.slug}
    )
    assert refused(response)
    assert LinkTarget.objects.get().quiz == quiz


def test_another_registration_s_grant_reaches_nothing_for_this_one(client, platform, quiz, lms):
    second = dataclasses.replace(
        platform, client_id="softgrade-client-2", deployment_id="deployment-2"
    )
    second.register(name="Another school")
    response = launch_as(client, second, custom={"softgrade_quiz": quiz.slug})
    assert refused(response)
    second.grant(quiz.lesson.course)
    assert launch_as(client, second, custom={"softgrade_quiz": quiz.slug}).status_code == 302


def test_a_grant_to_one_deployment_holds_for_it_alone(client, platform, quiz, other_quiz):
    other_deployment = LtiDeployment.objects.create(
        registration=platform.registration, deployment_id="deployment-9", is_active=True
    )
    platform.grant(other_quiz.lesson.course, deployment=other_deployment)
    custom = {"softgrade_quiz": other_quiz.slug}
    assert refused(launch_as(client, platform, custom=custom))
    through_nine = dataclasses.replace(platform, deployment_id="deployment-9")
    response = launch_as(client, through_nine, custom=custom, resource_link_id="link-9")
    assert response.status_code == 302
    assert response["Location"] == reverse("quiz-detail", args=[other_quiz.slug])


def test_a_granted_instructor_gets_the_role_in_that_course_only(client, platform, other_quiz):
    platform.grant(other_quiz.lesson.course)
    custom = {"softgrade_quiz": other_quiz.slug}
    assert launch_as(client, platform, roles=(INSTRUCTOR,), custom=custom).status_code == 302
    (role,) = CourseRole.objects.all()
    assert role.course == other_quiz.lesson.course


# ---------------------------------------------------------------------------------------------
# Deep linking
# ---------------------------------------------------------------------------------------------


def picker(client, platform) -> str:
    response = launch_as(
        client, platform, sub="teacher-1", roles=(INSTRUCTOR,), message_type="LtiDeepLinkingRequest"
    )
    assert response.status_code == 302
    return response["Location"]


def test_the_picker_offers_only_the_granted_courses_content(client, platform, quiz, other_quiz):
    ProblemFactory(lesson=other_quiz.lesson)
    page = client.get(picker(client, platform)).content.decode()
    assert f'value="quiz:{quiz.slug}"' in page
    assert f'value="quiz:{other_quiz.slug}"' not in page
    assert f'value="practice:{other_quiz.lesson.slug}"' not in page
    assert "Another school&#x27;s course" not in page


def test_the_picker_signs_nothing_outside_the_grants(client, platform, other_quiz):
    url = picker(client, platform)
    for content in (f"quiz:{other_quiz.slug}", f"practice:{other_quiz.lesson.slug}"):
        response = client.post(url, {"content": content})
        assert response.status_code == 400
        assert 'name="JWT"' not in response.content.decode()
    # The picker is still there, and signs granted content.
    platform.grant(other_quiz.lesson.course)
    response = client.post(url, {"content": f"quiz:{other_quiz.slug}"})
    assert 'name="JWT"' in response.content.decode()


def test_the_response_is_signed_only_for_granted_content(platform, quiz, other_quiz):
    request_state = {
        "registration_id": platform.registration.pk,
        "deployment_id": platform.deployment_id,
        "deployment_pk": platform.deployment.pk,
        "return_url": f"{platform.issuer}/deep_linking_response",
        "data": None,
    }
    options = {"mastery_passback": False, "launch_url": "https://softgrade.example.org/lti/"}
    assert deep_linking_respond(request_state=request_state, content=quiz, **options).jwt
    with pytest.raises(LtiServiceError, match="not one softgrade's administrator gave"):
        deep_linking_respond(request_state=request_state, content=other_quiz, **options)


# ---------------------------------------------------------------------------------------------
# The link's instructor view and roster sync
# ---------------------------------------------------------------------------------------------


def test_a_link_outside_the_grants_has_no_instructor_view_nor_roster_sync(
    client, platform, quiz, lms
):
    launch_as(
        client,
        platform,
        sub="admin-1",
        roles=(ADMINISTRATOR,),
        custom={"softgrade_quiz": quiz.slug},
    )
    target = LinkTarget.objects.get()
    user = client.session["_auth_user_id"]
    view = reverse("lti:link-instructor", args=[target.pk])
    assert client.get(view).status_code == 200
    assert quiz_link_views(user=get_user_model().objects.get(pk=user), quiz=quiz)
    CourseGrant.objects.filter(registration=platform.registration).delete()
    assert client.get(view).status_code == 404
    sync = client.post(reverse("lti:link-roster-sync", args=[target.pk]))
    assert sync.status_code == 404
    assert not RosterSync.objects.exists()
    assert not [
        call
        for call in lms.calls
        if call.request.url.startswith(platform.issuer) and "names_and_roles" in call.request.url
    ]
    assert quiz_link_views(user=get_user_model().objects.get(pk=user), quiz=quiz) == []
