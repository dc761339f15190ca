"""An instructor edits a formula problem in the admin and the preview shows the new numbers:
refreshed by the script as they type, and by the Preview button without the script."""

from __future__ import annotations

import pytest

from courses.models import Lesson, Misconception, Problem
from grading import engine
from tests.browser.conftest import PASSWORD, log_in

pytestmark = pytest.mark.django_db(transaction=True)

PARAMS = {
    "variables": {"d_k": {"choices": [16, 64]}, "s": {"min": 0.5, "max": 2, "step": 0.5}},
    "answer": "d_k * s^2",
    "mistakes": {"std-for-variance": "sqrt(d_k) * s"},
    "prompt": "Components have standard deviation {@s@} and $d_k = {@d_k@}$. Variance?",
}


@pytest.fixture
def instructor(transactional_db):
    from tests.factories import CourseFactory, InstructorFactory, LessonFactory

    user = InstructorFactory(username="grace")
    user.set_password(PASSWORD)
    user.save()
    lesson = LessonFactory(course=CourseFactory())
    Misconception.objects.create(
        code="std-for-variance", lesson=lesson, title="Std for variance", explanation="Why."
    )
    return user


@pytest.fixture
def problem(instructor):
    return Problem.objects.create(
        lesson=Lesson.objects.get(),
        title="Variance",
        slug="variance",
        family="formula",
        params=PARAMS,
    )


def answers(params: dict) -> list[str]:
    family = engine.get_family(engine.FORMULA_FAMILY)
    return [engine.format_answer(engine.make_variant(family, params, s).answer) for s in (1, 2, 3)]


def shown_answers(page) -> list[str]:
    return page.locator("#formula-preview .formula-answer").all_inner_texts()


def test_the_preview_refreshes_as_the_instructor_types(page, live_server, instructor, problem):
    log_in(page, live_server, instructor)
    page.goto(f"{live_server.url}/admin/courses/problem/{problem.pk}/formula/")
    assert shown_answers(page) == answers(PARAMS)
    assert page.locator("#formula-preview math").count() == 3  # math as learners see it
    page.get_by_label("Answer").fill("10 * d_k * s^2")
    edited = dict(PARAMS, answer="10 * d_k * s^2")
    page.wait_for_function(
        "expected => [...document.querySelectorAll('#formula-preview .formula-answer')]"
        ".map(e => e.textContent).join('|') === expected",
        arg="|".join(answers(edited)),
    )
    page.get_by_label("Answer").fill("10 * d_kk")
    page.wait_for_selector("#formula-preview .errornote")
    problem.refresh_from_db()
    assert problem.params == PARAMS  # the preview saves nothing


def test_the_preview_button_works_without_the_script(browser, live_server, instructor, problem):
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1280, "height": 900}
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    try:
        log_in(page, live_server, instructor)
        page.goto(f"{live_server.url}/admin/courses/problem/{problem.pk}/formula/")
        page.get_by_label("Answer").fill("3 * d_k * s^2")
        page.get_by_role("button", name="Preview").click()
        page.wait_for_load_state()
        assert shown_answers(page) == answers(dict(PARAMS, answer="3 * d_k * s^2"))
        page.get_by_label("Answer").fill("3 * d_k * s^2")
        page.locator("#id_seed").fill("4242")
        page.get_by_role("button", name="Preview").click()
        page.wait_for_load_state()
        assert page.locator(".formula-variant h3").all_inner_texts() == ["Seed 4242"]
        problem.refresh_from_db()
        assert problem.params == PARAMS
        page.get_by_role("button", name="Save").click()
        page.wait_for_load_state()
        problem.refresh_from_db()
        assert problem.params["answer"] == "3 * d_k * s^2"
    finally:
        context.close()


def test_a_property_check_is_tried_on_the_right_answers_as_the_instructor_types(
    page, live_server, instructor, problem
):
    log_in(page, live_server, instructor)
    page.goto(f"{live_server.url}/admin/courses/problem/{problem.pk}/formula/")
    check = page.locator("#id_properties-0-check")
    page.locator("#id_properties-0-feedback").fill("A variance is never negative.")
    check.fill("x >= 0")
    page.wait_for_function(
        "() => document.querySelectorAll('#formula-preview .formula-checks li').length === 3"
    )
    assert page.locator("#formula-preview .formula-checks li.errors").count() == 0
    assert check.get_attribute("aria-invalid") is None
    # A check the right answer fails: the field is marked and says why, nothing is saved.
    check.fill("x <= 0")
    page.wait_for_selector("#id_properties-0-check[aria-invalid='true']")
    described = check.get_attribute("aria-describedby").split()
    # Its help text and, last, the message the preview gave it.
    assert page.locator(f"#{described[0]}").inner_text().startswith("What every right answer")
    assert "seed" in page.locator(f"#{described[-1]}").inner_text().lower()
    problem.refresh_from_db()
    assert "properties" not in problem.params
