"""The tool's JWKS and key rotation with overlap; the setup page; framing and cookies in the LMS
iframe; the instructor view's authorization; roster sync (NRPS)."""

from __future__ import annotations

from datetime import timedelta

import pytest
import responses
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from lti_tool.models import Key, LtiMembership

from lti import keys
from lti.models import LinkTarget, RosterSync
from tests.factories import InstructorFactory, UserFactory
from tests.lti.fake_lms import INSTRUCTOR, launch_as

pytestmark = pytest.mark.django_db


# ---------------------------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------------------------


def test_jwks_publishes_the_signing_key_without_its_private_part(client):
    key = keys.signing_key()
    body = client.get(reverse("lti:jwks")).json()
    (published,) = body["keys"]
    assert published["kid"] == keys.key_id(key)
    assert (published["kty"], published["alg"], published["use"]) == ("RSA", "RS256", "sig")
    assert "d" not in published
    assert "p" not in published


def test_jwks_is_never_empty_on_a_fresh_install(client):
    assert not Key.objects.exists()
    (published,) = client.get(reverse("lti:jwks")).json()["keys"]
    assert published["kid"] == keys.key_id(keys.signing_key())
    assert Key.objects.count() == 1


def test_rotation_keeps_the_previous_key_published_for_the_overlap(client, settings):
    settings.LTI_KEY_OVERLAP_DAYS = 7
    old = keys.signing_key()
    now = timezone.now()
    new, retired = keys.key_rotate(now=now)
    assert retired == 0
    assert keys.signing_key() == new
    kids = {k["kid"] for k in client.get(reverse("lti:jwks")).json()["keys"]}
    assert kids == {keys.key_id(old), keys.key_id(new)}
    # Within the overlap the old key stays; after it, it leaves the JWKS…
    assert old in keys.published_keys(now=now + timedelta(days=6))
    assert old not in keys.published_keys(now=now + timedelta(days=8))
    # …and the next rotation after the overlap deactivates it.
    newest, retired = keys.key_rotate(now=now + timedelta(days=8))
    assert retired == 1
    old.refresh_from_db()
    new.refresh_from_db()
    assert not old.is_active
    assert new.is_active  # replaced just now: its own overlap begins
    assert {k.pk for k in keys.published_keys(now=now + timedelta(days=8))} == {
        newest.pk,
        new.pk,
    }


def test_rotate_command(capsys):
    call_command("lti_rotate_key")
    assert "New signing key" in capsys.readouterr().out
    assert Key.objects.active().count() == 1


# ---------------------------------------------------------------------------------------------
# Setup page
# ---------------------------------------------------------------------------------------------


def test_setup_page_lists_the_urls_an_lms_needs(client, platform):
    client.force_login(InstructorFactory())
    page = client.get(reverse("lti:setup")).content.decode()
    for url in ("/lti/login/", "/lti/launch/", "/lti/jwks/"):
        assert f"http://testserver{url}" in page
    assert f"/lti/login/{platform.registration.uuid}/" in page
    assert platform.client_id in page
    assert platform.deployment_id in page


def test_setup_page_is_refused_to_a_user_without_the_permission(client):
    # Staff status alone is not enough either (tests/lti/test_access.py).
    client.force_login(UserFactory())
    assert client.get(reverse("lti:setup")).status_code == 403


# ---------------------------------------------------------------------------------------------
# Inside the LMS iframe
# ---------------------------------------------------------------------------------------------


def test_an_lti_session_may_be_framed_by_its_lms_with_cross_site_cookies(client, platform, quiz):
    response = launch_as(client, platform, custom={"softgrade_quiz": quiz.slug}, secure=True)
    assert response.status_code == 302
    session_cookie = response.cookies["sessionid"]
    assert session_cookie["samesite"] == "None"
    assert session_cookie["secure"] is True
    assert session_cookie.OutputString().endswith("; Partitioned")
    page = client.get(response["Location"], secure=True)
    assert page.status_code == 200
    assert "frame-ancestors 'self' https://lms.example.edu" in page["Content-Security-Policy"]
    assert "X-Frame-Options" not in page


