"""The results grid of a 10-item exam in Chromium: it fits (learner, total and every compact item
column in the table's own box at 1280 px, no page-level sideways scroll), the learner and total
stay put while the items scroll, the score stays in view at 375 px; sorting by a header, the
status filter, and next / previous learner on the attempt page; axe clean at 1280 and 375 px."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from teaching.models import CourseRole
from tests.browser.conftest import log_in
from tests.browser.test_accessibility import screenshot, serious_violations
from tests.factories import InstructorFactory, LessonFactory
from tests.teaching.test_queries import quiz_of

pytestmark = pytest.mark.browser

ITEMS = 10
LEARNERS = 4  # "Learner 0" … "Learner 3"; 1 and 3 have a second attempt in progress


@pytest.fixture
def exam(learner_account):
    """A 10-item exam (questions and problems in turn) four learners sat, one with an override;
    the account teaches its course as a teaching assistant."""
    lesson = LessonFactory()
    built = quiz_of(lesson, learners=LEARNERS, items=ITEMS, launched={}, by=InstructorFactory())
    CourseRole.objects.create(
        course=lesson.course, user=learner_account, role=CourseRole.Role.TEACHING_ASSISTANT
    )
    return built.quiz


def grid_url(live_server, quiz, query=""):
    return f"{live_server.url}/teach/quizzes/{quiz.slug}/{query}"


def boxes(page) -> dict:
    """The grid's box, the learner and total headers and every item header, as the browser lays
    them out, and how far the page scrolls sideways."""
    return page.evaluate(
        """() => {
          const box = (el) => { const r = el.getBoundingClientRect();
                                return {left: r.left, right: r.right, width: r.width}; };
          const wrap = document.querySelector('.grid-wrap');
          return {
            overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
            wrap: box(wrap),
            learner: box(wrap.querySelector('thead .grid-learner')),
            total: box(wrap.querySelector('thead .grid-total')),
            items: [...wrap.querySelectorAll('thead .item-column')].map(box),
            firstLearner: box(wrap.querySelector('tbody th.grid-learner')),
            firstScore: box(wrap.querySelector('tbody td[data-score]')),
          };
        }"""
    )


def test_at_1280_px_every_item_column_fits_beside_the_learner_and_the_total(
    page, live_server, exam, learner_account
):
    log_in(page, live_server, learner_account)
    page.goto(grid_url(live_server, exam))
    found = boxes(page)
    assert found["overflow"] <= 0, f"the page scrolls sideways by {found['overflow']}px"
    wrap = found["wrap"]
    assert len(found["items"]) == ITEMS
    for name, cell in [("learner", found["learner"]), ("total", found["total"])] + [
        (f"item {n}", cell) for n, cell in enumerate(found["items"], start=1)
    ]:
        assert cell["left"] >= wrap["left"] - 1, name
        assert cell["right"] <= wrap["right"] + 1, f"{name} is outside the grid's box: {found}"
    assert serious_violations(page) == [], "grid at 1280 px"
    screenshot(page, "desktop-results-grid")

    # The item's short title shows on hover and on keyboard focus.
    first_item = page.locator("thead .item-column").first
    tip = first_item.locator(".item-tip")
    expect(tip).to_be_hidden()
    first_item.hover()
    expect(tip).to_be_visible()
    page.mouse.move(0, 0)
    expect(tip).to_be_hidden()
    # The header's sort link (its other link grades the item).
    sort_link = first_item.get_by_role("link", name=re.compile(r"^Item 1,"))
    sort_link.focus()
    expect(tip).to_be_visible()
    expect(sort_link).to_have_accessible_description(tip.inner_text())


def test_the_learner_and_the_total_stay_while_the_items_scroll(
    page, live_server, exam, learner_account
):
    log_in(page, live_server, learner_account)
    page.set_viewport_size({"width": 900, "height": 900})  # narrower: the items scroll
    page.goto(grid_url(live_server, exam))
    before = boxes(page)
    scrolled = page.evaluate(
        """() => { const wrap = document.querySelector('.grid-wrap');
                   wrap.scrollLeft = wrap.scrollWidth; return wrap.scrollLeft; }"""
    )
    assert scrolled > 0, "the grid should scroll inside its box at 900 px"
    after = boxes(page)
    assert after["overflow"] <= 0
    assert after["firstLearner"]["left"] == pytest.approx(before["firstLearner"]["left"], abs=1)
    assert after["firstScore"]["left"] == pytest.approx(before["firstScore"]["left"], abs=1)
    assert after["items"][0]["left"] < before["items"][0]["left"] - 50  # the items moved


def test_at_375_px_the_learner_and_the_score_are_in_view(
    phone_page, live_server, exam, learner_account
):
    log_in(phone_page, live_server, learner_account)
    phone_page.goto(grid_url(live_server, exam))
    found = boxes(phone_page)
    assert found["overflow"] <= 0, f"the page scrolls sideways by {found['overflow']}px"
    assert found["firstLearner"]["left"] >= 0
    assert found["firstScore"]["right"] <= 375, found
    # Scrolled down to the grid (the page, not the table), the score is on screen.
    phone_page.evaluate(
        "() => window.scrollTo(0, document.querySelector('.grid-wrap').getBoundingClientRect().top"
        " + window.scrollY - 20)"
    )
    expect(phone_page.locator("tbody td[data-score]").first).to_be_in_viewport()
    assert serious_violations(phone_page) == [], "grid at 375 px"
    screenshot(phone_page, "phone-results-grid")


def test_sort_by_a_header_and_filter_by_status(page, live_server, exam, learner_account):
    log_in(page, live_server, learner_account)
    page.goto(grid_url(live_server, exam))
    total = page.locator("thead th.grid-total")
    expect(total).to_have_attribute("aria-sort", "none")
    total.get_by_role("link").click()
    expect(page).to_have_url(grid_url(live_server, exam, "?sort=total"))
    expect(total).to_have_attribute("aria-sort", "ascending")
    scores = page.locator("tbody td[data-score]")
    ascending = [text.split("/")[0].strip() for text in scores.all_inner_texts()]
    assert [float(s) for s in ascending] == sorted(float(s) for s in ascending)
    total.get_by_role("link").click()
    expect(total).to_have_attribute("aria-sort", "descending")
    descending = [text.split("/")[0].strip() for text in scores.all_inner_texts()]
    assert [float(s) for s in descending] == sorted((float(s) for s in ascending), reverse=True)

    # Every attempt, those in progress only (learners 1 and 3): the sort is kept.
    page.get_by_label("Attempts", exact=True).select_option("all")
    page.get_by_label("Status").select_option("in_progress")
    page.get_by_role("button", name="Show").click()
    expect(page).to_have_url(
        grid_url(live_server, exam, "?attempts=all&status=in_progress&sort=-total&q=")
    )
    expect(page.locator("tbody tr")).to_have_count(2)
    expect(page.locator("tbody tr").first).to_contain_text("In progress")
    expect(page.locator("tr.grid-average")).to_contain_text("of 2 learners")
    assert serious_violations(page) == [], "grid sorted and filtered"


def test_next_and_previous_learner_follow_the_grid(page, live_server, exam, learner_account):
    log_in(page, live_server, learner_account)
    page.goto(grid_url(live_server, exam, "?sort=-learner"))
    page.locator("tbody td[data-score]").first.get_by_role("link").click()
    heading = page.get_by_role("heading", level=1)
    expect(heading).to_contain_text("Learner 3")
    neighbours = page.get_by_role("navigation", name="Learners in the results grid's order")
    expect(neighbours).to_contain_text(f"Learner 1 of {LEARNERS}")
    expect(neighbours).to_contain_text("First learner")
    neighbours.get_by_role("link", name="Next learner").click()
    expect(heading).to_contain_text("Learner 2")
    expect(neighbours).to_contain_text(f"Learner 2 of {LEARNERS}")
    assert "sort=-learner" in page.url
    neighbours.get_by_role("link", name="Previous learner").click()
    expect(heading).to_contain_text("Learner 3")
    assert serious_violations(page) == [], "attempt with neighbours at 1280 px"
    page.set_viewport_size({"width": 375, "height": 812})
    assert serious_violations(page) == [], "attempt with neighbours at 375 px"
    overflow = page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0
