"""The setup page: each value an LMS needs with a copy button, the tool configuration JSON on the
page and at its own URL (the same description dynamic registration posts), and the one-time
registration link shown once to the staff member who made it."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.urls import reverse

from lti.tool_configuration import TOOL_CONFIGURATION_CLAIM, TOOL_SCOPES
from tests.factories import InstructorFactory

pytestmark = pytest.mark.django_db

COPIED_VALUES = {
    "copy-login-url": "http://testserver/lti/login/",
    "copy-launch-url": "http://testserver/lti/launch/",
    "copy-deep-linking-url": "http://testserver/lti/launch/",
    "copy-jwks-url": "http://testserver/lti/jwks/",
    "copy-configuration-url": "http://testserver/lti/setup/configuration.json",
}


@pytest.fixture
def setup_page(client) -> str:
    client.force_login(InstructorFactory())
    return client.get(reverse("lti:setup")).content.decode()


@pytest.mark.parametrize("target", list(COPIED_VALUES))
def test_each_value_has_a_copy_button(setup_page, target):
    assert f'id="{target}">{COPIED_VALUES[target]}</code>' in setup_page
    assert f'data-copy="{target}"' in setup_page
    assert f'data-copy-status="{target}"' in setup_page


def test_the_buttons_need_the_script_and_the_script_is_a_file(setup_page):
    # Without script the hidden buttons stay hidden and the values are selected by a click.
    assert setup_page.count('class="button button-small button-secondary copy-button"') == 6
    assert all(
        "hidden" in button for button in re.findall(r"<button[^>]*copy-button[^>]*>", setup_page)
    )
    assert "lti/js/copy" in setup_page
    assert setup_page.count("<script") == setup_page.count("<script src=")


def on_page_configuration(page: str) -> dict:
    block = re.search(r'<pre [^>]*id="copy-configuration"[^>]*>(.*?)</pre>', page, re.S)
    return json.loads(html.unescape(block.group(1)))


def test_the_page_shows_the_tool_configuration_and_its_download(client, setup_page):
    shown = on_page_configuration(setup_page)
    served = client.get(reverse("lti:configuration"))
    assert served.status_code == 200
    assert served.json() == shown
    assert shown["initiate_login_uri"] == "http://testserver/lti/login/"
    assert shown["jwks_uri"] == "http://testserver/lti/jwks/"
    assert shown["scope"].split() == list(TOOL_SCOPES)
    assert shown[TOOL_CONFIGURATION_CLAIM]["messages"][0]["type"] == "LtiDeepLinkingRequest"
    assert 'href="http://testserver/lti/setup/configuration.json" download' in setup_page


def test_the_configuration_url_needs_no_sign_in(client):
    response = client.get(reverse("lti:configuration"))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert "softgrade-lti-configuration.json" in response["Content-Disposition"]
    assert response.json()["redirect_uris"] == ["http://testserver/lti/launch/"]


def test_a_new_registration_link_is_shown_with_a_copy_button(client):
    client.force_login(InstructorFactory())
    page = client.post(reverse("lti:registration-invite")).content.decode()
    link = re.search(r'id="copy-invite-url">(http://testserver/lti/register/\w+/)</code>', page)
    assert link is not None
    assert 'data-copy="copy-invite-url"' in page
    assert "It is shown only now, works once" in page
    assert client.get(link.group(1)).status_code == 400  # the LMS's parameters are missing
