"""Deep linking: an instructor picks a quiz or practice set; softgrade returns a signed response
with the resource link and its line item, verified here with softgrade's own JWKS."""

from __future__ import annotations

import re
from html import unescape

import jwt
import pytest
from django.urls import reverse

from courses.models import Quiz
from lti.models import LineItem, LinkTarget
from tests.lti.fake_lms import CLAIM, INSTRUCTOR, LEARNER, launch_as

pytestmark = pytest.mark.django_db

DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"


def picker(client, platform):
    response = launch_as(
        client, platform, sub="teacher-1", roles=(INSTRUCTOR,), message_type="LtiDeepLinkingRequest"
    )
    assert response.status_code == 302
    assert response["Location"].startswith("/lti/deep-linking/")
    return response["Location"]


def returned_jwt(client, platform, response) -> dict:
    page = response.content.decode()
    action = unescape(re.search(r'action="([^"]+)" id="lti-deep-linking-return"', page).group(1))
    assert action == f"{platform.issuer}/courses/101/deep_linking_response"
    token = unescape(re.search(r'name="JWT" value="([^"]+)"', page).group(1))
    kid = jwt.get_unverified_header(token)["kid"]
    jwks = client.get(reverse("lti:jwks")).json()
    (key,) = [k for k in jwks["keys"] if k["kid"] == kid]
    return jwt.decode(token, jwt.PyJWK(key), algorithms=["RS256"], audience=platform.issuer)


def test_instructor_picks_a_quiz_and_gets_a_signed_response_with_a_line_item(
    client, platform, quiz
):
    url = picker(client, platform)
    page = client.get(url)
    assert page.status_code == 200
    assert quiz.title in page.content.decode()
    response = client.post(url, {"content": f"quiz:{quiz.slug}"})
    assert response.status_code == 200
    # The page may post its form to the LMS's origin, and to no other.
    assert "form-action 'self' https://lms.example.edu" in response["Content-Security-Policy"]
    # ... and, shown in the LMS's frame, it may be framed by that LMS as well.
    assert "frame-ancestors 'self' https://lms.example.edu" in response["Content-Security-Policy"]
    assert "lti/js/deep-linking-return.js" in response.content.decode()
    claims = returned_jwt(client, platform, response)
    assert claims["iss"] == platform.client_id
    assert claims[CLAIM + "message_type"] == "LtiDeepLinkingResponse"
    assert claims[CLAIM + "version"] == "1.3.0"
    assert claims[CLAIM + "deployment_id"] == platform.deployment_id
    assert claims[DL + "data"] == "platform-opaque-data"
    assert claims["nonce"]
    (item,) = claims[DL + "content_items"]
    assert item["type"] == "ltiResourceLink"
    assert item["url"] == "http://testserver/lti/launch/"
    assert item["custom"] == {"softgrade_quiz": quiz.slug}
    assert item["lineItem"]["scoreMaximum"] == float(sum(i.points for i in quiz.items.all()))
    assert item["lineItem"]["resourceId"] == f"quiz:{quiz.slug}"
    # The picker is single use.
    assert client.get(url).status_code == 404


def test_a_practice_set_with_mastery_passback_carries_a_line_item_of_its_problems(
    client, platform, lesson
):
    url = picker(client, platform)
    response = client.post(url, {"content": f"practice:{lesson.slug}", "mastery_passback": "1"})
    (item,) = returned_jwt(client, platform, response)[DL + "content_items"]
    assert item["custom"] == {
        "softgrade_practice": lesson.slug,
        "softgrade_mastery_passback": "true",
    }
    assert item["lineItem"]["scoreMaximum"] == lesson.problems.count()


def test_a_practice_set_without_mastery_passback_has_no_line_item(client, platform, lesson):
    url = picker(client, platform)
    response = client.post(url, {"content": f"practice:{lesson.slug}"})
    (item,) = returned_jwt(client, platform, response)[DL + "content_items"]
    assert "lineItem" not in item


def test_the_placed_link_launches_into_its_quiz_with_the_lms_line_item(client, platform, quiz):
    url = picker(client, platform)
    response = client.post(url, {"content": f"quiz:{quiz.slug}"})
    (item,) = returned_jwt(client, platform, response)[DL + "content_items"]
    client.logout()
    lineitem = "https://lms.example.edu/api/lti/courses/101/line_items/77"
    launched = launch_as(
        client, platform, custom=item["custom"], resource_link_id="placed-1", lineitem=lineitem
    )
    assert launched["Location"] == reverse("quiz-detail", args=[quiz.slug])
    target = LinkTarget.objects.get(resource_link__id_on_platform="placed-1")
    assert LineItem.objects.get(target=target).url == lineitem


def test_a_learner_cannot_deep_link(client, platform, shipped_bank):
    response = launch_as(client, platform, roles=(LEARNER,), message_type="LtiDeepLinkingRequest")
    assert response.status_code == 403
    assert "Only instructors" in response.content.decode()


def test_an_unknown_choice_is_refused_and_the_picker_stays(client, platform, quiz):
    url = picker(client, platform)
    response = client.post(url, {"content": "quiz:no-such-quiz"})
    assert response.status_code == 400
    assert "Choose a quiz or a practice set." in response.content.decode()
    assert client.get(url).status_code == 200


def test_an_unpublished_quiz_is_neither_offered_nor_signed_until_it_is_published(
    client, platform, quiz
):
    """A learner launched into an unpublished quiz would find nothing, so the picker places
    only what learners may open."""
    Quiz.objects.filter(pk=quiz.pk).update(published=False)
    url = picker(client, platform)
    assert f'value="quiz:{quiz.slug}"' not in client.get(url).content.decode()
    response = client.post(url, {"content": f"quiz:{quiz.slug}"})
    assert response.status_code == 400
    assert 'name="JWT"' not in response.content.decode()
    assert not LinkTarget.objects.filter(quiz=quiz).exists()
    Quiz.objects.filter(pk=quiz.pk).update(published=True)
    assert f'value="quiz:{quiz.slug}"' in client.get(url).content.decode()
    assert 'name="JWT"' in client.post(url, {"content": f"quiz:{quiz.slug}"}).content.decode()


def test_a_practice_set_of_only_unpublished_problems_is_not_offered(client, platform, lesson):
    lesson.problems.update(published=False)
    url = picker(client, platform)
    assert f'value="practice:{lesson.slug}"' not in client.get(url).content.decode()
    assert client.post(url, {"content": f"practice:{lesson.slug}"}).status_code == 400


def test_another_session_cannot_use_the_picker(client, platform, quiz, django_user_model):
    url = picker(client, platform)
    client.logout()
    client.force_login(django_user_model.objects.create_user("someone"))
    assert client.get(url).status_code == 404
