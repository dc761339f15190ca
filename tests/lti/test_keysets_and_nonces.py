"""Launch guards that cost softgrade work: keyset refetches for unknown kids (once a minute per
registration), expired nonces (swept on a schedule), and an altered state (its own refusal)."""

from __future__ import annotations

import logging
import secrets
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.utils import timezone

from lti import keysets
from lti.launch.login import NONCE_LIFETIME, launch_nonces_sweep, state_cookie_name
from lti.models import LaunchNonce
from tests.lti.fake_lms import launch_as, launch_post, oidc_login

pytestmark = pytest.mark.django_db


def keyset_fetches(lms, platform) -> int:
    return len([c for c in lms.calls if c.request.url == platform.keyset_url])


def forged_launch(client, platform, quiz):
    """A launch signed by an unknown key named by a random kid."""
    login = oidc_login(client, platform)
    claims = platform.claims(nonce=login.nonce, custom={"softgrade_quiz": quiz.slug})
    token = platform.sign(claims, headers={"kid": secrets.token_hex(8)})
    return launch_post(client, id_token=token, state=login.state)


def test_forged_launches_with_random_kids_cost_one_keyset_fetch_a_minute(
    client, platform, quiz, lms, caplog
):
    assert launch_as(client, platform, custom={"softgrade_quiz": quiz.slug}).status_code == 302
    assert keyset_fetches(lms, platform) == 1
    client.logout()
    with caplog.at_level(logging.WARNING, logger="softgrade.lti"):
        responses = [forged_launch(client, platform, quiz) for _ in range(5)]
    assert [r.status_code for r in responses] == [401] * 5
    assert caplog.text.count("reason=unknown_kid") == 5
    # One refetch (the LMS might have rotated its keys), then none for the rest of the minute.
    assert keyset_fetches(lms, platform) == 2
    # A minute later the marker in the shared cache has expired: one more refetch is allowed.
    cache.delete(keysets.refetch_cache_key(platform.registration))
    forged_launch(client, platform, quiz)
    forged_launch(client, platform, quiz)
    assert keyset_fetches(lms, platform) == 3


def test_a_first_launch_with_an_unknown_kid_fetches_the_keyset_once_not_twice(
    client, platform, quiz, lms
):
    assert forged_launch(client, platform, quiz).status_code == 401
    assert keyset_fetches(lms, platform) == 1


def test_a_rotated_key_is_still_followed_when_no_refetch_happened_this_minute(
    client, platform, quiz, lms
):
    launch_as(client, platform, custom={"softgrade_quiz": quiz.slug})
    client.logout()
    platform.kid = "platform-key-2"
    assert launch_as(client, platform, custom={"softgrade_quiz": quiz.slug}).status_code == 302
    assert keyset_fetches(lms, platform) == 2


# ---------------------------------------------------------------------------------------------
# Nonces swept on a schedule
# ---------------------------------------------------------------------------------------------


def _nonce(platform, *, expires_at, consumed: bool = False) -> LaunchNonce:
    return LaunchNonce.objects.create(
        registration=platform.registration,
        nonce=secrets.token_urlsafe(16),
        state=secrets.token_urlsafe(16),
        issued_at=expires_at - NONCE_LIFETIME,
        expires_at=expires_at,
        consumed_at=expires_at if consumed else None,
    )


def test_a_login_deletes_nothing_the_sweep_does_that(client, platform):
    old = _nonce(platform, expires_at=timezone.now() - timedelta(days=3))
    oidc_login(client, platform)
    assert LaunchNonce.objects.filter(pk=old.pk).exists()


def test_the_sweep_deletes_nonces_expired_past_the_grace_and_keeps_the_rest(platform):
    now = timezone.now()
    _nonce(platform, expires_at=now - timedelta(hours=2))
    _nonce(platform, expires_at=now - timedelta(hours=2), consumed=True)
    just_expired = _nonce(platform, expires_at=now - timedelta(minutes=5))
    open_login = _nonce(platform, expires_at=now + timedelta(minutes=5))
    assert launch_nonces_sweep(now=now) == 2
    left = set(LaunchNonce.objects.values_list("pk", flat=True))
    assert left == {just_expired.pk, open_login.pk}


def test_the_sweep_command_reports_and_refuses_a_negative_grace(platform, capsys):
    _nonce(platform, expires_at=timezone.now() - timedelta(minutes=30))
    call_command("lti_nonce_sweep")
    assert "Deleted 0 expired LTI login nonces." in capsys.readouterr().out
    call_command("lti_nonce_sweep", "--grace-minutes", "10")
    assert "Deleted 1 expired LTI login nonce." in capsys.readouterr().out
    assert not LaunchNonce.objects.exists()
    with pytest.raises(CommandError, match="cannot be negative"):
        call_command("lti_nonce_sweep", "--grace-minutes", "-1")


def test_a_launch_replayed_after_its_nonce_was_swept_is_still_refused(
    client, platform, quiz, caplog
):
    login = oidc_login(client, platform)
    token = platform.sign(platform.claims(nonce=login.nonce, custom={"softgrade_quiz": quiz.slug}))
    assert launch_post(client, id_token=token, state=login.state).status_code == 302
    launch_nonces_sweep(now=timezone.now() + timedelta(days=1))
    client.logout()
    client.cookies[state_cookie_name(login.state)] = login.state
    with caplog.at_level(logging.WARNING, logger="softgrade.lti"):
        response = launch_post(client, id_token=token, state=login.state)
    assert response.status_code == 400
    assert "reason=unknown_state" in caplog.text
    assert "_auth_user_id" not in client.session


# ---------------------------------------------------------------------------------------------
# An altered state
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("altered", ["appended", "replaced"])
def test_an_altered_state_gets_its_own_refusal_not_the_cookie_message(
    client, platform, quiz, caplog, altered
):
    login = oidc_login(client, platform)
    state = login.state + "x" if altered == "appended" else secrets.token_urlsafe(32)
    token = platform.sign(platform.claims(nonce=login.nonce, custom={"softgrade_quiz": quiz.slug}))
    with caplog.at_level(logging.WARNING, logger="softgrade.lti"):
        response = launch_post(client, id_token=token, state=state)
    page = response.content.decode()
    assert response.status_code == 400
    assert "state is not one softgrade issued" in page
    assert "login cookie" not in page
    assert "reason=unknown_state" in caplog.text
    # Nothing was spent: the real state still completes the launch.
    assert LaunchNonce.objects.get(nonce=login.nonce).consumed_at is None
    assert launch_post(client, id_token=token, state=login.state).status_code == 302
