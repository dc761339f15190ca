"""In the browser: at the deadline of an exam with a grace period, the countdown lands on the page
that submits (the attempt takes no more answers), and submitting grades what was saved; an exam
left open is shown closed when the learner comes back."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from courses.models import Quiz
from grading import engine
from grading.models import Attempt, Variant
from tests.browser.conftest import log_in

pytestmark = pytest.mark.browser


def _save_the_right_answer(page, attempt: Attempt):
    item = attempt.quiz.items.filter(problem__isnull=False).order_by("order").first()
    variant = Variant.objects.get(attempt=attempt, quiz_item=item)
    right = engine.format_answer(engine.get_family(variant.family).solve(variant.givens).answer)
    page.locator(f"#item-{item.pk}-answer").fill(right)
    page.get_by_role("button", name="Save answers").click()
    expect(page.get_by_role("status")).to_contain_text("Saved 1 answer at")
    return item


def test_in_the_grace_period_the_countdown_leads_to_submitting(
    page, live_server, shipped_bank, learner_account
):
    Quiz.objects.filter(slug="attention-exam").update(grace_minutes=5)
    log_in(page, live_server, learner_account)
    page.goto(live_server.url + "/quizzes/attention-exam/")
    expect(page.locator("[data-overdue-rule]")).to_contain_text("You may still submit for 5")
    page.get_by_role("button", name="Start attempt 1").click()
    expect(page.get_by_role("timer")).to_contain_text("Time left")
    attempt = Attempt.objects.get(user=learner_account)
    item = _save_the_right_answer(page, attempt)

    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() + timedelta(seconds=3))
    page.reload()
    expect(page.get_by_role("heading", name=re.compile("Submit attempt 1"))).to_be_visible(
        timeout=15_000
    )
    expect(page.get_by_text("Time is up: answers are no longer saved")).to_be_visible()
    page.get_by_role("button", name="Submit attempt").click()
    expect(page.get_by_role("heading", name=re.compile("Results"))).to_be_visible()
    expect(page.locator("#score")).to_contain_text(f"{item.points} of")
    attempt.refresh_from_db()
    assert (attempt.status, attempt.late, attempt.score) == ("submitted", False, item.points)


def test_an_exam_left_open_shows_closed_when_the_learner_comes_back(
    page, live_server, shipped_bank, learner_account
):
    log_in(page, live_server, learner_account)
    page.goto(live_server.url + "/quizzes/attention-exam/")
    page.get_by_role("button", name="Start attempt 1").click()
    attempt = Attempt.objects.get(user=learner_account)
    item = _save_the_right_answer(page, attempt)
    page.goto(live_server.url + "/")  # the learner leaves; their time runs out meanwhile
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(minutes=1))

    page.goto(live_server.url + "/history/")
    expect(page.get_by_text("Submitted (time ran out)")).to_be_visible()
    page.get_by_role("link", name="1 (results)").click()
    expect(page.get_by_text("Submitted automatically when time ran out at")).to_be_visible()
    expect(page.locator("#score")).to_contain_text(f"{item.points} of")
