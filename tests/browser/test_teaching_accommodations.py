"""An instructor gives a learner extra time on the accommodations page in Chromium, and the
learner then reads it in the quiz's rules; axe finds no serious problem on either page."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from courses.models import Quiz
from grading.models import QuizAccommodation
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from teaching.models import CourseRole
from tests.browser.conftest import PASSWORD, log_in
from tests.browser.test_accessibility import fit_a_phone, serious_violations
from tests.factories import UserFactory

pytestmark = pytest.mark.browser


def test_extra_time_set_by_the_instructor_shows_in_the_learner_rules(
    page, live_server, shipped_bank, learner_account
):
    exam = Quiz.objects.get(slug="attention-exam")  # 20 minutes, 2 attempts
    course = exam.lesson.course
    CourseRole.objects.create(course=course, user=learner_account, role=CourseRole.Role.INSTRUCTOR)
    grace = UserFactory(username="grace", first_name="Grace")
    grace.set_password(PASSWORD)
    grace.save()
    # A learner of the course: she has practised (only the course's learners may be picked).
    attempt_submit(
        attempt=attempt_start(user=grace, quiz=Quiz.objects.get(slug="attention-practice"))
    )

    log_in(page, live_server, learner_account)
    page.goto(f"{live_server.url}/teach/courses/{course.slug}/")
    page.get_by_role("link", name="Accommodations", exact=False).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Accommodations")
    page.get_by_label("Quiz").select_option(label=str(exam))
    page.get_by_label("Learner", exact=True).fill("grace")
    page.get_by_label("Extra minutes").fill("30")
    page.get_by_label("Reason").fill("Extra time on the learning-support letter.")
    page.get_by_role("button", name="Save the accommodation").click()
    expect(page.get_by_role("status")).to_contain_text("Accommodation saved for grace")
    row = page.locator("#accommodations tbody tr")
    expect(row).to_have_count(1)
    expect(row.locator("[data-extra-minutes]")).to_have_text("30")
    assert serious_violations(page) == [], "accommodations page"
    saved = QuizAccommodation.objects.get()
    assert (saved.learner, saved.extra_minutes, saved.set_by) == (grace, 30, learner_account)

    page.context.clear_cookies()
    log_in(page, live_server, grace)
    page.goto(f"{live_server.url}/quizzes/{exam.slug}/")
    rules = page.locator("[data-accommodation]")
    expect(rules).to_contain_text("You have 30 extra minutes: 50 minutes in all.")
    expect(page.get_by_text("50 minutes, from when you start an attempt")).to_be_visible()
    assert serious_violations(page) == [], "quiz page with an accommodation"


def test_the_accommodation_pages_fit_a_phone_width(
    phone_page, live_server, shipped_bank, learner_account
):
    exam = Quiz.objects.get(slug="attention-exam")
    course = exam.lesson.course
    CourseRole.objects.create(course=course, user=learner_account, role=CourseRole.Role.INSTRUCTOR)
    learner = UserFactory(username="grace", first_name="Grace", last_name="Learner")
    accommodation = QuizAccommodation.objects.create(
        quiz=exam,
        learner=learner,
        extra_minutes=30,
        extra_attempts=1,
        closes_at=timezone.now() + timedelta(days=7),
        reason="Extra time and a later due date on the learning-support letter.",
        set_by=learner_account,
        set_by_username=learner_account.username,
    )
    log_in(phone_page, live_server, learner_account)
    pages = {
        "accommodations": f"/teach/courses/{course.slug}/accommodations/",
        "accommodation": f"/teach/accommodations/{accommodation.pk}/",
    }
    fit_a_phone(phone_page, live_server, pages, shots="phone-teach-")
