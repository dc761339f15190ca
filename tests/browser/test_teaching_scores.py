"""An instructor changes scores on the pages under /teach/ in Chromium: fixes a question's key,
previews who gains and who loses, applies the regrade; overrides one item's score from an
attempt; axe finds no serious problem, and the pages fit a phone's width."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from courses.models import Misconception, Quiz
from grading.models import Attempt, Regrade, ScoreChange
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.responses import response_submit
from teaching.models import CourseRole
from tests.browser.conftest import log_in
from tests.browser.test_accessibility import fit_a_phone, screenshot, serious_violations
from tests.factories import UserFactory

pytestmark = pytest.mark.browser


@pytest.fixture
def taught(shipped_bank, learner_account):
    """The shipped exam, its account an instructor of its course. On its first item ("how much
    larger is the variance", keyed "4 times") Grace picked the key and Alan "16 times"; both
    typed the same numbers elsewhere."""
    exam = Quiz.objects.get(slug="attention-exam")
    CourseRole.objects.create(
        course=exam.lesson.course, user=learner_account, role=CourseRole.Role.INSTRUCTOR
    )
    first = exam.items.order_by("order", "pk").first()
    for name, picked in (("Grace", 0), ("Alan", 1)):
        learner = UserFactory(first_name=name, last_name="Learner")
        attempt = attempt_start(user=learner, quiz=exam)
        for item in exam.items.all():
            question = item.question
            choices = list(question.choices.order_by("order", "pk")) if question else []
            if item == first:
                response_submit(attempt=attempt, item=item, choice_ids=[choices[picked].pk])
            elif choices:
                response_submit(attempt=attempt, item=item, choice_ids=[choices[0].pk])
            else:
                response_submit(attempt=attempt, item=item, text="3")
        attempt_submit(attempt=attempt)
    return exam


def test_an_instructor_previews_and_applies_a_regrade(page, live_server, taught, learner_account):
    scores = dict(Attempt.objects.values_list("user__first_name", "score"))
    misconception = Misconception.objects.get(title="Squared the head width")
    log_in(page, live_server, learner_account)
    page.goto(f"{live_server.url}/teach/quizzes/{taught.slug}/")
    page.get_by_role("link", name="Regrade item 1", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Regrade item 1")
    assert serious_violations(page) == [], "regrade"

    # The key was wrong: "16 times" is right, and "4 times" a squared head width.
    page.get_by_role("radio", name="B. 16 times").check()
    page.get_by_label("Misconception behind A when it is wrong").select_option(
        label=f"{misconception.title} ({misconception.code})"
    )
    page.get_by_role("button", name="Preview the regrade").click()
    expect(page.get_by_role("heading", name="Preview: what the fix")).to_be_visible()
    grace = page.get_by_role("row", name="Grace Learner", exact=False)
    alan = page.get_by_role("row", name="Alan Learner", exact=False)
    expect(grace).to_contain_text("loses 1")
    expect(alan).to_contain_text("gains 1")
    expect(page.locator('dd[data-count="gain"]')).to_have_text("1")
    expect(page.locator('dd[data-count="lose"]')).to_have_text("1")
    assert serious_violations(page) == [], "regrade preview"
    screenshot(page, "desktop-teach-regrade-preview")
    assert not Regrade.objects.exists()

    page.get_by_role("button", name="Apply this regrade").click()
    expect(page.get_by_role("status")).to_contain_text(
        "Regraded: 2 answers in 2 attempts got a new verdict; 1 gained, 1 lost."
    )
    expect(page.get_by_text("Nothing to apply")).to_be_visible()
    expect(page.locator("tr[data-regrade]")).to_have_count(1)
    assert serious_violations(page) == [], "regrade applied"
    screenshot(page, "desktop-teach-regrade-applied")
    after = dict(Attempt.objects.values_list("user__first_name", "score"))
    assert after == {"Grace": scores["Grace"] - 1, "Alan": scores["Alan"] + 1}


def test_an_instructor_overrides_a_score_from_the_attempt(
    page, live_server, taught, learner_account
):
    attempt = Attempt.objects.get(user__first_name="Alan")
    log_in(page, live_server, learner_account)
    page.goto(f"{live_server.url}/teach/attempts/{attempt.pk}/")
    override = page.locator("details.override").first
    override.locator("summary").click()
    override.get_by_label("New score (points)").fill("0.5")
    override.get_by_label("Reason").fill("Half marks: the working was right.")
    override.get_by_role("button", name="Override the score").click()
    expect(page.get_by_role("status")).to_contain_text("Score set: 0.50 of")
    expect(page.get_by_text("Half marks: the working was right.")).to_be_visible()
    assert serious_violations(page) == [], "attempt after an override"
    change = ScoreChange.objects.get()
    assert (change.new_score, change.by) == (0.5, learner_account)


def test_the_score_pages_fit_a_phone_width(phone_page, live_server, taught, learner_account):
    attempt = Attempt.objects.get(user__first_name="Alan")
    first = taught.items.order_by("order", "pk").first()
    choices = list(first.question.choices.order_by("order", "pk"))
    fix = f"fix=1&correct={choices[1].pk}" + "".join(
        f"&misconception_{c.pk}={c.misconception_id or choices[1].misconception_id}"
        for c in choices
    )
    log_in(phone_page, live_server, learner_account)
    pages = {
        "regrade": f"/teach/items/{first.pk}/regrade/?{fix}",
        "override": f"/teach/attempts/{attempt.pk}/items/{first.pk}/override/",
    }
    fit_a_phone(phone_page, live_server, pages, shots="phone-teach-")
