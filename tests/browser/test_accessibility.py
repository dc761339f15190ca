"""axe-core finds no serious or critical problem, and pages fit a phone's width."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from courses.models import Problem, Quiz
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.practice import practice_answer_submit, practice_variant_current
from grading.services.responses import response_submit
from tests.browser.conftest import log_in

pytestmark = pytest.mark.browser

LESSON = "/lessons/scaled-dot-product-attention/"


@pytest.fixture
def learner_pages(shipped_bank, learner_account):
    """Every kind of learner page, with content in it: a verdict, saved answers, a result."""
    problem = Problem.objects.get(slug="dot-variance")
    variant = practice_variant_current(user=learner_account, problem=problem)
    practice_answer_submit(user=learner_account, variant=variant, text="1")
    practice_quiz = Quiz.objects.get(slug="attention-practice")
    practice_attempt = attempt_start(user=learner_account, quiz=practice_quiz)
    for item in practice_quiz.items.all()[:3]:
        if item.question_id:
            choice = item.question.choices.filter(is_correct=False).first()
            response_submit(attempt=practice_attempt, item=item, choice_ids=[choice.pk])
        else:
            response_submit(attempt=practice_attempt, item=item, text="2")
    exam = Quiz.objects.get(slug="attention-exam")
    finished = attempt_start(user=learner_account, quiz=exam)
    for item in exam.items.filter(problem__isnull=False):
        response_submit(attempt=finished, item=item, text="3")
    attempt_submit(attempt=finished)
    open_exam = attempt_start(user=learner_account, quiz=exam)
    return {
        "home": "/",
        "lesson": LESSON,
        "practice": "/practice/dot-variance/",
        "practice-matrix": "/practice/softmax-jacobian/",
        "practice-quiz": f"/attempts/{practice_attempt.pk}/",
        "exam": f"/attempts/{open_exam.pk}/",
        "results": f"/attempts/{finished.pk}/results/",
        "quiz": "/quizzes/attention-exam/",
        "history": "/history/",
    }


def serious_violations(page) -> list[str]:
    # Judge the page once it has settled: its script gives wide formulas and solution steps a
    # tab stop at "load" and again when the math font has arrived (it widens them).
    page.wait_for_load_state("load")
    page.evaluate(
        "() => (document.fonts ? document.fonts.ready : Promise.resolve())"
        ".then(() => new Promise((done) => requestAnimationFrame(() => done())))"
    )
    results = Axe().run(page)
    return [
        f"{violation['id']} ({violation['impact']}): {violation['help']} — "
        + "; ".join(node["target"][0] for node in violation["nodes"][:3])
        for violation in results.response["violations"]
        if violation["impact"] in ("serious", "critical")
    ]


def screenshot(page, name: str) -> None:
    """Kept for people to look at when SCREENSHOT_DIR is set; the tests never compare pixels."""
    folder = os.environ.get("SCREENSHOT_DIR")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def test_axe_finds_no_serious_problem_on_learner_pages(
    page, live_server, learner_pages, learner_account
):
    for path in ("/accounts/signup/", "/accounts/login/", LESSON):
        page.goto(live_server.url + path)
        assert serious_violations(page) == [], path
    log_in(page, live_server, learner_account)
    for name, path in learner_pages.items():
        page.goto(live_server.url + path)
        assert serious_violations(page) == [], name
        screenshot(page, f"desktop-{name}")


def fit_a_phone(phone_page, live_server, pages: dict[str, str], *, shots: str) -> None:
    """Each page (name: path) scrolls nothing sideways at 375 px; a screenshot of each is kept
    as `{shots}{name}`."""
    for name, path in pages.items():
        phone_page.goto(live_server.url + path)
        overflow = phone_page.evaluate(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"{name} scrolls sideways by {overflow}px at 375px"
        screenshot(phone_page, f"{shots}{name}")


def test_pages_fit_a_phone_width(phone_page, live_server, learner_pages, learner_account):
    log_in(phone_page, live_server, learner_account)
    fit_a_phone(phone_page, live_server, learner_pages, shots="phone-")


def test_keyboard_reaches_the_answer_box_and_its_button_in_order(
    page, live_server, learner_pages, learner_account
):
    log_in(page, live_server, learner_account)
    page.goto(live_server.url + "/practice/dot-variance/")
    page.get_by_label("Your answer").focus()
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Check answer")).to_be_focused()
    page.keyboard.press("Shift+Tab")
    expect(page.get_by_label("Your answer")).to_be_focused()
    # The skip link is the first stop and leads to the main content.
    page.goto(live_server.url + "/")
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to content")).to_be_focused()
