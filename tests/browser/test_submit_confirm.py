"""Submit asks first, in a dialog (static/js/submit-confirm.js): it names the items still
without an answer, Keep working closes it, Submit now submits; at desktop and phone widths, axe
clean. The countdown's end is never held up by it. The page without the script:
tests/grading/test_views_submit_confirm.py."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from grading import selectors
from grading.models import Attempt, Variant
from tests.browser.conftest import log_in
from tests.browser.test_accessibility import serious_violations
from tests.grading.test_services import answer_of

pytestmark = pytest.mark.browser


def _start(page, live_server, learner_account, slug: str) -> Attempt:
    log_in(page, live_server, learner_account)
    page.goto(f"{live_server.url}/quizzes/{slug}/")
    page.get_by_role("button", name="Start attempt 1").click()
    # The scripts are deferred: a press before they listen would be the browser's own.
    page.wait_for_load_state("load")
    return Attempt.objects.get(user=learner_account)


def _numbers(attempt: Attempt) -> dict[int, int]:
    return {row.item.pk: row.number for row in selectors.attempt_sheet(attempt=attempt)}


@pytest.mark.parametrize("width", ["page", "phone_page"])
def test_the_exam_asks_before_submitting_and_names_the_unanswered_items(
    width, request, live_server, shipped_bank, learner_account
):
    page = request.getfixturevalue(width)
    attempt = _start(page, live_server, learner_account, "attention-exam")
    item = attempt.quiz.items.filter(problem__isnull=False).order_by("order").first()
    variant = Variant.objects.get(attempt=attempt, quiz_item=item)
    # Typed but not saved yet: it counts as an answer, since submitting saves it.
    page.locator(f"#item-{item.pk}-answer").fill(answer_of(variant))

    page.get_by_role("button", name="Submit attempt").click()
    dialog = page.get_by_role("dialog", name="Submit attempt 1?")
    expect(dialog).to_be_visible()
    count = attempt.quiz.items.count()
    expect(dialog).to_contain_text(f"{count - 1} of {count} items have no answer yet")
    rest = sorted(n for pk, n in _numbers(attempt).items() if pk != item.pk)
    expect(dialog.get_by_role("link")).to_have_text([f"Item {n}" for n in rest])
    assert serious_violations(page) == []

    dialog.get_by_role("button", name="Keep working").click()
    expect(dialog).to_be_hidden()
    attempt.refresh_from_db()
    assert attempt.status == Attempt.Status.IN_PROGRESS

    page.get_by_role("button", name="Submit attempt").click()
    dialog.get_by_role("button", name="Submit now").click()
    expect(page.get_by_role("heading", name=re.compile("Results"))).to_be_visible()
    attempt.refresh_from_db()
    assert (attempt.status, attempt.score) == (Attempt.Status.SUBMITTED, item.points)


def test_the_practice_quiz_asks_too_and_submits_from_the_dialog(
    phone_page, live_server, shipped_bank, learner_account
):
    page = phone_page
    attempt = _start(page, live_server, learner_account, "attention-practice")
    page.get_by_role("button", name="Submit attempt").click()
    dialog = page.get_by_role("dialog", name="Submit attempt 1?")
    expect(dialog).to_contain_text("No item has an answer yet")
    expect(dialog.get_by_role("link")).to_have_count(attempt.quiz.items.count())
    dialog.get_by_role("button", name="Submit now").click()
    expect(page.get_by_role("heading", name=re.compile("Results"))).to_be_visible()
    attempt.refresh_from_db()
    assert attempt.status == Attempt.Status.SUBMITTED


def test_the_countdown_s_end_is_not_held_up_by_an_open_dialog(
    page, live_server, shipped_bank, learner_account
):
    attempt = _start(page, live_server, learner_account, "attention-exam")
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() + timedelta(seconds=3))
    page.reload()
    page.wait_for_load_state("load")
    page.get_by_role("button", name="Submit attempt").click()
    expect(page.get_by_role("dialog", name="Submit attempt 1?")).to_be_visible()

    expect(page.get_by_role("heading", name=re.compile("Results"))).to_be_visible(timeout=15_000)
    expect(page.get_by_text("Time is up")).to_be_visible()
    attempt.refresh_from_db()
    assert attempt.status == Attempt.Status.SUBMITTED
