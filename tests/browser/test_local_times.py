"""Times in the learner's own zone: the page's script rewrites the server's UTC times
(static/js/local-time.js); the UTC fallback itself is tests/grading/test_local_times.py."""

from __future__ import annotations

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
    # 12:00 UTC is 17:30 in Kolkata; the UTC text stays as the title.
    expect(closes).to_have_text("20 Jan 2027, 17:30 GMT+5:30")
    expect(closes).to_have_attribute("title", "2027-01-20 12:00 UTC")

    page.get_by_role("button", name="Start attempt 1").click()
    deadline = page.locator(".countdown time[data-local-time]")
    expect(deadline).to_have_attribute("data-localised", "yes")
    attempt = Attempt.objects.get(user=learner_account, quiz=quiz)
    local = attempt.deadline.astimezone(timezone(timedelta(hours=5, minutes=30)))
    expect(deadline).to_have_text(f"{local:%H:%M} GMT+5:30")
