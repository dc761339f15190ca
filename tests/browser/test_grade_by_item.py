"""An instructor grades one item for two learners in place, in Chromium: from the results grid's
item column to the grade-by-item page, one override per row, each saved back to the same page
with the row's new score and history; a bad score keeps what was typed; axe finds no serious
problem at 1280 and 375 px, and the page fits a phone's width."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from courses.models import Quiz
from grading.models import Attempt, ScoreChange
from grading.overrides import item_score_override
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
    """The shipped exam, its account an instructor of its course; Grace and Alan each picked a
    wrong choice on its first item and typed 3 wherever a number is asked."""
    exam = Quiz.objects.get(slug="attention-exam")
    CourseRole.objects.create(
        course=exam.lesson.course, user=learner_account, role=CourseRole.Role.INSTRUCTOR
    )
    for name in ("Grace", "Alan"):
        learner = UserFactory(first_name=name, last_name="Learner")
        attempt = attempt_start(user=learner, quiz=exam)
        for item in exam.items.all():
            question = item.question
            if question:
                wrong = question.choices.filter(is_correct=False).order_by("order", "pk").first()
                response_submit(attempt=attempt, item=item, choice_ids=[wrong.pk])
            else:
                response_submit(attempt=attempt, item=item, text="3")
        attempt_submit(attempt=attempt)
    return exam


def test_an_instructor_grades_an_item_for_two_learners_in_place(
    page, live_server, watch, taught, learner_account
):
    first = taught.items.order_by("order", "pk").first()
    log_in(page, live_server, learner_account)
    page.goto(f"{live_server.url}/teach/quizzes/{taught.slug}/")
    page.get_by_role("link", name="Grade item 1", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Grade item 1")
    assert serious_violations(page) == [], "grade by item"
    screenshot(page, "desktop-teach-grade-by-item")

    for name, points, shown, reason in (
        ("Grace", "0.5", "0.50 of", "Half marks: the reasoning was right."),
        ("Alan", "1", "1 of", "The prompt was ambiguous."),
    ):
        attempt = Attempt.objects.get(user__first_name=name)
        row = page.locator(f"#grade-{attempt.pk}")
        expect(row.get_by_role("heading", level=2)).to_contain_text(f"{name} Learner")
        row.get_by_label("New score (points)").fill(points)
        row.get_by_label("Reason").fill(reason)
        row.get_by_role("button", name="Save the score").click()
        expect(page.get_by_role("status")).to_contain_text(f"{name} Learner: Score set:")
        row = page.locator(f"#grade-{attempt.pk}")
        expect(row.locator("[data-points]")).to_contain_text(shown)
        expect(row.get_by_text(reason)).to_be_visible()
        # Back at the same place: the page's address names the row just saved.
        assert page.url.endswith(f"#grade-{attempt.pk}")
    changes = dict(ScoreChange.objects.values_list("attempt__user__first_name", "new_score"))
    assert changes == {"Grace": 0.5, "Alan": 1.0}
    assert set(ScoreChange.objects.values_list("quiz_item", flat=True)) == {first.pk}
    assert serious_violations(page) == [], "grade by item after two overrides"

    # Too many points: the row says why and keeps what was typed; nothing changes.
    grace = Attempt.objects.get(user__first_name="Grace")
    row = page.locator(f"#grade-{grace.pk}")
    row.get_by_label("New score (points)").fill(str(first.points + 1))
    row.get_by_label("Reason").fill("Bonus.")
    # A refused score answers 400 (the page again, with the reason), which Chromium logs.
    grading = f"{live_server.url}/teach/quizzes/{taught.slug}/items/{first.pk}/grade/"
    watch.expect_refusal(grading)
    watch.expect_refusal(f"{grading}#grade-{grace.pk}")
    # The browser's own range check would stop the form: the server's message is under test.
    row.locator("form").evaluate("(form) => { form.noValidate = true; }")
    row.get_by_role("button", name="Save the score").click()
    row = page.locator(f"#grade-{grace.pk}")
    expect(row.get_by_role("alert")).to_contain_text("The score must be a number from 0 to")
    expect(row.get_by_label("New score (points)")).to_have_value(str(first.points + 1))
    expect(row.get_by_label("Reason")).to_have_value("Bonus.")
    assert ScoreChange.objects.count() == 2
    assert serious_violations(page) == [], "grade by item with a refused score"


def test_the_grade_by_item_page_fits_a_phone(phone_page, live_server, taught, learner_account):
    first = taught.items.order_by("order", "pk").first()
    # A row with a score change, so its history is on the page too.
    item_score_override(
        attempt=Attempt.objects.get(user__first_name="Grace"),
        item=first,
        score=0.5,
        reason="Half marks: the reasoning was right.",
        by=learner_account,
    )
    problem = taught.items.filter(problem__isnull=False).order_by("order", "pk").first()
    log_in(phone_page, live_server, learner_account)
    pages = {
        "grade-question": f"/teach/quizzes/{taught.slug}/items/{first.pk}/grade/",
        "grade-problem": f"/teach/quizzes/{taught.slug}/items/{problem.pk}/grade/",
    }
    fit_a_phone(phone_page, live_server, pages, shots="phone-teach-")
    for path in pages.values():
        phone_page.goto(live_server.url + path)
        assert serious_violations(phone_page) == [], path
