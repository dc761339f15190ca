"""The LTI setup page's copy buttons and the dynamic registration page's close message, in
Chromium: a button puts its value on the clipboard and says so; a registration that succeeded
tells the LMS window that opened it to close (`org.imsglobal.lti.close`), from its script file.
axe finds no serious problem on either page."""

from __future__ import annotations

import json
import time

import pytest
import responses
from playwright.sync_api import expect

from lti import outbound
from lti.tool_configuration import TOOL_CONFIGURATION_CLAIM
from tests.browser.conftest import PASSWORD, log_in
from tests.browser.test_accessibility import serious_violations
from tests.factories import InstructorFactory

pytestmark = pytest.mark.browser

CONFIGURATION_URL = "https://lms.example.edu/lti/openid-configuration"


def lti_messages(page, *, seconds: float = 10.0) -> list:
    """The messages the page's window was sent, once there are any. Asked from outside the page
    (page.evaluate), not by a function polled inside it, which would evaluate a string there:
    the page's content security policy refuses that, as it should, so a poll that did not
    succeed at once failed."""
    deadline = time.monotonic() + seconds
    while True:
        messages = page.evaluate("window.__ltiMessages")
        if messages or time.monotonic() > deadline:
            return messages
        time.sleep(0.05)


@pytest.fixture
def staff_account(transactional_db):
    user = InstructorFactory(username="admin-ada")
    user.set_password(PASSWORD)
    user.save()
    return user


def test_a_copy_button_puts_the_value_on_the_clipboard(page, live_server, staff_account):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    log_in(page, live_server, staff_account)
    page.goto(f"{live_server.url}/lti/setup/")
    launch = page.locator("#copy-launch-url")
    button = page.locator('[data-copy="copy-launch-url"]')
    expect(button).to_be_visible()
    button.click()
    expect(page.locator('[data-copy-status="copy-launch-url"]')).to_have_text("Copied.")
    assert serious_violations(page) == []
    assert page.evaluate("navigator.clipboard.readText()") == launch.inner_text()
    assert launch.inner_text() == f"{live_server.url}/lti/launch/"
    page.locator('[data-copy="copy-configuration"]').click()
    copied = json.loads(page.evaluate("navigator.clipboard.readText()"))
    assert copied["redirect_uris"] == [f"{live_server.url}/lti/launch/"]


def test_without_the_clipboard_the_value_is_selected(page, live_server, staff_account):
    log_in(page, live_server, staff_account)
    page.goto(f"{live_server.url}/lti/setup/")
    # A browser that refuses clipboard access (no permission, an old one): the value is selected.
    page.evaluate("""() => {
        navigator.clipboard.writeText = () => Promise.reject(new Error("not allowed"));
    }""")
    page.locator('[data-copy="copy-jwks-url"]').click()
    expect(page.locator('[data-copy-status="copy-jwks-url"]')).to_contain_text("Selected")
    assert page.evaluate("window.getSelection().toString()") == f"{live_server.url}/lti/jwks/"


@pytest.fixture
def fake_platform(monkeypatch):
    """The LMS's OpenID configuration and registration endpoints, answered in-process (the live
    server runs in this process, so `responses` answers its calls), at a public address."""
    monkeypatch.setattr(outbound, "host_addresses", lambda host, port: ["93.184.215.14"])
    configuration = {
        "issuer": "https://lms.example.edu",
        "authorization_endpoint": "https://lms.example.edu/lti/auth",
        "token_endpoint": "https://lms.example.edu/lti/token",
        "jwks_uri": "https://lms.example.edu/lti/certs",
        "registration_endpoint": "https://lms.example.edu/lti/register",
    }
    answer = {"client_id": "browser-client", TOOL_CONFIGURATION_CLAIM: {"deployment_id": "1"}}
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mock:
        mock.add(responses.GET, CONFIGURATION_URL, json=configuration)
        mock.add(responses.POST, configuration["registration_endpoint"], json=answer)
        yield mock


def test_a_finished_registration_tells_the_lms_window_to_close(
    page, live_server, staff_account, fake_platform
):
    log_in(page, live_server, staff_account)
    page.goto(f"{live_server.url}/lti/setup/")
    page.get_by_role("button", name="Make a registration link").click()
    link = page.locator("#copy-invite-url").inner_text()
    assert serious_violations(page) == []
    # The LMS's window: it opens softgrade's registration and waits for the close message.
    page.evaluate("""() => {
        window.__ltiMessages = [];
        window.addEventListener("message", (event) => window.__ltiMessages.push(event.data));
    }""")
    with page.expect_popup() as popup:
        page.evaluate(
            "(url) => window.open(url)",
            f"{link}?openid_configuration={CONFIGURATION_URL}&registration_token=t-1",
        )
    registration = popup.value
    expect(registration.get_by_role("heading", level=1)).to_have_text(
        "softgrade is registered with lms.example.edu"
    )
    assert serious_violations(registration) == []
    assert lti_messages(page) == [{"subject": "org.imsglobal.lti.close"}]


def test_a_refusal_stays_open_until_its_button_closes_it(
    page, watch, live_server, transactional_db
):
    unknown_link = f"{live_server.url}/lti/register/made-up/"
    watch.expect_refusal(unknown_link)  # 404: the link is not one softgrade made
    page.goto(f"{live_server.url}/")
    page.evaluate("""() => {
        window.__ltiMessages = [];
        window.addEventListener("message", (event) => window.__ltiMessages.push(event.data));
    }""")
    with page.expect_popup() as popup:
        page.evaluate("(url) => window.open(url)", unknown_link)
    refusal = popup.value
    assert refusal.evaluate("performance.getEntriesByType('navigation')[0].responseStatus") == 404
    expect(refusal.get_by_role("alert")).to_contain_text("not one softgrade made")
    assert page.evaluate("window.__ltiMessages") == []
    refusal.get_by_role("button", name="Close and return to the LMS").click()
    assert lti_messages(page) == [{"subject": "org.imsglobal.lti.close"}]
