"""The exam page while the service is briefly unavailable: the autosave tells the learner and
tries again until the answer is taken; at the deadline the countdown waits for the service before
it opens the result; without JavaScript the page works as before."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from grading.models import Attempt, Response
from tests.browser.conftest import log_in

pytestmark = pytest.mark.browser

# Chromium reports each refused request on the console; these are the ones the test causes.
EXPECTED = re.compile(r"status of 503|net::ERR_FAILED")
TOKEN = re.compile(r'name="token"\r\n\r\n([^\r]+)')


def start_exam(page, live_server, learner) -> Attempt:
    """The learner signs in and starts the shipped exam; its attempt page is open."""
    log_in(page, live_server, learner)
    page.goto(live_server.url + "/quizzes/attention-exam/")
    page.get_by_role("button", name="Start attempt 1").click()
    # The attempt exists once the start is stored, before the browser has followed the
    # redirect: wait for its page, or a reload next would race that navigation.
    page.wait_for_url(re.compile(r"/attempts/\d+/$"))
    page.wait_for_load_state("load")
    return Attempt.objects.get(user=learner)


def test_autosave_tells_the_learner_and_retries_until_the_service_is_back(
    page, watch, live_server, shipped_bank, learner_account
):
    attempt = start_exam(page, live_server, learner_account)
    item = attempt.quiz.items.filter(problem__isnull=False).order_by("order").first()

    outcomes = ["503", "abort"]  # the service restarting, then not answering at all
    sent = []

    def save(route):
        sent.append(route.request.post_data)
        outcome = outcomes.pop(0) if outcomes else "pass"
        if outcome == "503":
            route.fulfill(
                status=503,
                headers={"Retry-After": "5"},
                content_type="application/json",
                body='{"code": "unavailable", "message": "briefly unavailable"}',
            )
        elif outcome == "abort":
            route.abort()
        else:
            route.continue_()

    page.route(re.compile(r"/attempts/\d+/save/$"), save)
    # The script is deferred: a change typed before it listens would never be autosaved.
    expect(page.locator('form[data-autosave="on"]')).to_have_count(1)
    page.locator(f"#item-{item.pk}-answer").fill("64")
    status = page.locator("#autosave-status")
    expect(status).to_contain_text("briefly unavailable", timeout=15_000)
    expect(status).to_contain_text("Your answers are still on this page; trying again in 2 s")
    expect(status).to_contain_text("not answering", timeout=15_000)
    expect(status).to_contain_text("All answers saved at", timeout=20_000)
    watch.problems[:] = [p for p in watch.problems if not EXPECTED.search(p)]
    assert not outcomes
    assert len(sent) == 3
    # The same submission token each time, so a save stored after all is recorded once.
    assert len({TOKEN.search(body).group(1) for body in sent}) == 1
    (response,) = Response.objects.filter(attempt=attempt)
    assert response.text == "64"

    # The next change is saved with the fresh token the server handed back.
    with page.expect_response(re.compile(r"/attempts/\d+/save/$"), timeout=30_000) as saved:
        page.locator(f"#item-{item.pk}-answer").fill("65")
    assert saved.value.json()["code"] == "saved"
    expect(status).to_contain_text("All answers saved at")
    assert list(Response.objects.filter(attempt=attempt).values_list("text", flat=True)) == [
        "64",
        "65",
    ]


def test_at_the_deadline_the_countdown_waits_for_the_service_then_opens_the_result(
    page, watch, live_server, shipped_bank, learner_account
):
    attempt = start_exam(page, live_server, learner_account)
    # The attempt's deadline a few seconds away, and the service restarting when it comes.
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() + timedelta(seconds=3))
    checks = []

    def health(route):
        checks.append(route.request.url)
        if len(checks) == 1:  # the first check meets the outage
            route.fulfill(
                status=503,
                headers={"Retry-After": "5"},
                content_type="application/json",
                body='{"database": "unavailable", "cache": "ok"}',
            )
        else:
            route.continue_()

    page.route(re.compile(r"/health/$"), health)
    page.reload()
    status = page.locator("#autosave-status")
    expect(status).to_contain_text("Time is up. The service is briefly unavailable", timeout=15_000)
    expect(status).to_contain_text("trying again in 2 s")
    expect(page).to_have_url(re.compile(r"/attempts/\d+/results/$"), timeout=20_000)
    watch.problems[:] = [p for p in watch.problems if not EXPECTED.search(p)]
    assert len(checks) == 2  # the outage, then the service back
    attempt.refresh_from_db()
    assert (attempt.status, attempt.late) == (Attempt.Status.SUBMITTED, True)


def test_the_exam_page_saves_without_javascript(
    browser, live_server, shipped_bank, learner_account
):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    attempt = start_exam(page, live_server, learner_account)
    item = attempt.quiz.items.filter(problem__isnull=False).order_by("order").first()
    assert page.locator("#autosave-status").count() == 0
    page.locator(f"#item-{item.pk}-answer").fill("64")
    page.get_by_role("button", name="Save answers").click()
    expect(page.get_by_text("Saved 1 answer.")).to_be_visible()
    assert Response.objects.get(attempt=attempt).text == "64"
    context.close()
