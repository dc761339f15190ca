"""OIDC login and resource-link launch: who lands where, signed in as whom; every refusal a 4xx."""

from __future__ import annotations

import logging
import time
from urllib.parse import parse_qs, urlsplit

import jwt
import pytest
import responses
from django.contrib.auth import get_user_model
from django.urls import reverse
from lti_tool.models import LtiContext, LtiMembership, LtiUser

from lti.launch.login import state_cookie_name
from lti.models import LaunchNonce, LinkTarget
from tests.lti.fake_lms import (
    CLAIM,
    DL_SETTINGS,
    INSTRUCTOR,
    launch_as,
    launch_post,
    oidc_login,
    public_jwk,
)
from tests.lti.fake_lms import _rsa_key as rsa_key

pytestmark = pytest.mark.django_db


def quiz_custom(quiz) -> dict:
    return {"softgrade_quiz": quiz.slug}


# ---------------------------------------------------------------------------------------------
# Login
# ---------------------------------------------------------------------------------------------


def test_login_redirects_to_the_platform_with_state_nonce_and_pinned_launch_url(client, platform):
    login = oidc_login(client, platform, target_link_uri="https://evil.example.net/steal")
    query = parse_qs(urlsplit(login.auth_url).query)
    assert login.auth_url.startswith(platform.auth_url + "?")
    assert query["redirect_uri"] == ["http://testserver/lti/launch/"]
    assert query["client_id"] == [platform.client_id]
    assert query["login_hint"] == ["hint-123"]
    assert query["lti_message_hint"] == ["message-hint"]
    assert query["response_mode"] == ["form_post"]
    assert query["prompt"] == ["none"]
    assert "evil.example.net" not in login.auth_url
    nonce = LaunchNonce.objects.get(nonce=login.nonce)
    assert nonce.state == login.state
    assert nonce.consumed_at is None
    assert client.cookies[state_cookie_name(login.state)].value == login.state


