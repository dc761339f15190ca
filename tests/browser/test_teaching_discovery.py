"""An instructor walks the problem pages in Chromium: from the course to facility by parameter, to
the new misconceptions of a formula problem, names a group as a mistake, and reads the course's and
a learner's misconception profiles; axe finds no serious problem, and every page fits a phone's
width, charts included."""

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
from tests.teaching.problem_records import discovered_build

pytestmark = pytest.mark.browser


@pytest.fixture
def taught(shipped_bank, learner_account):
    """The shipped exam answered by three learners (one picks wrong choices), and a formula
    problem whose wrong answers form a group; the account is an instructor of the course."""
    exam = Quiz.objects.get(slug="attention-exam")
    course = exam.lesson.course
    CourseRole.objects.create(course=course, user=learner_account, role=CourseRole.Role.INSTRUCTOR)
    for name, text, last in (("Grace", "3", False), ("Alan", "1", True), ("Ida", "2", True)):
        learner = UserFactory(first_name=name, last_name="Learner")
        attempt = attempt_start(user=learner, quiz=exam)
        for item in exam.items.all():
            if item.question_id:
                choices = item.question.choices.order_by("order")
                choice = choices.last() if last else choices.first()
                response_submit(attempt=attempt, item=item, choice_ids=[choice.pk])
            else:
                response_submit(attempt=attempt, item=item, text=text)
        attempt_submit(attempt=attempt)
    found = discovered_build(exam.lesson)
    return {"exam": exam, "course": course, "formula": found.problem}


def test_an_instructor_reads_by_parameter_names_a_mistake_and_reads_the_profiles(
    page, live_server, taught, learner_account
):
    course = taught["course"]
    log_in(page, live_server, learner_account)
    page.goto(f"{live_server.url}/teach/courses/{course.slug}/")
    page.get_by_role("link", name="Problems: facility by parameter").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Problems of")
    assert serious_violations(page) == [], "problems"

    page.get_by_role("link", name="By parameter: Spread of a dot product").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("facility by parameter")
    expect(page.get_by_role("img", name="Facility by d_k")).to_be_visible()
    expect(page.get_by_role("table", name="Facility by d_k", exact=False)).to_be_visible()
    assert serious_violations(page) == [], "by parameter"
    screenshot(page, "desktop-teach-parameters")

    page.goto(
        f"{live_server.url}/teach/courses/{course.slug}/problems/{taught['formula'].slug}/"
        "misconceptions/"
    )
    group = page.locator('[data-group="times-sqrt-d-k"]')
    expect(group.get_by_role("heading", level=2)).to_have_text("The answer × √d_k")
    assert serious_violations(page) == [], "new misconceptions"
    group.get_by_text("Name it as a mistake of this problem").click()
    assert serious_violations(page) == [], "new misconceptions, form open"
    group.get_by_label("New misconception: explanation").fill(
        "The variance grows as $d_k$: there is no further factor $\\sqrt{d_k}$."
    )
    group.get_by_role("button", name="Add the mistake").click()
    expect(page.get_by_role("status")).to_contain_text("now names the mistake times-sqrt-d-k")
    expect(group.get_by_text("The problem names this mistake")).to_be_visible()
    assert serious_violations(page) == [], "named"
    screenshot(page, "desktop-teach-new-misconceptions")

    page.goto(f"{live_server.url}/teach/courses/{course.slug}/")
    page.get_by_role("link", name="Misconception profile").click()
    expect(page.get_by_role("img", name="Learners who showed each misconception")).to_be_visible()
    assert serious_violations(page) == [], "misconception profile"
    screenshot(page, "desktop-teach-misconception-profile")
    page.get_by_role("link", name="Alan Learner").first.click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Misconceptions: Alan Learner")
    assert serious_violations(page) == [], "learner profile"

    # From the results grid too.
    page.goto(f"{live_server.url}/teach/quizzes/{taught['exam'].slug}/")
    page.get_by_role("link", name="Ida Learner").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Misconceptions: Ida Learner")


def test_the_problem_pages_fit_a_phone_width(phone_page, live_server, taught, learner_account):
    course = taught["course"]
    ida = taught["exam"].attempts.get(user__first_name="Ida").user
    log_in(phone_page, live_server, learner_account)
    base = f"/teach/courses/{course.slug}/"
    pages = {
        "problems": base + "problems/",
        "parameters": base + "problems/dot-std/parameters/",
        "new-misconceptions": base + f"problems/{taught['formula'].slug}/misconceptions/",
        "misconception-profile": base + "misconceptions/",
        "learner-profile": base + f"learners/{ida.pk}/",
    }
    fit_a_phone(phone_page, live_server, pages, shots="phone-teach-")
    for name, path in pages.items():
        phone_page.goto(live_server.url + path)
        charts = phone_page.locator("svg.bar-chart")
        for index in range(charts.count()):
            # Text drawn 14 units high stays readable: the chart is drawn at least 280 px wide.
            assert charts.nth(index).bounding_box()["width"] >= 280, name
