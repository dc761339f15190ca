"""A right-to-left language in Chromium: with the Arabic stub catalog, pages turn (the layout
mirrors through the style sheets' logical properties), math and typed answers stay left to
right, and axe finds no serious problem."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import BROWSER_TIME_ZONE, PASSWORD, watched_page
from tests.browser.test_accessibility import serious_violations

pytestmark = pytest.mark.browser

LESSON = "/lessons/scaled-dot-product-attention/"


@pytest.fixture
def arabic_page(browser, watch):
    with watched_page(browser, watch, timezone_id=BROWSER_TIME_ZONE, locale="ar") as page:
        yield page


def _box(locator) -> dict:
    box = locator.bounding_box()
    assert box is not None
    return box


def test_pages_turn_right_to_left_and_math_stays_left_to_right(
    arabic_page, live_server, shipped_bank, learner_account
):
    page = arabic_page
    page.goto(live_server.url + "/")
    html = page.locator("html")
    expect(html).to_have_attribute("lang", "ar")
    expect(html).to_have_attribute("dir", "rtl")
    navigation = page.get_by_role("navigation").first
    expect(navigation.get_by_role("link", name="المقررات")).to_be_visible()
    # The brand starts the line, so in Arabic it sits at the right, beyond the links.
    brand = _box(page.locator(".brand"))
    courses = _box(navigation.get_by_role("link", name="المقررات"))
    assert brand["x"] > courses["x"]
    assert serious_violations(page) == [], "home"

    page.goto(live_server.url + LESSON)
    first_math = page.locator(".lesson-body math").first
    expect(first_math).to_be_visible()
    assert first_math.evaluate("m => getComputedStyle(m).direction") == "ltr"
    assert serious_violations(page) == [], "lesson"

    # The selector names each language in its own words, whatever the page's language.
    expect(page.get_by_label("اللغة").locator("option[value=de]")).to_have_text("Deutsch")

    # A learner's answer is typed left to right, inside a right-to-left page.
    log_in_as_arabic_reader(page, live_server, learner_account)
    page.goto(live_server.url + "/practice/softmax/")
    answer = page.locator(".answer-input")
    expect(answer).to_be_visible()
    expect(answer).to_have_attribute("dir", "ltr")
    assert answer.evaluate("a => getComputedStyle(a).direction") == "ltr"
    assert page.locator("body").evaluate("b => getComputedStyle(b).direction") == "rtl"
    assert serious_violations(page) == [], "practice"


def log_in_as_arabic_reader(page, live_server, user) -> None:
    """Sign in on the Arabic page (its fields by id: their labels are Django's own Arabic)."""
    page.goto(f"{live_server.url}/accounts/login/")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    page.locator("#id_username").fill(user.username)
    page.locator("#id_password").fill(PASSWORD)
    page.locator("main form.stacked-form button[type=submit]").click()
    page.wait_for_url(f"{live_server.url}/")
