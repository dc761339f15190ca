"""An instructor reads a quiz's statistics and an item's response analysis in Chromium: from the
results grid to the statistics, every attempt, an item's responses and a learner behind a count;
axe finds no serious problem, the histogram is an image with words, and both pages fit a phone's
width with the histogram's labels still readable."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from courses.models import Quiz
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.responses import response_submit
from teaching.models import CourseRole
from tests.browser.conftest import log_in
from tests.browser.test_accessibility import fit_a_phone, screenshot, serious_violations
from tests.factories import UserFactory

pytestmark = pytest.mark.browser

# Per learner: which of each question's choices they pick (by authored order), and what they
# type to each problem, in order ("x" is unreadable: an invalid response first).
SITTINGS = {"Grace": (0, ["x", "3"]), "Alan": (1, ["1"]), "Ada": (2, ["1e3"]), "Edsger": (0, [])}


@pytest.fixture
def sat(shipped_bank, learner_account):
    """The shipped exam sat by four learners; the account teaches its course."""
    exam = Quiz.objects.get(slug="attention-exam")
    CourseRole.objects.create(
        course=exam.lesson.course, user=learner_account, role=CourseRole.Role.INSTRUCTOR
    )
    for name, (pick, typed) in SITTINGS.items():
        attempt = attempt_start(user=UserFactory(first_name=name, last_name="Learner"), quiz=exam)
        for item in exam.items.select_related("question"):
            if item.question_id:
                choices = list(item.question.choices.order_by("order", "id"))
                chosen = choices[pick % len(choices)]
                response_submit(attempt=attempt, item=item, choice_ids=[chosen.pk])
            for text in typed if item.problem_id else ():
                response_submit(attempt=attempt, item=item, text=text)
        attempt_submit(attempt=attempt)
    return exam


def test_an_instructor_reads_the_statistics_and_a_response_analysis(
    page, live_server, sat, learner_account
):
    log_in(page, live_server, learner_account)
    page.goto(f"{live_server.url}/teach/quizzes/{sat.slug}/")
    page.get_by_role("link", name="Statistics and response analysis").click()
    heading = page.get_by_role("heading", level=1)
    expect(heading).to_contain_text(f"Statistics: {sat.title.split('$')[0]}")
    expect(heading.locator("math msqrt")).to_have_count(1)  # the title's formula, as MathML
    expect(page.locator('td[data-quiz="n"]')).to_have_text("4")
    chart = page.get_by_role("img", name="Histogram of the 4 attempts' scores", exact=False)
    expect(chart).to_be_visible()
    expect(page.locator("td[data-count]")).to_have_count(10)
    assert serious_violations(page) == [], "statistics"
    screenshot(page, "desktop-teach-statistics")

    page.get_by_label("Attempts", exact=True).select_option("all")
    page.get_by_role("button", name="Show").click()
    expect(page).to_have_url(f"{live_server.url}/teach/quizzes/{sat.slug}/statistics/?attempts=all")
    expect(page.locator("tr[data-item]")).to_have_count(sat.items.count())

    problem = sat.items.filter(problem__isnull=False).order_by("order", "id").first()
    # The item's first link is its response analysis (the second grades it by item).
    page.locator(f'tr[data-item="{problem.pk}"]').get_by_role("link").first.click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Responses to item")
    # A problem's values typed, most frequent first, each with what it was taken for.
    expect(page.locator("table.value-table tbody tr").first).to_be_visible()
    invalid = page.locator('tr[data-key="invalid"]')
    expect(invalid.locator("td[data-count]")).to_have_text("1")
    assert serious_violations(page) == [], "responses"
    invalid.locator("summary").click()
    screenshot(page, "desktop-teach-responses")
    invalid.get_by_role("link", name="Grace Learner").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Grace Learner: attempt 1")
    assert page.url.endswith(f"#item-{problem.pk}")


def test_the_statistics_pages_fit_a_phone_width(phone_page, live_server, sat, learner_account):
    log_in(phone_page, live_server, learner_account)
    question = sat.items.filter(question__isnull=False).order_by("order", "id").first()
    pages = {
        "responses": f"/teach/quizzes/{sat.slug}/items/{question.pk}/responses/?attempts=all",
        "statistics": f"/teach/quizzes/{sat.slug}/statistics/",
    }
    fit_a_phone(phone_page, live_server, pages, shots="phone-teach-")
    # The statistics page is open last. The SVG scales with the page: its smallest label must
    # stay readable.
    smallest = phone_page.evaluate(
        "() => Math.min(...[...document.querySelectorAll('svg.bar-chart text')]"
        ".map((text) => text.getBoundingClientRect().height))"
    )
    assert smallest >= 10, f"the histogram's labels are {smallest:.1f}px high at 375px"
