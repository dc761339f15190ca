"""Authoring in Chromium (issue 23, authoring friction): the admin's start page, the formula
form's live preview marking the fields it complains about, a wrong choice's "Right: …" feedback
flagged, the accommodation form's learner search, and the quiz items table at 1280 px; axe finds
no serious problem on these pages at 1280 px, nor on the start page and accommodations at 375 px.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone
from playwright.sync_api import expect

from courses.models import Choice, Lesson, Misconception, Problem, Question, Quiz, QuizItem
from grading.models import Attempt, QuizAccommodation
from teaching.models import CourseRole
from tests.browser.conftest import PASSWORD
from tests.browser.test_accessibility import serious_violations
from tests.browser.test_admin_questions import admin_log_in
from tests.factories import UserFactory

pytestmark = pytest.mark.browser

PARAMS = {
    "variables": {"d_k": {"choices": [16, 64]}, "s": {"min": 0.5, "max": 2, "step": 0.5}},
    "answer": "d_k * s^2",
    "mistakes": {"std-for-variance": "sqrt(d_k) * s"},
    "prompt": "Components have standard deviation {@s@} and $d_k = {@d_k@}$. Variance?",
}


@pytest.fixture
def author(shipped_bank, transactional_db):
    """An instructor of the shipped course, staff with the authoring permissions (no superuser:
    the start page shows their own course only)."""
    user = UserFactory(username="ines", first_name="Ines", last_name="Author", is_staff=True)
    user.set_password(PASSWORD)
    user.save()
    user.user_permissions.add(*Permission.objects.filter(content_type__app_label="courses"))
    course = Quiz.objects.get(slug="attention-exam").lesson.course
    CourseRole.objects.create(course=course, user=user, role=CourseRole.Role.INSTRUCTOR)
    return user


def no_sideways_scroll(page) -> int:
    return page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")


def test_the_start_page_leads_to_the_course_and_to_writing(page, phone_page, live_server, author):
    course = Quiz.objects.get(slug="attention-exam").lesson.course
    admin_log_in(page, live_server, author)
    start = page.locator("#start")
    expect(start.get_by_role("heading", name="Your courses")).to_be_visible()
    expect(start.locator(f"[data-course='{course.slug}']")).to_contain_text("(Instructor)")
    for label in ("Add a problem", "Add a question", "Add a quiz", "Import Moodle XML"):
        expect(start.get_by_role("link", name=label)).to_be_visible()
    expect(page.locator("#content-main .app-courses")).to_be_visible()  # the models stay
    assert serious_violations(page) == [], "start page at 1280 px"
    assert no_sideways_scroll(page) <= 0
    start.get_by_role("link", name="Quizzes and results").first.click()
    page.wait_for_url(f"{live_server.url}/teach/courses/{course.slug}/")

    admin_log_in(phone_page, live_server, author)
    expect(phone_page.locator("#start")).to_contain_text("Your courses")
    assert serious_violations(phone_page) == [], "start page at 375 px"
    assert no_sideways_scroll(phone_page) <= 0


def test_the_live_preview_marks_a_field_and_clears_it_when_fixed(page, live_server, author):
    problem = Problem.objects.create(
        lesson=Lesson.objects.get(slug="scaled-dot-product-attention"),
        title="Variance",
        slug="variance-typed",
        family="formula",
        params=PARAMS,
    )
    admin_log_in(page, live_server, author)
    page.goto(f"{live_server.url}/admin/courses/problem/{problem.pk}/formula/")
    answer = page.locator("#id_answer")
    answer.fill("d_kk * s^2")
    expect(answer).to_have_attribute("aria-invalid", "true")
    flag = page.locator("#id_answer_flag")
    expect(flag).to_be_visible()
    expect(answer).to_have_attribute("aria-describedby", "id_answer_helptext id_answer_flag")
    expect(page.locator("#formula-preview [data-field='id_answer']")).to_have_count(1)
    assert serious_violations(page) == [], "formula editor with a marked field"
    answer.fill("2 * d_k * s^2")
    expect(page.locator("#formula-preview .formula-answer").first).to_be_visible()
    expect(flag).to_have_count(0)
    expect(answer).not_to_have_attribute("aria-invalid", "true")
    expect(answer).to_have_attribute("aria-describedby", "id_answer_helptext")


def test_a_choice_made_wrong_flags_its_right_feedback(page, live_server, author):
    question = Question.objects.get(slug="q-variance-of-dot")
    right = question.choices.get(is_correct=True)
    Choice.objects.filter(pk=right.pk).update(feedback="Right: the variances add up.")
    admin_log_in(page, live_server, author)
    page.goto(f"{live_server.url}/admin/courses/question/{question.pk}/change/")
    rows = list(question.choices.order_by("order", "pk"))
    number = rows.index(right)
    box = page.locator(f"#id_choices-{number}-is_correct")
    feedback = page.locator(f"#id_choices-{number}-feedback")
    box.uncheck()
    flag = page.locator(f"#id_choices-{number}-feedback-flag")
    expect(flag).to_contain_text("its feedback still tells the learner they are right")
    expect(feedback).to_have_attribute("aria-invalid", "true")
    described = feedback.get_attribute("aria-describedby").split()
    assert f"id_choices-{number}-feedback-flag" in described
    assert serious_violations(page) == [], "question page with a flagged choice"
    box.check()
    expect(flag).to_have_count(0)
    box.uncheck()
    expect(flag).to_be_visible()
    feedback.fill("Each term adds its own variance.")
    expect(flag).to_have_count(0)
    expect(feedback).not_to_have_attribute("aria-invalid", "true")


def test_an_accommodation_s_learner_is_found_by_name(page, phone_page, live_server, watch, author):
    exam = Quiz.objects.get(slug="attention-exam")
    course = exam.lesson.course
    ada = UserFactory(username="ada.l", first_name="Ada", last_name="Lovelace")
    outsider = UserFactory(username="adam.out", first_name="Adam", last_name="Elsewhere")
    Attempt.objects.create(
        user=ada,
        quiz=Quiz.objects.get(slug="attention-practice"),
        number=1,
        status=Attempt.Status.SUBMITTED,
        submitted_at=timezone.now(),
    )
    url = f"{live_server.url}/teach/courses/{course.slug}/accommodations/"
    watch.expect_refusal(url)  # the form refused answers 400
    admin_log_in(page, live_server, author)
    page.goto(url)
    field = page.get_by_label("Learner", exact=True)
    field.fill("LOVE")
    options = page.locator("#learner-options option")
    expect(options).to_have_count(1)
    expect(options.first).to_have_attribute("value", "Ada Lovelace (ada.l)")
    field.fill("adam")  # not a learner of this course: nothing to pick
    expect(page.locator("#learner-options")).to_have_attribute("data-filled", "0")
    page.get_by_label("Quiz").select_option(label=str(exam))
    page.get_by_label("Extra minutes").fill("15")
    page.get_by_role("button", name="Save the accommodation").click()
    expect(page.locator(".errorlist")).to_contain_text("No learner of this course matches")
    assert serious_violations(page) == [], "accommodations with a learner refused"
    page.get_by_label("Learner", exact=True).fill("Ada Lovelace (ada.l)")
    page.get_by_label("Extra minutes").fill("15")
    page.get_by_role("button", name="Save the accommodation").click()
    expect(page.get_by_role("status")).to_contain_text("Accommodation saved for ada.l")
    assert QuizAccommodation.objects.get().learner == ada
    assert not QuizAccommodation.objects.filter(learner=outsider).exists()

    # The search form, for a browser without the script, on a phone.
    admin_log_in(phone_page, live_server, author)
    phone_page.goto(f"{live_server.url}/teach/courses/{course.slug}/accommodations/")
    phone_page.get_by_role("searchbox", name="Find a learner").fill("ada")
    phone_page.get_by_role("button", name="Search").click()
    found = phone_page.locator("#learner-found a")
    expect(found).to_have_count(1)
    found.click()
    expect(phone_page.get_by_label("Learner", exact=True)).to_have_value("ada.l")
    assert serious_violations(phone_page) == [], "accommodations search at 375 px"
    assert no_sideways_scroll(phone_page) <= 0


def test_the_quiz_items_table_fits_1280_and_new_rows_count_up(page, live_server, author):
    quiz = Quiz.objects.get(slug="attention-exam")
    last = QuizItem.objects.filter(quiz=quiz).order_by("-order").first().order
    admin_log_in(page, live_server, author)
    page.goto(f"{live_server.url}/admin/courses/quiz/{quiz.pk}/change/")
    expect(page.locator("#items-group")).to_be_visible()
    assert no_sideways_scroll(page) <= 0, "the quiz page scrolls sideways at 1280 px"
    table = page.locator("#items-group table").bounding_box()
    assert table["x"] + table["width"] <= 1280, table
    add = page.locator("#items-group .add-row a")
    add.click()
    add.click()
    new = page.locator("#items-group tr.dynamic-items:not(.has_original) input[name$='-order']")
    expect(new).to_have_count(2)
    assert [new.nth(0).input_value(), new.nth(1).input_value()] == [str(last + 1), str(last + 2)]
    assert no_sideways_scroll(page) <= 0, "rows added make the page scroll sideways"
    assert serious_violations(page) == [], "quiz page with its items"
    assert Misconception.objects.exists()
