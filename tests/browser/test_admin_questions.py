"""An instructor authors a question in the admin in Chromium at 1280 px: the choices table fits
without scrolling sideways, and the preview shows the choices' math as learners will see it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from courses.models import Lesson, Question
from tests.browser.conftest import PASSWORD
from tests.browser.test_accessibility import screenshot

pytestmark = pytest.mark.browser


@pytest.fixture
def instructor(learner_account):
    """The browser tests' account, made an instructor who authors in the admin."""
    learner_account.is_staff = learner_account.is_superuser = True
    learner_account.save()
    return learner_account


def admin_log_in(page, live_server, user) -> None:
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/admin/")


def fits_the_screen(page) -> None:
    """The page does not scroll sideways, nor does the choices table inside its own box."""
    page_overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert page_overflow <= 0, f"the page scrolls sideways by {page_overflow}px"
    table = page.locator("#choices-group table")
    box = table.bounding_box()
    assert box["x"] >= 0, box
    assert box["x"] + box["width"] <= 1280, box
    inner = page.locator("#choices-group .tabular .wrapper").evaluate(
        "wrap => wrap.scrollWidth - wrap.clientWidth"
    )
    assert inner <= 0, f"the choices table scrolls sideways by {inner}px"


def test_a_new_question_fits_and_its_preview_follows_the_typing(
    page, live_server, shipped_bank, instructor
):
    lesson = Lesson.objects.get(slug="scaled-dot-product-attention")
    admin_log_in(page, live_server, instructor)
    page.goto(f"{live_server.url}/admin/courses/question/add/?lesson={lesson.pk}")
    expect(page.locator("#choices-group tr.form-row:not(.empty-form)")).to_have_count(4)
    fits_the_screen(page)
    first_group = page.locator("#id_choices-0-misconception optgroup").first
    expect(first_group).to_have_attribute("label", re.compile(r"^This lesson · .* √dₖ$"))

    page.fill("#id_prompt", "What is the variance of $q \\cdot k$?")
    page.fill("#id_choices-0-text", "$\\sqrt{d_k}$")
    page.fill("#id_choices-0-feedback", "That is its standard deviation, $\\sigma$.")
    preview = page.locator("#learner-preview .sg-preview-choices li").first
    expect(preview.locator("math msqrt")).to_have_count(1)
    expect(preview.locator(".sg-if-picked math")).to_have_count(1)
    fits_the_screen(page)
    screenshot(page, "admin-question-add")


def test_a_saved_question_fits_and_previews_its_choices_math(
    page, live_server, shipped_bank, instructor
):
    question = next(
        q for q in Question.objects.all() if any("$" in c.text for c in q.choices.all())
    )
    admin_log_in(page, live_server, instructor)
    page.goto(f"{live_server.url}/admin/courses/question/{question.pk}/change/")
    rows = page.locator("#choices-group tr.form-row:not(.empty-form)")
    expect(rows).to_have_count(question.choices.count())
    fits_the_screen(page)
    expect(page.locator("#learner-preview .sg-preview-choices math").first).to_be_visible()
    screenshot(page, "admin-question-change")
