"""At 375 px the learner finds what matters without scrolling sideways or far down: the score in
the history tables, and the lesson's practice and quiz links."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in
from tests.browser.test_accessibility import (  # learner_pages is a fixture
    LESSON,
    learner_pages,  # noqa: F401
    serious_violations,
)

pytestmark = pytest.mark.browser

PHONE_WIDTH = 375
NEAR_THE_TOP = 1000  # px from the top of the page


def boxes(page, selector: str) -> list[dict]:
    return page.locator(selector).evaluate_all(
        "cells => cells.map(c => { const r = c.getBoundingClientRect();"
        " return {left: r.left, right: r.right, top: r.top + window.scrollY}; })"
    )


@pytest.mark.usefixtures("learner_pages")
def test_the_history_shows_each_score_without_sideways_scrolling(
    phone_page, live_server, learner_account
):
    log_in(phone_page, live_server, learner_account)
    for path in ("/history/", "/quizzes/attention-exam/"):
        phone_page.goto(live_server.url + path)
        scores = boxes(phone_page, "[data-score], .streak-table tbody td:last-child")
        assert scores, f"{path} shows a score"
        for score in scores:
            assert score["left"] >= 0, (path, score)
            assert score["right"] <= PHONE_WIDTH, (path, score)
        scrolling = phone_page.locator(".table-wrap").evaluate_all(
            "wraps => wraps.map(w => w.scrollWidth - w.clientWidth)"
        )
        assert all(extra <= 0 for extra in scrolling), (path, scrolling)
        assert serious_violations(phone_page) == [], path


def test_the_lesson_offers_practice_and_quizzes_near_the_top(phone_page, live_server, shipped_bank):
    phone_page.goto(live_server.url + LESSON)
    jumps = phone_page.get_by_role("navigation", name="On this page")
    expect(jumps).to_be_visible()
    practise = jumps.get_by_role("link", name="Practise")
    quizzes = jumps.get_by_role("link", name=re.compile("^Quiz: "))
    expect(quizzes).to_have_count(2)
    assert serious_violations(phone_page) == []
    for link in [practise, quizzes.first, quizzes.last]:
        box = link.bounding_box()
        assert box["y"] + box["height"] <= NEAR_THE_TOP, box
        assert box["x"] + box["width"] <= PHONE_WIDTH, box
    practise.click()
    phone_page.wait_for_url("**/lessons/scaled-dot-product-attention/practice/")
    phone_page.go_back()
    quizzes.first.click()
    phone_page.wait_for_url("**/quizzes/**")
