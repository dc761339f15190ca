"""A new learner's journeys through softgrade in a real browser."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from courses.models import Problem, Quiz
from grading import engine
from grading.models import Attempt, Response, Variant
from grading.services.practice import practice_variant_current
from tests.browser.conftest import PASSWORD, log_in

pytestmark = pytest.mark.browser

LESSON = "/lessons/scaled-dot-product-attention/"


def largest_probability(page) -> float:
    """The typical largest probability: the median over the explorer's queries."""
    return float(page.locator("#explorer-typical").inner_text())


def test_a_new_learner_signs_up_and_reads_the_lesson(page, live_server, shipped_bank):
    page.goto(live_server.url + "/")
    page.get_by_role("link", name="Sign up").first.click()
    page.get_by_label("Username").fill("grace")
    page.locator("#id_password1").fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_text("Welcome to softgrade, grace.")).to_be_visible()
    expect(page.get_by_role("button", name=re.compile("Log out"))).to_be_visible()

    page.get_by_role("link", name=re.compile("Scaled dot-product attention")).click()
    expect(page.locator("h1")).to_contain_text("Scaled dot-product attention")
    assert page.locator(".lesson-body math").count() > 20
    page.locator(".lesson-body a.term-link[href='#term-variance']").first.click()
    assert page.url.endswith("#term-variance")
    expect(page.locator("#term-variance")).to_be_in_viewport()
    expect(page.get_by_role("link", name="Variance of a dot product")).to_be_visible()
    # The quiz is linked twice: under the title ("On this page") and beside the lesson.
    expect(page.get_by_role("link", name=re.compile("Check: why we divide"))).to_have_count(2)
    expect(
        page.locator("#practise").get_by_role("link", name=re.compile("Check: why we divide"))
    ).to_be_visible()


def test_the_explorer_shows_saturation_without_scaling_and_none_with_it(
    page, live_server, shipped_bank
):
    page.goto(live_server.url + LESSON + "#explorer")
    slider = page.get_by_label(re.compile("Head width"))
    expect(slider).to_be_visible()
    slider.focus()
    page.keyboard.press("Home")
    expect(page.locator("#explorer-width-value")).to_have_text("1")
    at_one = largest_probability(page)
    for _ in range(3):
        page.keyboard.press("PageUp")
    middle = largest_probability(page)
    page.keyboard.press("End")
    expect(page.locator("#explorer-width-value")).to_have_text("1024")
    expect(slider).to_have_attribute("aria-valuetext", "dₖ = 1024")
    unscaled = largest_probability(page)
    assert at_one < unscaled
    assert middle <= unscaled
    assert unscaled > 0.95
    readout = page.locator("#explorer-readout")
    expect(readout).to_have_attribute("aria-live", "polite")
    expect(readout).to_contain_text("dₖ = 1024, raw scores")
    expect(readout).to_contain_text("saturated")

    page.keyboard.press("Tab")  # the switch comes next in the focus order
    expect(page.get_by_role("switch")).to_be_focused()
    page.keyboard.press("Space")
    expect(page.get_by_role("switch")).to_be_checked()
    scaled = largest_probability(page)
    assert scaled < 0.7
    expect(readout).to_contain_text("scores divided by √dₖ")
    expect(readout).to_contain_text("not saturated")
    expect(page.locator("#explorer-variance-theory")).to_have_text("1")

    # Scaled, the largest probability stays moderate at every width.
    for key in ("Home", "PageUp", "PageUp", "PageUp", "PageUp"):
        slider.focus()
        page.keyboard.press(key)
        assert largest_probability(page) < 0.8

    # Bars are sized through the CSSOM: their heights follow the probabilities.
    heights = page.locator(".bar-fill").evaluate_all("bars => bars.map(b => b.style.height)")
    assert len(heights) == 12
    assert all(h.endswith("%") for h in heights)
    total = sum(float(h.rstrip("%")) for h in heights)
    assert total == pytest.approx(100, abs=0.2)

    before = page.locator("#explorer-bars").get_attribute("aria-label")
    page.get_by_role("button", name="Draw new q and k").click()
    expect(page.locator("#explorer-draw-count")).to_have_text("Draw 2")
    assert page.locator("#explorer-bars").get_attribute("aria-label") != before


