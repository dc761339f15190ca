"""/lti/login/ is throttled per address: each initiation stores a nonce row, so a flood from one
address gets a clear 429 page before it writes anything."""

from __future__ import annotations

import logging

import pytest
from django.test import override_settings
from django.urls import reverse

from lti.models import LaunchNonce
from tests.lti.fake_lms import oidc_login

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("limit_clock")]


@override_settings(LTI_LOGINS_PER_ADDRESS="3/m")
def test_past_the_limit_a_429_page_says_to_wait_and_nothing_is_stored(
    client, platform, limit_clock, caplog
):
    for _ in range(3):
        oidc_login(client, platform)
    stored = LaunchNonce.objects.count()
    params = {"iss": platform.issuer, "login_hint": "h", "client_id": platform.client_id}
    with caplog.at_level(logging.WARNING, logger="softgrade.lti"):
        refused = client.get(reverse("lti:login"), params)
    assert refused.status_code == 429
    assert refused["Retry-After"] == "60"
    page = refused.content.decode()
    assert "softgrade could not open this activity" in page
    assert "Too many launches came from your network" in page
    assert "Wait about a minute, then open the activity again from your LMS." in page
    assert "reason=login_throttled" in caplog.text
    assert "throttled for the address 127.0.0.1" in caplog.text
    assert LaunchNonce.objects.count() == stored
    # Another address is not throttled; the same one is again once the minute is over.
    assert client.get(reverse("lti:login"), params, REMOTE_ADDR="198.51.100.9").status_code != 429
    limit_clock.advance(60)
    oidc_login(client, platform)


@override_settings(LTI_LOGINS_PER_ADDRESS="1/m", TRUSTED_PROXY_COUNT=0)
def test_a_made_up_forwarded_header_is_no_new_address(client, platform):
    params = {"iss": platform.issuer, "login_hint": "h", "client_id": platform.client_id}

    def login(forwarded: str):
        return client.get(reverse("lti:login"), params, HTTP_X_FORWARDED_FOR=forwarded)

    assert login("198.51.100.1").status_code != 429
    assert login("198.51.100.2").status_code == 429