def test_other_sessions_keep_their_framing_rules(client, shipped_bank):
    client.force_login(UserFactory())
    page = client.get(reverse("home"), secure=True)
    assert "frame-ancestors 'self';" in page["Content-Security-Policy"] + ";"
    assert "https://lms.example.edu" not in page["Content-Security-Policy"]
    assert page["X-Frame-Options"] in ("DENY", "SAMEORIGIN")


def test_the_login_state_cookie_is_cross_site_over_https(client, platform):
    response = client.get(
        reverse("lti:login"),
        {"iss": platform.issuer, "login_hint": "h", "sg_new_window": "1"},
        secure=True,
    )
    (state_cookie,) = [c for name, c in response.cookies.items() if name.startswith("sg_lti_state")]
    assert state_cookie["samesite"] == "None"
    assert state_cookie["secure"] is True
    assert state_cookie["httponly"] is True
    # Kept per top-level site, so browsers that block third-party cookies keep it in the frame.
    assert state_cookie.OutputString().endswith("; Partitioned")


# ---------------------------------------------------------------------------------------------
# Instructor view and roster
# ---------------------------------------------------------------------------------------------


def test_learners_and_other_courses_teachers_get_404_on_the_instructor_view(client, platform, quiz):
    launch_as(client, platform, custom={"softgrade_quiz": quiz.slug})
    target = LinkTarget.objects.get()
    assert client.get(reverse("lti:link-instructor", args=[target.pk])).status_code == 404
    assert client.post(reverse("lti:link-roster-sync", args=[target.pk])).status_code == 404
    client.force_login(UserFactory())
    assert client.get(reverse("lti:link-instructor", args=[target.pk])).status_code == 404


def test_roster_sync_stores_members_and_roles_across_pages(client, platform, quiz, lms):
    launch_as(client, platform, custom={"softgrade_quiz": quiz.slug}, sub="t", roles=(INSTRUCTOR,))
    lms.add(responses.POST, platform.token_url, json={"access_token": "tok", "expires_in": 60})
    page_two = platform.memberships_url + "?page=2"
    lms.add(
        responses.GET,
        platform.memberships_url,
        json={
            "members": [
                {"user_id": "s1", "roles": ["Learner"], "name": "Sam One", "status": "Active"},
                {"user_id": "t", "roles": [INSTRUCTOR], "status": "Active"},
            ]
        },
        headers={"Link": f'<{page_two}>; rel="next"'},
        match=[responses.matchers.query_param_matcher({})],
    )
    lms.add(
        responses.GET,
        page_two,
        json={"members": [{"user_id": "s2", "roles": ["Learner"], "status": "Inactive"}]},
    )
    target = LinkTarget.objects.get()
    sync_response = client.post(reverse("lti:link-roster-sync", args=[target.pk]))
    assert sync_response.status_code == 302
    sync = RosterSync.objects.get()
    assert (sync.status, sync.members, sync.active_members) == ("done", 3, 2)
    members = LtiMembership.objects.filter(context=target.resource_link.context)
    assert members.count() == 3
    assert not members.get(user__sub="s2").is_active
    assert members.get(user__sub="s1").is_learner
    nrps_calls = [c for c in lms.calls if c.request.url.startswith(platform.memberships_url)]
    assert nrps_calls[0].request.headers["Accept"] == (
        "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
    )
    assert sync_response["Location"] == reverse("lti:link-instructor", args=[target.pk])
    page = client.get(sync_response["Location"]).content.decode()
    assert "Sam One" in page
    assert "Roster synced" in page


def test_a_failed_roster_sync_is_recorded_and_said(client, platform, quiz, lms):
    launch_as(client, platform, custom={"softgrade_quiz": quiz.slug}, sub="t", roles=(INSTRUCTOR,))
    lms.add(responses.POST, platform.token_url, status=503)
    target = LinkTarget.objects.get()
    response = client.post(reverse("lti:link-roster-sync", args=[target.pk]), follow=True)
    assert RosterSync.objects.get().status == "failed"
    assert "could not be synced" in response.content.decode()
