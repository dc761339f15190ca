"""An instructor walks the pages under /teach/ in Chromium: from the courses they teach to a
quiz's results grid, its filters and one learner's attempt; axe finds no serious problem, and
every page fits a phone's width (the grid scrolls inside its own box)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from courses.models import Quiz
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.responses import response_submit
from teaching.models import CourseRole
from teaching.results import pages as results_pages
from tests.browser.conftest import log_in
from tests.browser.test_accessibility import screenshot, serious_violations
from tests.factories import UserFactory

pytestmark = pytest.mark.browser


@pytest.fixture
def taught(shipped_bank, learner_account):
    """The shipped exam with two learners' submitted attempts; the account is a teaching
    assistant of its course."""
    exam = Quiz.objects.get(slug="attention-exam")
    CourseRole.objects.create(
        course=exam.lesson.course, user=learner_account, role=CourseRole.Role.TEACHING_ASSISTANT
    )
    for name, text in (("Grace", "3"), ("Alan", "1")):
        learner = UserFactory(first_name=name, last_name="Learner")
        attempt = attempt_start(user=learner, quiz=exam)
        for item in exam.items.all():
            if item.question_id:
                choice = item.question.choices.order_by("order").first()
                response_submit(attempt=attempt, item=item, choice_ids=[choice.pk])
            else:
                response_submit(attempt=attempt, item=item, text=text)
        attempt_submit(attempt=attempt)
    return exam


def test_an_assistant_walks_from_their_courses_to_a_learner_s_attempt(
    page, live_server, taught, learner_account
):
    log_in(page, live_server, learner_account)
    # A teaching assistant finds the instructor pages in the site's navigation.
    page.goto(live_server.url + "/")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Teaching").click()
    expect(page).to_have_url(f"{live_server.url}/teach/")
    assert serious_violations(page) == [], "courses"
    page.get_by_role("link", name=taught.lesson.course.title).click()
    assert serious_violations(page) == [], "course"
    words = taught.title.split("$")[0]  # its formula is MathML on the page, never LaTeX
    page.get_by_role("link", name=words).click()
    heading = page.get_by_role("heading", level=1)
    expect(heading).to_contain_text(words)
    expect(heading.locator("math msqrt")).to_have_count(1)
    assert serious_violations(page) == [], "results"
    expect(page.locator("td[data-score]")).to_have_count(2)
    learner_view = page.get_by_role("link", name="Open as a learner sees it")
    expect(learner_view).to_have_attribute("href", f"/quizzes/{taught.slug}/")

    page.get_by_label("Attempts", exact=True).select_option("all")
    page.get_by_label("Group by LMS course").check()
    page.get_by_role("button", name="Show").click()
    expect(page).to_have_url(
        f"{live_server.url}/teach/quizzes/{taught.slug}/?attempts=all&group=lms&status=&q="
    )
    expect(page.get_by_role("heading", name="Not from an LMS", exact=False)).to_be_visible()
    screenshot(page, "desktop-teach-results")

    grace = page.get_by_role("row", name="Grace Learner", exact=False)
    grace.get_by_role("link", name="1 of", exact=False).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Grace Learner: attempt 1")
    expect(page.get_by_text("Correct answer:").first).to_be_visible()
    assert serious_violations(page) == [], "attempt"
    screenshot(page, "desktop-teach-attempt")


def test_an_assistant_pages_through_the_grid_and_finds_a_learner(
    page, live_server, taught, learner_account, monkeypatch
):
    monkeypatch.setattr(results_pages, "LEARNERS_PER_PAGE", 1)
    log_in(page, live_server, learner_account)
    page.goto(f"{live_server.url}/teach/quizzes/{taught.slug}/?attempts=first")
    expect(page.get_by_role("heading", name="Learners 1–1 of 2")).to_be_visible()
    expect(page.get_by_role("row", name="Alan Learner", exact=False)).to_be_visible()
    page.get_by_role("navigation", name="Pages of learners").first.get_by_role(
        "link", name="Next"
    ).click()
    expect(page).to_have_url(
        f"{live_server.url}/teach/quizzes/{taught.slug}/?attempts=first&page=2"
    )
    expect(page.get_by_role("heading", name="Learners 2–2 of 2")).to_be_visible()
    expect(page.get_by_role("row", name="Grace Learner", exact=False)).to_be_visible()
    assert serious_violations(page) == [], "results, page 2"

    page.get_by_label("Learner's name or user name").fill("alan")
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_role("heading", name="Learners 1–1 of 1")).to_be_visible()
    expect(page.get_by_role("row", name="Alan Learner", exact=False)).to_be_visible()
    expect(page.get_by_label("Attempts", exact=True)).to_have_value("first")
    assert serious_violations(page) == [], "results, searched"


def test_the_instructor_pages_fit_a_phone_width(
    phone_page, live_server, taught, learner_account, monkeypatch
):
    monkeypatch.setattr(results_pages, "LEARNERS_PER_PAGE", 1)  # the page links shown too
    log_in(phone_page, live_server, learner_account)
    attempt = taught.attempts.order_by("pk").first()
    for name, path in {
        "courses": "/teach/",
        "course": f"/teach/courses/{taught.lesson.course.slug}/",
        "results": f"/teach/quizzes/{taught.slug}/?attempts=all&group=lms",
        "attempt": f"/teach/attempts/{attempt.pk}/",
    }.items():
        phone_page.goto(live_server.url + path)
        overflow = phone_page.evaluate(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"{name} scrolls sideways by {overflow}px at 375px"
        screenshot(phone_page, f"phone-teach-{name}")
