"""Times in the learner's own zone (a quiz's closing time, an exam's deadline, paused practice):
the browser tells the server its zone (static/js/time-zone.js) at sign-in, and every page after
is written in it by the server (accounts/moments.py; tests/accounts/test_local_times.py)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

import pytest
from playwright.sync_api import expect

from courses.models import Quiz
from grading.models import Attempt
from tests.browser.conftest import _check, _watched_page, log_in
from tests.factories import QuizFactory

pytestmark = pytest.mark.browser


@pytest.fixture
def kolkata_page(browser, watch):
    """A desktop page whose browser lives in India (UTC+5:30), in British English."""
    context, page = _watched_page(
        browser,
        watch,
        viewport={"width": 1280, "height": 900},
        timezone_id="Asia/Kolkata",
        locale="en-GB",
    )
    yield page
    _check(context.pages, watch)
    context.close()


def test_the_closing_time_and_the_deadline_read_in_the_learner_s_zone(
    kolkata_page, live_server, learner_account
):
    page = kolkata_page
    quiz = QuizFactory(
        mode=Quiz.Mode.EXAM,
        show_feedback=Quiz.Feedback.AFTER_SUBMISSION,
        time_limit_minutes=30,
        closes_at=datetime(2027, 1, 20, 12, 0, tzinfo=UTC),
    )
    log_in(page, live_server, learner_account)
    page.goto(f"{live_server.url}/quizzes/{quiz.slug}/")
    closes = page.locator('dd time[datetime="2027-01-20T12:00:00Z"]')
    # 12:00 UTC is 17:30 in Kolkata; the zone's full name, as the browser gave it, is the
    # title (Chromium still says the zone's older name, Asia/Calcutta).
    expect(closes).to_have_text("20 Jan 2027, 17:30 IST")
    expect(closes).to_have_attribute("title", re.compile(r"^Asia/(Kolkata|Calcutta)$"))

    page.get_by_role("button", name="Start attempt 1").click()
    deadline = page.locator(".countdown time")
    attempt = Attempt.objects.get(user=learner_account, quiz=quiz)
    local = attempt.deadline.astimezone(timezone(timedelta(hours=5, minutes=30)))
    expect(deadline).to_have_text(f"{local:%H:%M} IST")


def test_paused_practice_says_until_when_in_the_learner_s_zone(
    kolkata_page, watch, live_server, shipped_bank, learner_account
):
    from grading.services.attempts import attempt_start

    page = kolkata_page
    exam = Quiz.objects.get(slug="attention-exam")
    attempt = attempt_start(user=learner_account, quiz=exam)
    deadline = datetime(2027, 1, 20, 12, 0, tzinfo=UTC)
    Attempt.objects.filter(pk=attempt.pk).update(deadline=deadline)
    item = exam.items.filter(problem__isnull=False).order_by("order").first()
    log_in(page, live_server, learner_account)
    page.goto(f"{live_server.url}/practice/{item.problem.slug}/")
    until = page.locator('#practice-refused time[datetime="2027-01-20T12:00:00Z"]')
    expect(until).to_have_text("20 Jan 2027, 17:30 IST")
    expect(page.locator("#practice-refused")).to_contain_text(
        "until 20 Jan 2027, 17:30 IST (your exam's deadline), or until you submit it."
    )
    # The page is a 403, which Chromium logs as a console error: that one is expected, and
    # taken off the list so the fixture's check still fails on any other.
    forbidden = "Failed to load resource: the server responded with a status of 403 (Forbidden)"
    watch.problems.remove(f"console error: {forbidden}")