def test_the_explorer_updates_in_the_same_task_as_the_input(page, live_server, shipped_bank):
    """The readout changes before the input event handler returns: no timer, no frame delay."""
    page.goto(live_server.url + LESSON)
    changed = page.evaluate(
        """() => {
          const slider = document.getElementById("explorer-width");
          const out = document.getElementById("explorer-max");
          slider.value = "0";
          slider.dispatchEvent(new Event("input", {bubbles: true}));
          const before = out.textContent;
          slider.value = "10";
          slider.dispatchEvent(new Event("input", {bubbles: true}));
          return [before, out.textContent];
        }"""
    )
    assert changed[0] != changed[1]


def test_the_explorer_explains_itself_without_javascript(browser, live_server, shipped_bank):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(live_server.url + LESSON)
    expect(page.get_by_text("The explorer needs JavaScript")).to_be_visible()
    expect(page.locator("#explorer-width")).to_be_hidden()
    context.close()


def _variant_showing(page, learner, code: str) -> Variant:
    problem = Problem.objects.get(slug="dot-variance")
    while True:
        variant = practice_variant_current(user=learner, problem=problem)
        solution = engine.get_family(variant.family).solve(variant.givens)
        if code in solution.mistakes:
            return variant
        page.get_by_role("button", name="New variant").click()
        expect(page.get_by_text(f"Variant {variant.counter + 1}")).to_be_visible()


def test_practice_names_the_misconception_then_the_streak_grows(
    page, live_server, shipped_bank, learner_account
):
    log_in(page, live_server, learner_account)
    page.goto(live_server.url + "/practice/dot-variance/")
    expect(page.locator("math").first).to_be_visible()
    expect(page.get_by_text("One number or expression")).to_be_visible()
    variant = _variant_showing(page, learner_account, "std-for-variance")
    solution = engine.get_family(variant.family).solve(variant.givens)
    answer = page.get_by_label("Your answer")
    answer.fill(engine.format_answer(solution.mistakes["std-for-variance"]))
    page.get_by_role("button", name="Check answer").click()
    verdict = page.locator("#verdict")
    expect(verdict).to_contain_text("Not correct")
    expect(verdict).to_contain_text("Standard deviation given for a variance")
    expect(verdict).to_contain_text("within 1% of the correct value")
    expect(page.locator("#streak")).to_contain_text("0 in a row")

    page.get_by_role("button", name="New variant").click()
    expect(page.get_by_text(f"Variant {variant.counter + 1}")).to_be_visible()
    fresh = Variant.objects.filter(user=learner_account, attempt=None).order_by("-counter").first()
    right = engine.format_answer(engine.get_family(fresh.family).solve(fresh.givens).answer)
    page.get_by_label("Your answer").fill(right)
    page.get_by_role("button", name="Check answer").click()
    expect(page.locator("#verdict")).to_contain_text("Correct")
    expect(page.locator("#streak")).to_contain_text("1 in a row")

    # 9^9^9 is refused with the reader's message, and the try is not spent.
    page.get_by_role("button", name="Next variant").click()
    page.get_by_label("Your answer").fill("9^9^9")
    page.get_by_role("button", name="Check answer").click()
    expect(page.locator("#verdict")).to_contain_text(
        "We could not read that answer. It cost no try."
    )
    expect(page.locator("#verdict")).to_contain_text("too large")
    expect(page.get_by_text("not tried yet")).to_be_visible()
    expect(page.get_by_label("Your answer")).to_have_value("9^9^9")
    latest = Variant.objects.filter(user=learner_account, attempt=None).order_by("-counter").first()
    assert not Response.objects.filter(variant=latest, counts_as_try=True).exists()
    expect(page.locator("#streak")).to_contain_text("1 in a row")


def test_a_double_click_on_check_records_one_try(page, live_server, shipped_bank, learner_account):
    log_in(page, live_server, learner_account)
    page.goto(live_server.url + "/practice/dot-variance/")
    page.get_by_label("Your answer").fill("12345")
    page.get_by_role("button", name="Check answer").dblclick()
    expect(page.locator("#verdict")).to_contain_text("Not correct")
    assert Response.objects.filter(user=learner_account).count() == 1


