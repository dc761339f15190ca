"""In the browser: the waiting room before an exam opens. Its countdown reaching the opening
instant makes the start active without a reload, and starting lands on the attempt the page
prepared; without the script a reload at the instant does; a learner arriving after the opening
finds the start active at once; axe finds nothing serious at desktop and phone widths."""

from __future__ import annotations

import re
import time
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from courses.models import Quiz
from grading.models import Attempt
from tests.browser.conftest import _check, _watched_page, log_in
from tests.browser.test_accessibility import serious_violations

pytestmark = pytest.mark.browser

QUIZ = "/quizzes/attention-exam/"
AHEAD = timedelta(seconds=5)


def opens_in(delta: timedelta):
    """The exam opens `delta` from now (in the past when negative); returns the moment."""
    moment = timezone.now() + delta
    Quiz.objects.filter(slug="attention-exam").update(opens_at=moment, closes_at=None)
    return moment


def start_button(page):
    return page.get_by_role("button", name="Start attempt 1")


def lands_on_the_prepared_attempt(page, live_server, user) -> None:
    prepared = Attempt.prepared.get(user=user)
    start_button(page).click()
    page.wait_for_url(f"{live_server.url}/attempts/{prepared.pk}/")
    expect(page.get_by_role("timer")).to_contain_text("Time left")
    attempt = Attempt.objects.get(user=user)
    assert (attempt.pk, attempt.status) == (prepared.pk, Attempt.Status.IN_PROGRESS)


def test_the_countdown_reaching_the_instant_makes_the_start_active(
    page, live_server, shipped_bank, learner_account
):
    log_in(page, live_server, learner_account)
    opening = opens_in(AHEAD)
    page.goto(live_server.url + QUIZ)
    timer = page.get_by_role("timer")
    expect(timer).to_have_accessible_name("Time until the quiz opens")
    expect(timer).to_contain_text(re.compile(r"Opens in: 0:0[1-5]"))
    expect(start_button(page)).to_be_disabled()
    # The opening time in the learner's own zone, written by the server, the zone named.
    local = opening.astimezone(ZoneInfo("Pacific/Auckland"))
    expect(page.locator("[data-waiting-room] time")).to_have_text(
        f"{local:%-d %b %Y, %H:%M} {local.tzname()}"
    )
    expect(start_button(page)).to_be_enabled(timeout=10_000)
    # Never before the server's instant.
    assert timezone.now() >= opening
    expect(timer).to_contain_text("Opens in: 0:00")
    expect(page.locator("#waiting-announcement")).to_have_text(
        "The quiz is open. You can start now."
    )
    lands_on_the_prepared_attempt(page, live_server, learner_account)


def test_without_the_script_a_reload_at_the_instant_makes_the_start_active(
    browser, watch, live_server, shipped_bank, learner_account
):
    context, page = _watched_page(
        browser, watch, viewport={"width": 1280, "height": 900}, java_script_enabled=False
    )
    try:
        log_in(page, live_server, learner_account)
        opening = opens_in(AHEAD)
        page.goto(live_server.url + QUIZ)
        expect(start_button(page)).to_be_disabled()
        expect(page.get_by_text("Without the page's script, reload the page then.")).to_be_visible()
        time.sleep(max(0.0, (opening - timezone.now()).total_seconds()))
        page.reload()
        expect(start_button(page)).to_be_enabled()
        expect(page.get_by_role("timer")).to_have_count(0)
        lands_on_the_prepared_attempt(page, live_server, learner_account)
    finally:
        _check(context.pages, watch)
        context.close()


def test_a_learner_arriving_after_the_opening_starts_at_once(
    page, live_server, shipped_bank, learner_account
):
    log_in(page, live_server, learner_account)
    opens_in(-timedelta(minutes=2))
    page.goto(live_server.url + QUIZ)
    expect(page.get_by_role("timer")).to_have_count(0)
    expect(start_button(page)).to_be_enabled()
    lands_on_the_prepared_attempt(page, live_server, learner_account)


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_the_waiting_room_has_no_serious_accessibility_problem(
    width, request, live_server, shipped_bank, learner_account
):
    page = request.getfixturevalue("page" if width == "desktop" else "phone_page")
    log_in(page, live_server, learner_account)
    opens_in(timedelta(minutes=10))
    page.goto(live_server.url + QUIZ)
    expect(page.get_by_role("timer")).to_be_visible()
    assert serious_violations(page) == []
    overflow = page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0