def test_login_page_checks_cookies_and_offers_a_new_tab(client, platform):
    response = client.get(
        reverse("lti:login"),
        {"iss": platform.issuer, "login_hint": "h", "client_id": platform.client_id},
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="lti-cookies-blocked"' in page
    assert "sg_new_window=1" in page
    assert 'target="_blank"' in page
    assert "lti/js/login.js" in page
    assert "<script>" not in page  # no inline script: the CSP forbids it
    assert response.cookies["sg_lti_cookie_check"].value == "1"
    # The page may be framed by the LMS that started the login, and by no one else.
    assert "frame-ancestors 'self' https://lms.example.edu" in response["Content-Security-Policy"]


def test_login_post_and_the_registration_login_url_work_too(client, platform):
    url = reverse("lti:login-registration", args=[platform.registration.uuid])
    response = client.post(url, {"iss": platform.issuer, "login_hint": "h", "sg_new_window": "1"})
    assert response.status_code == 302
    assert response["Location"].startswith(platform.auth_url)


@pytest.mark.parametrize(
    ("params", "status", "reason"),
    [
        ({"login_hint": "h"}, 400, "login_missing_iss"),
        ({"iss": "https://lms.example.edu"}, 400, "login_missing_login_hint"),
        ({"iss": "https://unknown.example.org", "login_hint": "h"}, 403, "unknown_registration"),
        (
            {"iss": "https://lms.example.edu", "login_hint": "h", "lti_deployment_id": "nope"},
            403,
            "unknown_deployment",
        ),
    ],
)
def test_login_refusals_are_4xx_pages_with_a_log_line(
    client, platform, caplog, params, status, reason
):
    with caplog.at_level(logging.WARNING, logger="softgrade.lti"):
        response = client.get(reverse("lti:login"), params)
    assert response.status_code == status
    assert "softgrade could not open this activity" in response.content.decode()
    assert reason in caplog.text


# ---------------------------------------------------------------------------------------------
# Launch: where people land
# ---------------------------------------------------------------------------------------------


def test_learner_launch_lands_in_the_quiz_signed_in_as_a_user_tied_to_issuer_and_sub(
    client, platform, quiz
):
    response = launch_as(client, platform, custom=quiz_custom(quiz))
    assert response.status_code == 302
    assert response["Location"] == reverse("quiz-detail", args=[quiz.slug])
    lti_user = LtiUser.objects.get(registration=platform.registration, sub="learner-sub-1")
    user = lti_user.auth_user
    assert user is not None
    assert not user.has_usable_password()
    assert (user.first_name, user.last_name, user.email) == ("Ada", "Lovelace", "ada@example.edu")
    assert int(client.session["_auth_user_id"]) == user.pk
    context = LtiContext.objects.get(id_on_platform=platform.context_id)
    assert context.title == "Machine learning 101"
    assert context.can_publish_scores
    membership = LtiMembership.objects.get(user=lti_user, context=context)
    assert membership.is_learner
    assert not membership.is_instructor
    target = LinkTarget.objects.get()
    assert (target.kind, target.quiz) == (LinkTarget.Kind.QUIZ, quiz)
    # The quiz page opens for the signed-in learner.
    assert client.get(response["Location"]).status_code == 200


def test_the_same_sub_launching_again_is_the_same_user(client, platform, quiz):
    launch_as(client, platform, custom=quiz_custom(quiz))
    client.logout()
    launch_as(client, platform, custom=quiz_custom(quiz))
    assert get_user_model().objects.filter(lti_users__sub="learner-sub-1").count() == 1
    launch_as(client, platform, custom=quiz_custom(quiz), sub="someone-else")
    assert LtiUser.objects.filter(auth_user__isnull=False).count() == 2
    assert get_user_model().objects.filter(lti_users__isnull=False).distinct().count() == 2


def test_an_lms_administrator_launch_lands_on_the_link_s_instructor_view(client, platform, quiz):
    # An LMS administrator gets no course role (the course's instructors and teaching
    # assistants land on its instructor pages: tests/lti/test_course_roles.py), but the link's
    # own view: its learners, roster and scores sent.
    administrator = "http://purl.imsglobal.org/vocab/lis/v2/membership#Administrator"
    response = launch_as(
        client, platform, custom=quiz_custom(quiz), sub="admin-1", roles=(administrator,)
    )
    target = LinkTarget.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("lti:link-instructor", args=[target.pk])
    page = client.get(response["Location"])
    assert page.status_code == 200
    assert quiz.title in page.content.decode()


def test_practice_set_launch_lands_in_the_lesson_practice(client, platform, lesson):
    response = launch_as(
        client,
        platform,
        custom={"softgrade_practice": lesson.slug, "softgrade_mastery_passback": "true"},
    )
    assert response["Location"] == reverse("practice-lesson", args=[lesson.slug])
    target = LinkTarget.objects.get()
    assert target.kind == LinkTarget.Kind.PRACTICE
    assert target.mastery_passback


def test_a_link_keeps_its_content_when_a_later_launch_names_none(client, platform, quiz):
    launch_as(client, platform, custom=quiz_custom(quiz))
    client.logout()
    response = launch_as(client, platform)
    assert response["Location"] == reverse("quiz-detail", args=[quiz.slug])


def test_a_link_without_content_is_a_clear_404(client, platform, shipped_bank):
    response = launch_as(client, platform)
    assert response.status_code == 404
    assert "does not open any softgrade content" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_launch_never_redirects_to_the_requests_target_link_uri(client, platform, quiz):
    login = oidc_login(client, platform)
    claims = platform.claims(nonce=login.nonce, custom=quiz_custom(quiz))
    claims[CLAIM + "target_link_uri"] = "https://evil.example.net/"
    response = client.post(
        reverse("lti:launch"),
        {
            "id_token": platform.sign(claims),
            "state": login.state,
            "target_link_uri": "https://evil.example.net/",
        },
    )
    assert response["Location"] == reverse("quiz-detail", args=[quiz.slug])


# ---------------------------------------------------------------------------------------------
# Launch: refusals
# ---------------------------------------------------------------------------------------------


def _refused(response, status: int, caplog, reason: str) -> None:
    assert response.status_code == status, response.content
    assert "softgrade could not open this activity" in response.content.decode()
    assert reason in caplog.text
    assert "_auth_user_id" not in response.wsgi_request.session


def tampered(token: str) -> str:
    """The token with one character of its signature changed."""
    head, body, signature = token.split(".")
    middle = len(signature) // 2
    flipped = "A" if signature[middle] != "A" else "B"
    return ".".join([head, body, signature[:middle] + flipped + signature[middle + 1 :]])


def claims_swapped(token: str) -> str:
    """The token's signature over different claims (sub changed to someone else's)."""
    head, _body, signature = token.split(".")
    claims = jwt.decode(token, options={"verify_signature": False})
    other = jwt.encode({**claims, "sub": "victim"}, "k" * 32, "HS256").split(".")[1]
    return ".".join([head, other, signature])


def _drop(claims: dict, claim: str) -> dict:
    claims.pop(claim)
    return claims


NEGATIVE_CASES = {
    "missing kid": (lambda p, c: p.sign(c, headers={}), 401, "missing_kid"),
    "unknown kid": (lambda p, c: p.sign(c, headers={"kid": "who-knows"}), 401, "unknown_kid"),
    "key not the platform's": (
        lambda p, c: p.sign(c, key=rsa_key("attacker")),
        401,
        "bad_signature",
    ),
    "tampered signature": (lambda p, c: tampered(p.sign(c)), 401, "bad_signature"),
    "tampered claims": (lambda p, c: claims_swapped(p.sign(c)), 401, "bad_signature"),
    "HS256 instead of RS256": (
        lambda p, c: jwt.encode(c, "secret" * 6, "HS256", {"kid": p.kid}),
        401,
        "alg_not_allowed",
    ),
    "wrong iss": (lambda p, c: p.sign({**c, "iss": "https://other.example"}), 401, "wrong_iss"),
    "wrong aud": (lambda p, c: p.sign({**c, "aud": "another-tool"}), 401, "wrong_aud"),
    "aud list without azp": (
        lambda p, c: p.sign({**c, "aud": [p.client_id, "another-tool"]}),
        401,
        "missing_azp",
    ),
    "azp of another tool": (
        lambda p, c: p.sign({**c, "aud": [p.client_id, "x"], "azp": "x"}),
        401,
        "wrong_azp",
    ),
    "expired": (
        lambda p, c: p.sign({**c, "exp": int(time.time()) - 3600, "iat": int(time.time()) - 4000}),
        401,
        "expired",
    ),
    "iat in the future": (
        lambda p, c: p.sign({**c, "iat": int(time.time()) + 3600}),
        401,
        "iat_in_future",
    ),
    "missing nonce": (lambda p, c: p.sign(_drop(c, "nonce")), 400, "missing_nonce"),
    "unknown nonce": (lambda p, c: p.sign({**c, "nonce": "never-issued"}), 401, "unknown_nonce"),
    "unknown deployment": (
        lambda p, c: p.sign({**c, CLAIM + "deployment_id": "deployment-x"}),
        403,
        "unknown_deployment",
    ),
    "wrong version": (
        lambda p, c: p.sign({**c, CLAIM + "version": "1.1"}),
        400,
        "wrong_version",
    ),
    "unknown message type": (
        lambda p, c: p.sign({**c, CLAIM + "message_type": "LtiStartProctoring"}),
        400,
        "unsupported_message_type",
    ),
    "not a JWT": (lambda p, c: "not.a.jwt", 400, "id_token_malformed"),
}


@pytest.mark.parametrize("case", list(NEGATIVE_CASES), ids=list(NEGATIVE_CASES))
def test_launch_refusals(client, platform, quiz, caplog, case):
    make_token, status, reason = NEGATIVE_CASES[case]
    login = oidc_login(client, platform)
    token = make_token(platform, platform.claims(nonce=login.nonce, custom=quiz_custom(quiz)))
    with caplog.at_level(logging.WARNING, logger="softgrade.lti"):
        response = launch_post(client, id_token=token, state=login.state)
    _refused(response, status, caplog, reason)


REQUIRED = [
    "iss",
    "aud",
    "sub",
    "exp",
    "iat",
    CLAIM + "deployment_id",
    CLAIM + "message_type",
    CLAIM + "version",
    CLAIM + "roles",
    CLAIM + "resource_link",
    CLAIM + "target_link_uri",
]


@pytest.mark.parametrize("claim", REQUIRED, ids=[c.rsplit("/", 1)[-1] for c in REQUIRED])
def test_each_required_claim_missing_is_refused(client, platform, quiz, caplog, claim):
    login = oidc_login(client, platform)
    claims = platform.claims(nonce=login.nonce, custom=quiz_custom(quiz))
    claims.pop(claim)
    with caplog.at_level(logging.WARNING, logger="softgrade.lti"):
        response = launch_post(client, id_token=platform.sign(claims), state=login.state)
    _refused(response, 400, caplog, f"missing_claim {claim}")


def test_deep_linking_settings_missing_is_refused(client, platform, caplog, shipped_bank):
    login = oidc_login(client, platform)
    claims = platform.claims(
        nonce=login.nonce, roles=(INSTRUCTOR,), message_type="LtiDeepLinkingRequest"
    )
    claims.pop(DL_SETTINGS)
    with caplog.at_level(logging.WARNING, logger="softgrade.lti"):
        response = launch_post(client, id_token=platform.sign(claims), state=login.state)
    _refused(response, 400, caplog, f"missing_claim {DL_SETTINGS}")


def test_a_replayed_launch_is_refused(client, platform, quiz, caplog):
    login = oidc_login(client, platform)
    token = platform.sign(platform.claims(nonce=login.nonce, custom=quiz_custom(quiz)))
    assert launch_post(client, id_token=token, state=login.state).status_code == 302
    client.logout()
    client.cookies[state_cookie_name(login.state)] = login.state
    with caplog.at_level(logging.WARNING, logger="softgrade.lti"):
        response = launch_post(client, id_token=token, state=login.state)
    _refused(response, 401, caplog, "nonce_replayed")


def test_an_expired_nonce_is_refused(client, platform, quiz, caplog):
    login = oidc_login(client, platform)
    LaunchNonce.objects.filter(nonce=login.nonce).update(expires_at="2000-01-01T00:00:00Z")
    token = platform.sign(platform.claims(nonce=login.nonce, custom=quiz_custom(quiz)))
    with caplog.at_level(logging.WARNING, logger="softgrade.lti"):
        response = launch_post(client, id_token=token, state=login.state)
    _refused(response, 401, caplog, "nonce_expired")


def test_missing_state_cookie_is_refused(client, platform, quiz, caplog):
    login = oidc_login(client, platform)
    del client.cookies[state_cookie_name(login.state)]
    token = platform.sign(platform.claims(nonce=login.nonce, custom=quiz_custom(quiz)))
    with caplog.at_level(logging.WARNING, logger="softgrade.lti"):
        response = launch_post(client, id_token=token, state=login.state)
    _refused(response, 400, caplog, "missing_state_cookie")
    assert "new window" in response.content.decode()
    # The nonce was not spent: the same login still works once the cookie comes back.
    client.cookies[state_cookie_name(login.state)] = login.state
    assert launch_post(client, id_token=token, state=login.state).status_code == 302


def test_a_state_from_another_login_is_refused(client, platform, quiz, caplog):
    first = oidc_login(client, platform)
    second = oidc_login(client, platform)
    token = platform.sign(platform.claims(nonce=first.nonce, custom=quiz_custom(quiz)))
    with caplog.at_level(logging.WARNING, logger="softgrade.lti"):
        response = launch_post(client, id_token=token, state=second.state)
    _refused(response, 401, caplog, "nonce_state_mismatch")


def test_missing_id_token_or_state_is_refused(client, platform, caplog):
    with caplog.at_level(logging.WARNING, logger="softgrade.lti"):
        response = client.post(reverse("lti:launch"), {"state": "x"})
        assert response.status_code == 400
        response = client.post(reverse("lti:launch"), {"id_token": "x"})
        assert response.status_code == 400
    assert "missing_id_token" in caplog.text
    assert "missing_state" in caplog.text


def test_an_inactive_deployment_is_refused(client, platform, quiz, caplog):
    platform.deployment.is_active = False
    platform.deployment.save()
    with caplog.at_level(logging.WARNING, logger="softgrade.lti"):
        response = launch_as(client, platform, custom=quiz_custom(quiz))
    _refused(response, 403, caplog, "inactive_deployment")


def test_platform_key_rotation_is_followed_once(client, platform, quiz):
    """A kid the cached keyset lacks triggers one fresh fetch (the platform rotated)."""
    launch_as(client, platform, custom=quiz_custom(quiz))
    client.logout()
    platform.kid = "platform-key-2"
    response = launch_as(client, platform, custom=quiz_custom(quiz))
    assert response.status_code == 302


def test_keyset_fetch_failure_is_a_4xx_not_a_500(client, platform, quiz, lms, caplog):
    lms.replace(responses.GET, platform.keyset_url, status=503)
    with caplog.at_level(logging.WARNING, logger="softgrade.lti"):
        response = launch_as(client, platform, custom=quiz_custom(quiz))
    _refused(response, 400, caplog, "keyset_unavailable")


def test_keyset_fetches_have_a_timeout(client, platform, quiz, lms, settings):
    settings.LTI_HTTP_TIMEOUT = (1.5, 4.0)
    launch_as(client, platform, custom=quiz_custom(quiz))
    keyset_calls = [c for c in lms.calls if c.request.url == platform.keyset_url]
    assert keyset_calls
    assert keyset_calls[0].request.req_kwargs["timeout"] == (1.5, 4.0)


def test_extra_keys_in_the_platform_keyset_are_ignored(client, platform, quiz):
    platform.extra_keys.append(public_jwk(rsa_key("other"), "other-key"))
    assert launch_as(client, platform, custom=quiz_custom(quiz)).status_code == 302


def test_a_link_naming_a_removed_quiz_is_a_clear_404(client, platform, shipped_bank, caplog):
    with caplog.at_level(logging.WARNING, logger="softgrade.lti"):
        response = launch_as(client, platform, custom={"softgrade_quiz": "gone"})
    _refused(response, 404, caplog, "unknown_quiz (gone)")
    assert "no longer exists" in response.content.decode()


def test_a_claim_of_the_wrong_shape_is_a_400_not_a_500(client, platform, quiz, caplog):
    login = oidc_login(client, platform)
    claims = platform.claims(nonce=login.nonce, custom=quiz_custom(quiz))
    claims[CLAIM + "context"] = "not an object"
    with caplog.at_level(logging.WARNING, logger="softgrade.lti"):
        response = launch_post(client, id_token=platform.sign(claims), state=login.state)
    assert response.status_code == 400
    assert "malformed claims" in caplog.text
