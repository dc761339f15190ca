"""The exam page's Save answers button with the page's script: the sheet is saved through the
script's JSON path, and the learner stays on the page and is told what was saved. An answer the
server cannot read brings the server's own page, with the message next to its box."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from grading import engine
from grading.models import Attempt, Response, Variant
from tests.browser.conftest import log_in

pytestmark = pytest.mark.browser

SAVE = re.compile(r"/attempts/\d+/save/$")


def _exam_page(page, live_server, learner_account) -> Attempt:
    log_in(page, live_server, learner_account)
    page.goto(live_server.url + "/quizzes/attention-exam/")
    page.get_by_role("button", name="Start attempt 1").click()
    # The script is deferred: a press before it listens would be the browser's own.
    expect(page.locator('form[data-autosave="on"]')).to_have_count(1)
    return Attempt.objects.get(user=learner_account)


def _answer_every_item(page, attempt: Attempt) -> dict[int, str | int]:
    """A readable answer in every box and a choice for every question; what was entered."""
    entered: dict[int, str | int] = {}
    for item in attempt.quiz.items.select_related("question").order_by("order"):
        if item.problem_id:
            variant = Variant.objects.get(attempt=attempt, quiz_item=item)
            answer = engine.get_family(variant.family).solve(variant.givens).answer
            entered[item.pk] = engine.format_answer(answer)
            page.locator(f"#item-{item.pk}-answer").fill(entered[item.pk])
        else:
            choice = item.question.choices.order_by("order", "id").first()
            entered[item.pk] = choice.pk
            page.locator(f"#item-{item.pk}-choice-{choice.pk}").check()
    return entered


def test_save_answers_stays_on_the_page_and_says_what_it_saved(
    page, live_server, shipped_bank, learner_account
):
    attempt = _exam_page(page, live_server, learner_account)
    navigated = []
    page.on("framenavigated", lambda frame: navigated.append(frame.url))
    entered = _answer_every_item(page, attempt)

    with page.expect_response(SAVE) as saved:
        page.get_by_role("button", name="Save answers").click()
    assert saved.value.request.headers["accept"] == "application/json"
    status = page.get_by_role("status")
    expect(status).to_have_text(
        re.compile(rf"^Saved {len(entered)} answers at \d\d:\d\d(:\d\d)?( [AP]M)?\.$")
    )
    assert navigated == []
    stored = {
        response.quiz_item_id: response.text or response.choices.get().pk
        for response in Response.objects.filter(attempt=attempt).prefetch_related("choices")
    }
    assert stored == entered
    expect(page.locator("[data-item-state]")).to_have_text(["saved"] * len(entered))

    # Pressed again with the same answers: nothing new, said so, and still on the page.
    with page.expect_response(SAVE) as again:
        page.get_by_role("button", name="Save answers").click()
    assert again.value.json()["saved"] == 0
    expect(status).to_contain_text("Nothing new to save")
    assert navigated == []
    assert Response.objects.filter(attempt=attempt).count() == len(entered)

    # Submit asks first (tests/browser/test_submit_confirm.py), then is the browser's own
    # request: the results page.
    page.get_by_role("button", name="Submit attempt").click()
    page.get_by_role("dialog").get_by_role("button", name="Submit now").click()
    expect(page.get_by_role("heading", name=re.compile("Results"))).to_be_visible()


def test_an_answer_that_cannot_be_read_brings_the_page_with_the_message_by_its_box(
    page, live_server, shipped_bank, learner_account
):
    attempt = _exam_page(page, live_server, learner_account)
    item = attempt.quiz.items.filter(problem__isnull=False).order_by("order").first()
    page.locator(f"#item-{item.pk}-answer").fill("9^9^9")

    with page.expect_navigation():
        page.get_by_role("button", name="Save answers").click()
    expect(page.locator(f"#item-{item.pk}-error")).to_contain_text("We could not read")
    expect(page.get_by_text("1 answer could not be read and was not saved")).to_be_visible()
    # The page's request carried the script's token: the answer is stored once, not twice.
    assert Response.objects.filter(attempt=attempt, status="invalid").count() == 1
