"""An instructor previews the exam in Chromium before it opens: from the quiz's instructor page,
on the learner's own sheet with the "Preview — not counted" banner (axe clean), answers, submits
through the dialog, sees the results as a learner would, and the statistics and the results grid
still count the four learners' attempts only."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from grading.models import Attempt, Variant
from tests.browser.conftest import log_in
from tests.browser.test_accessibility import fit_a_phone, serious_violations
from tests.browser.test_teaching_statistics import sat  # noqa: F401 (the fixture)
from tests.grading.test_services import answer_of

pytestmark = pytest.mark.browser


def test_an_instructor_previews_the_exam_and_no_report_counts_it(
    page,
    live_server,
    sat,  # noqa: F811 (the fixture imported above)
    learner_account,
):
    sat.opens_at = timezone.now() + timedelta(days=1)  # not open to learners yet
    sat.save()
    log_in(page, live_server, learner_account)
    page.goto(f"{live_server.url}/teach/quizzes/{sat.slug}/")
    page.get_by_role("button", name="Preview as a learner").click()
    page.wait_for_load_state("load")  # the deferred scripts listen before the first press
    banner = page.get_by_role("complementary", name="Preview")
    expect(banner).to_contain_text("Preview — not counted.")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Preview 1")
    assert serious_violations(page) == [], "the preview's sheet"

    preview = Attempt.objects.get(user=learner_account)
    assert preview.preview
    for item in sat.items.select_related("question").order_by("order", "id"):
        if item.question_id:
            for right in item.question.choices.filter(is_correct=True):
                page.locator(f'input[name="item-{item.pk}-choice"][value="{right.pk}"]').check()
        else:
            variant = Variant.objects.get(attempt=preview, quiz_item=item)
            page.locator(f"#item-{item.pk}-answer").fill(answer_of(variant))
    page.get_by_role("button", name="Submit attempt").click()
    page.get_by_role("dialog", name="Submit attempt 1?").get_by_role(
        "button", name="Submit now"
    ).click()
    expect(page.get_by_role("heading", name=re.compile("Results"))).to_be_visible()
    expect(page.get_by_role("complementary", name="Preview")).to_be_visible()
    preview.refresh_from_db()
    assert preview.status == Attempt.Status.SUBMITTED
    assert preview.score == preview.max_score > 0

    page.goto(f"{live_server.url}/teach/quizzes/{sat.slug}/statistics/?attempts=all")
    expect(page.locator('td[data-quiz="n"]')).to_have_text("4")
    page.goto(f"{live_server.url}/teach/quizzes/{sat.slug}/?attempts=all")
    expect(page.locator("#learners-heading")).to_contain_text("of 4")
    expect(page.locator("main")).not_to_contain_text(learner_account.username)


def test_the_preview_s_pages_fit_a_phone_width(
    phone_page,
    live_server,
    sat,  # noqa: F811 (the fixture imported above)
    learner_account,
):
    from grading.services.closing import attempt_submit
    from grading.services.previews import preview_start

    log_in(phone_page, live_server, learner_account)
    preview = preview_start(user=learner_account, quiz=sat)
    sheet = f"/attempts/{preview.pk}/"
    fit_a_phone(phone_page, live_server, {"preview-sheet": sheet}, shots="phone-")
    expect(phone_page.get_by_role("complementary", name="Preview")).to_be_visible()
    assert serious_violations(phone_page) == []
    attempt_submit(attempt=preview)
    results = f"/attempts/{preview.pk}/results/"
    fit_a_phone(phone_page, live_server, {"preview-results": results}, shots="phone-")


def test_open_as_a_learner_sees_it_then_its_button_is_a_preview_too(
    page,
    live_server,
    sat,  # noqa: F811 (the fixture imported above)
    learner_account,
):
    """The learner's quiz page, reached from the instructor page, says that what its teacher
    starts is a preview and starts one; no report counts it."""
    log_in(page, live_server, learner_account)
    page.goto(f"{live_server.url}/teach/quizzes/{sat.slug}/")
    page.get_by_role("link", name="Open as a learner sees it").click()
    expect(page.locator("#preview-start")).to_contain_text("You teach this course")
    assert serious_violations(page) == [], "the quiz page of its teacher"
    page.locator("#preview-start").get_by_role("button", name="Preview as a learner").click()
    expect(page.get_by_role("complementary", name="Preview")).to_contain_text(
        "Preview — not counted."
    )
    assert Attempt.objects.get(user=learner_account).preview
    page.goto(f"{live_server.url}/teach/quizzes/{sat.slug}/?attempts=all")
    expect(page.locator("#learners-heading")).to_contain_text("of 4")