def test_the_exam_runs_out_of_time_and_shows_the_graded_result(
    page, live_server, shipped_bank, learner_account
):
    log_in(page, live_server, learner_account)
    page.goto(live_server.url + "/quizzes/attention-exam/")
    page.get_by_role("button", name="Start attempt 1").click()
    expect(page.get_by_role("timer")).to_contain_text("Time left")
    attempt = Attempt.objects.get(user=learner_account)
    item = attempt.quiz.items.filter(problem__isnull=False).order_by("order").first()
    variant = Variant.objects.get(attempt=attempt, quiz_item=item)
    right = engine.format_answer(engine.get_family(variant.family).solve(variant.givens).answer)
    page.locator(f"#item-{item.pk}-answer").fill(right)
    page.get_by_role("button", name="Save answers").click()
    expect(page.get_by_role("status")).to_contain_text("Saved 1 answer at")
    expect(page.get_by_text("Not correct")).to_have_count(0)

    # A short limit: the deadline moves to a few seconds from now.
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() + timedelta(seconds=3))
    page.reload()
    page.locator(f"#item-{item.pk}-answer").fill("1")  # typed too late: never saved
    expect(page.get_by_role("heading", name=re.compile("Results"))).to_be_visible(timeout=15_000)
    expect(page.get_by_text("Time is up")).to_be_visible()
    expect(page.locator("#score")).to_contain_text(f"{item.points} of")
    expect(page.get_by_text("time ran out")).to_be_visible()
    expect(page.get_by_text("Correct answer").first).to_be_visible()
    attempt.refresh_from_db()
    assert attempt.late
    assert attempt.score == item.points


def test_practice_quiz_gives_feedback_per_item(page, live_server, shipped_bank, learner_account):
    log_in(page, live_server, learner_account)
    page.goto(live_server.url + "/quizzes/attention-practice/")
    page.get_by_role("button", name="Start attempt 1").click()
    quiz = Quiz.objects.get(slug="attention-practice")
    item = quiz.items.filter(question__isnull=False).order_by("order").first()
    wrong = item.question.choices.filter(is_correct=False).first()
    section = page.locator(f"#item-{item.pk}")
    section.locator(f"#item-{item.pk}-choice-{wrong.pk}").check()
    section.get_by_role("button", name="Check answer").click()
    expect(page.locator(f"#item-{item.pk} .verdict")).to_contain_text("Not correct")
    expect(page.locator(f"#item-{item.pk} .verdict")).to_contain_text(wrong.misconception.title)
    expect(page.locator(f"#item-{item.pk}")).to_contain_text("1 of 3 tries used")
    page.get_by_role("button", name="Submit attempt").click()
    page.get_by_role("dialog").get_by_role("button", name="Submit now").click()
    expect(page.get_by_role("heading", name=re.compile("Results"))).to_be_visible()


def test_the_watch_catches_policy_violations_and_other_hosts(
    page, watch, live_server, shipped_bank
):
    """Positive control for the fixtures: what they must catch on every page, they do catch."""
    page.goto(live_server.url + LESSON)
    page.evaluate(
        """() => document.body.insertAdjacentHTML("beforeend", '<p style="color: red">x</p>')"""
    )
    page.wait_for_function("() => window.__cspViolations.length > 0")
    assert "style-src" in " ".join(page.evaluate("() => window.__cspViolations"))
    with pytest.raises(PlaywrightError):
        page.goto("https://elsewhere.invalid/")

    def seen(text: str) -> bool:
        return any(text in problem for problem in watch.problems)

    for _ in range(50):  # console messages arrive on their own schedule
        if seen("Content Security Policy"):
            break
        page.wait_for_timeout(100)
    assert seen("Content Security Policy")
    assert seen("request to another host: https://elsewhere.invalid/")
    # Closed, and the list emptied, so the fixture's own check passes for this test.
    page.close()
    watch.problems.clear()
