"""Every time a person reads or types is in their own zone, the zone named, in Chromium living in
Pacific/Auckland: the browser tells the server its zone at the first page (the sign-in), and
from then on the server writes every page in it; a zone chosen on "Your settings" wins over the
browser's. The learner's quiz, attempt and result, the instructor's attempt review with its
tries, the accommodations (typed and listed), the admin's opening time; axe finds nothing
serious at 1280 and 375 px."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from accounts.models import Profile
from courses.models import Quiz
from grading.models import Attempt, QuizAccommodation
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.responses import response_submit
from teaching.models import CourseRole
from tests.browser.conftest import BROWSER_TIME_ZONE, PASSWORD, log_in
from tests.browser.test_accessibility import fit_a_phone, serious_violations
from tests.factories import InstructorFactory, UserFactory

pytestmark = pytest.mark.browser

AUCKLAND = ZoneInfo(BROWSER_TIME_ZONE)
CLOSES = datetime(2027, 1, 20, 12, 0, tzinfo=UTC)  # 21 Jan 2027, 01:00 NZDT


def in_zone(moment: datetime, zone: ZoneInfo = AUCKLAND, *, seconds: bool = False) -> str:
    local = moment.astimezone(zone)
    return f"{local:%-d %b %Y, %H:%M{':%S' if seconds else ''}} {local.tzname()}"


@pytest.fixture
def exam(shipped_bank):
    quiz = Quiz.objects.get(slug="attention-exam")
    Quiz.objects.filter(pk=quiz.pk).update(closes_at=CLOSES)
    quiz.refresh_from_db()
    return quiz


def answer_and_submit(attempt: Attempt) -> None:
    for item in attempt.quiz.items.all():
        if item.question_id:
            choice = item.question.choices.order_by("order").first()
            response_submit(attempt=attempt, item=item, choice_ids=[choice.pk])
        else:
            response_submit(attempt=attempt, item=item, text="3")
    attempt_submit(attempt=attempt)


def test_a_learner_reads_the_quiz_the_attempt_and_the_result_in_auckland_time(
    page, live_server, exam, learner_account
):
    log_in(page, live_server, learner_account)
    page.goto(f"{live_server.url}/quizzes/{exam.slug}/")
    closes = page.locator('dd time[datetime="2027-01-20T12:00:00Z"]')
    expect(closes).to_have_text("21 Jan 2027, 01:00 NZDT")
    expect(closes).to_have_attribute("title", "Pacific/Auckland")
    assert serious_violations(page) == [], "quiz page"

    page.get_by_role("button", name="Start attempt 1").click()
    attempt = Attempt.objects.get(user=learner_account, quiz=exam)
    local = attempt.deadline.astimezone(AUCKLAND)
    expect(page.locator(".countdown time")).to_have_text(f"{local:%H:%M} {local.tzname()}")
    assert serious_violations(page) == [], "attempt page"

    answer_and_submit(attempt)
    attempt.refresh_from_db()
    page.goto(f"{live_server.url}/attempts/{attempt.pk}/results/")
    expect(page.get_by_text("Submitted ", exact=False).first).to_contain_text(
        in_zone(attempt.submitted_at)
    )
    page.goto(f"{live_server.url}/history/")
    expect(page.locator("td time").first).to_have_text(in_zone(attempt.started_at))
    assert serious_violations(page) == [], "history"


def test_an_instructor_reads_tries_and_accommodations_in_auckland_time_and_types_a_due_date(
    page, live_server, exam, learner_account
):
    course = exam.lesson.course
    CourseRole.objects.create(course=course, user=learner_account, role=CourseRole.Role.INSTRUCTOR)
    grace = UserFactory(username="grace", first_name="Grace", last_name="Learner")
    grace.set_password(PASSWORD)
    grace.save()

    attempt = attempt_start(user=grace, quiz=exam)
    answer_and_submit(attempt)
    attempt.refresh_from_db()
    first_try = attempt.responses.order_by("created_at").first()

    log_in(page, live_server, learner_account)
    page.goto(f"{live_server.url}/teach/attempts/{attempt.pk}/")
    expect(page.get_by_role("definition").filter(has_text="NZDT").first).to_contain_text(
        in_zone(attempt.started_at)
    )
    tries = page.locator(".tries-table tbody tr td:first-child time")
    expect(tries.first).to_have_text(in_zone(first_try.created_at, seconds=True))
    assert serious_violations(page) == [], "attempt review"

    page.goto(f"{live_server.url}/teach/courses/{course.slug}/accommodations/")
    page.get_by_label("Quiz").select_option(label=str(exam))
    page.get_by_label("Learner", exact=True).fill("grace")
    due = page.get_by_label("Own due date (Pacific/Auckland)")
    due.fill("2027-01-25T09:00")
    page.get_by_role("button", name="Save the accommodation").click()
    expect(page.get_by_role("status")).to_contain_text("Accommodation saved for grace")
    saved = QuizAccommodation.objects.get()
    # 09:00 on 25 January in Auckland (NZDT, UTC+13) is 20:00 the day before in UTC.
    assert saved.closes_at == datetime(2027, 1, 24, 20, 0, tzinfo=UTC)
    row = page.locator("#accommodations tbody tr")
    expect(row).to_contain_text("25 Jan 2027, 09:00 NZDT")
    expect(row).to_contain_text(in_zone(saved.updated_at))
    assert serious_violations(page) == [], "accommodations"
    page.goto(f"{live_server.url}/teach/accommodations/{saved.pk}/")
    expect(page.get_by_label("Own due date (Pacific/Auckland)")).to_have_value("2027-01-25T09:00")


def test_a_zone_chosen_in_the_settings_changes_every_page_and_following_the_browser_returns(
    page, live_server, exam, learner_account
):
    log_in(page, live_server, learner_account)
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Settings").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your settings")
    expect(page.locator("[data-time-zone]")).to_have_text("Pacific/Auckland")
    select = page.get_by_label("Time zone")
    expect(select.locator("option:checked")).to_have_text(
        "Follow my browser (now Pacific/Auckland)"
    )
    assert serious_violations(page) == [], "settings"

    select.select_option("America/New_York")
    page.get_by_role("button", name="Save settings").click()
    expect(page.get_by_role("status")).to_contain_text("Times are now shown in America/New_York.")
    assert Profile.objects.get(user=learner_account).time_zone == "America/New_York"
    page.goto(f"{live_server.url}/quizzes/{exam.slug}/")
    expect(page.locator('dd time[datetime="2027-01-20T12:00:00Z"]')).to_have_text(
        "20 Jan 2027, 07:00 EST"
    )

    page.goto(f"{live_server.url}/account/")
    page.get_by_label("Time zone").select_option("")
    page.get_by_role("button", name="Save settings").click()
    expect(page.get_by_role("status")).to_contain_text("follow your browser")
    page.goto(f"{live_server.url}/quizzes/{exam.slug}/")
    expect(page.locator('dd time[datetime="2027-01-20T12:00:00Z"]')).to_have_text(
        "21 Jan 2027, 01:00 NZDT"
    )


def test_an_opening_time_typed_in_the_admin_is_the_auckland_moment_and_reads_back(
    page, live_server, exam
):
    author = InstructorFactory(username="irene")
    author.set_password(PASSWORD)
    author.save()
    log_in(page, live_server, author)
    page.goto(f"{live_server.url}/admin/courses/quiz/{exam.pk}/change/")
    expect(page.locator("#admin-time-zone")).to_have_text("Times in Pacific/Auckland")
    page.locator("#id_opens_at_0").fill("2027-01-10")
    expect(page.get_by_label("Time (Pacific/Auckland):").first).to_be_visible()
    page.locator("#id_opens_at_1").fill("09:00:00")
    # The browser and the page agree on the zone: Django's "hours ahead of server time" note
    # would say otherwise.
    expect(page.locator(".timezonewarning")).to_have_count(0)
    page.locator("input[name='_continue']").click()
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    exam.refresh_from_db()
    # 09:00 on 10 January in Auckland is 20:00 on the 9th in UTC.
    assert exam.opens_at == datetime(2027, 1, 9, 20, 0, tzinfo=UTC)
    expect(page.locator("#id_opens_at_0")).to_have_value("2027-01-10")
    expect(page.locator("#id_opens_at_1")).to_have_value("09:00:00")


def test_the_settings_and_the_quiz_page_fit_a_phone_and_axe_finds_nothing_serious(
    phone_page, live_server, exam, learner_account
):
    log_in(phone_page, live_server, learner_account)
    pages = {"settings": "/account/", "quiz-in-zone": f"/quizzes/{exam.slug}/"}
    fit_a_phone(phone_page, live_server, pages, shots="phone-time-")
    for name, path in pages.items():
        phone_page.goto(live_server.url + path)
        assert serious_violations(phone_page) == [], name
    expect(phone_page.locator('dd time[datetime="2027-01-20T12:00:00Z"]')).to_have_text(
        "21 Jan 2027, 01:00 NZDT"
    )
