"""Math looks like math in Chromium: the vendored OpenType MATH font is loaded and used, and no
learner page (worked solutions and submit confirmations included) shows LaTeX source."""

from __future__ import annotations

import pytest

from tests.browser.test_accessibility import serious_violations

pytestmark = pytest.mark.browser

LESSON = "/lessons/scaled-dot-product-attention/"
MATH_FONT = "Noto Sans Math"


def test_the_lesson_loads_the_math_font_and_every_formula_uses_it(page, live_server, shipped_bank):
    fonts_seen: list[str] = []
    page.on(
        "response",
        lambda response: fonts_seen.append(response.url) if ".woff2" in response.url else None,
    )
    page.goto(live_server.url + LESSON)
    page.evaluate("() => document.fonts.ready")
    faces = page.evaluate(
        """() => [...document.fonts].map((face) => ({
            family: face.family.replace(/"/g, ""), status: face.status }))"""
    )
    assert {"family": MATH_FONT, "status": "loaded"} in faces, faces
    assert page.evaluate(f"() => document.fonts.check('16px \"{MATH_FONT}\"', '∑√𝑥')")
    # Served by softgrade itself (the page watch fails any other host), as a woff2 file.
    assert any(url.startswith(live_server.url) for url in fonts_seen), fonts_seen

    families = page.evaluate(
        "() => [...document.querySelectorAll('math')].map((m) => getComputedStyle(m).fontFamily)"
    )
    assert len(families) > 20
    assert all(family.split(",")[0].strip().strip('"') == MATH_FONT for family in families), set(
        families
    )


def test_at_phone_width_the_math_font_is_used_and_formulas_stay_in_the_page(
    phone_page, live_server, shipped_bank
):
    phone_page.goto(live_server.url + LESSON)
    phone_page.evaluate("() => document.fonts.ready")
    assert phone_page.evaluate(f"() => document.fonts.check('16px \"{MATH_FONT}\"', '∑√𝑥')")
    family = phone_page.evaluate(
        "() => getComputedStyle(document.querySelector('h1 math')).fontFamily"
    )
    assert family.split(",")[0].strip().strip('"') == MATH_FONT
    # A wide display formula scrolls inside its own box, never the page sideways.
    overflow = phone_page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0


# The horizontal gap, in em of the formula's font size, between two elements of a formula.
GAP_IN_EM = """([leftSelector, leftText, rightText]) => {
  const gaps = [];
  for (const left of document.querySelectorAll(leftSelector)) {
    if (leftText !== null && left.textContent !== leftText) continue;
    let right = left.nextElementSibling;
    while (right && right.getBoundingClientRect().width === 0) right = right.nextElementSibling;
    if (!right || !right.textContent.startsWith(rightText)) continue;
    const size = parseFloat(getComputedStyle(left.closest("math")).fontSize);
    gaps.push((right.getBoundingClientRect().left - left.getBoundingClientRect().right) / size);
  }
  return gaps;
}"""


def test_function_names_and_unary_minus_sit_close_as_in_tex(page, live_server, shipped_bank):
    from courses.models import Lesson

    lesson = Lesson.objects.get(slug="scaled-dot-product-attention")
    lesson.body += "\n\nTwo checks: $(-0.6, 1)$ and $a - b$.\n"
    lesson.save()
    page.goto(live_server.url + LESSON)
    page.evaluate("() => document.fonts.ready")

    after_var = page.evaluate(GAP_IN_EM, ["mi, mo", "Var", "("])
    assert after_var, "no function name followed by a bracket on the lesson"
    # latex2mathml's <mo>Var</mo> left a thick space (0.28 em) before the bracket.
    assert max(after_var) < 0.1, after_var

    after_bracket = page.evaluate(GAP_IN_EM, ["mo", "(", "−"])
    after_minus = page.evaluate(GAP_IN_EM, ["mo", "−", "0.6"])
    assert after_minus
    assert max(after_minus) < 0.1, after_minus
    assert after_bracket
    assert max(after_bracket) < 0.1, after_bracket
    # Subtraction keeps its medium space on both sides.
    subtraction = page.evaluate(GAP_IN_EM, ["mi", "a", "−"])
    assert subtraction
    assert min(subtraction) > 0.15, subtraction


# Every text node a learner can see, outside code: a "$", a "\command" or a "d_k" there is
# LaTeX that reached the page without the renderer. The page's <title> is checked too.
RAW_LATEX = r"""() => {
  const raw = /\$|\\[a-zA-Z]+|[A-Za-z]_[A-Za-z0-9{]/;
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const element = walker.currentNode.parentElement;
    if (!element || element.closest("code, pre, script, style, textarea")) continue;
    if (!element.checkVisibility()) continue;
    const text = walker.currentNode.textContent;
    if (raw.test(text)) found.push(text.trim().slice(0, 160));
  }
  if (raw.test(document.title)) found.push("<title> " + document.title);
  return found;
}"""


def _scan(page, where: str, seen: dict[str, list[str]]) -> None:
    # Folded content (a released worked solution in a <details>) is scanned unfolded.
    page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    found = page.evaluate(RAW_LATEX)
    if found:
        seen[where] = found


def _answer_practice_problem(page, live_server, learner, problem, seen, axe=None) -> None:
    """Wrong and unreadable answers, giving up to see the worked solution, then a right answer
    on the next variant, with a scan after each; axe checks the solution's page when `axe` is
    given (what it finds goes there)."""
    import numpy as np
    from playwright.sync_api import expect

    from grading import engine
    from grading.models import Variant

    def answer(variant, wrong: bool) -> str:
        family = engine.get_family(variant.family)
        value = np.asarray(family.solve(variant.givens, variant.grading_key).answer, dtype=float)
        return engine.format_answer(2 * value + 1 if wrong else value)

    def latest() -> Variant:
        variants = Variant.objects.filter(user=learner, problem=problem, attempt=None)
        return variants.order_by("-counter").first()

    path = f"/practice/{problem.slug}/"
    page.goto(live_server.url + path)
    # "12345" is a wrong number, or of the wrong shape for a vector or a matrix; twice the
    # answer plus one is wrong with the right shape, so it counts as a wrong try everywhere.
    for label, text in (
        ("wrong", "12345"),
        ("invalid", "9^9^9"),
        ("wrong, well-formed", answer(latest(), wrong=True)),
    ):
        page.get_by_label("Your answer").fill(text)
        page.get_by_role("button", name="Check answer").click()
        page.locator("#verdict").wait_for()
        _scan(page, f"{path} after a {label} answer", seen)
    # One wrong try is enough to give up (as tests/browser/test_solutions.py does), unless the
    # problem offers its solution after a single wrong try already.
    offered = page.get_by_role("button", name="Show the worked solution")
    give_up = page.get_by_role("button", name="Give up and see the solution")
    expect(offered.or_(give_up)).to_be_visible()
    if give_up.is_visible():
        page.get_by_label("I give up on these numbers").check()
        give_up.click()
    else:
        offered.click()
    expect(page.locator("#solution li")).not_to_have_count(0)
    _scan(page, f"{path} with its worked solution", seen)
    if axe is not None:
        axe[f"{path} with its worked solution"] = serious_violations(page)

    page.get_by_role("button", name="Next variant").click()
    page.get_by_label("Your answer").fill(answer(latest(), wrong=False))
    page.get_by_role("button", name="Check answer").click()
    page.locator(".verdict-correct").wait_for()
    _scan(page, f"{path} after a right answer", seen)


@pytest.mark.parametrize("width", ["page", "phone_page"])
def test_no_learner_page_shows_raw_latex_after_any_answer(
    width, request, live_server, shipped_bank, learner_account
):
    """Every learner page after right, wrong and unreadable answers, with a worked solution
    revealed, at each submit confirmation and in released results: no "$", no backslash command
    and no ASCII subscript outside code, at desktop width and at 375 px (the whole scan at
    each, under a minute apiece). Axe finds nothing serious on a solution's page and on the
    submit confirmations at either width."""
    from courses.models import Problem, Quiz
    from grading.models import Attempt
    from grading.services.attempts import attempt_start
    from grading.services.closing import attempt_submit
    from grading.services.responses import response_submit
    from tests.browser.conftest import log_in

    page = request.getfixturevalue(width)
    seen: dict[str, list[str]] = {}
    axe: dict[str, list[str]] = {}
    log_in(page, live_server, learner_account)
    for path in ("/", LESSON, "/lessons/scaled-dot-product-attention/practice/", "/history/"):
        page.goto(live_server.url + path)
        _scan(page, path, seen)

    for number, problem in enumerate(Problem.objects.for_practice()):
        checked = axe if number == 0 else None  # one solution's page is enough for axe
        _answer_practice_problem(page, live_server, learner_account, problem, seen, checked)

    # A practice quiz: every wrong choice's feedback (each question with a wrong choice, then a
    # right one), problems answered wrongly; its submit confirmation (the page without script),
    # then its results with their released worked solutions; then an exam's.
    quiz = Quiz.objects.get(slug="attention-practice")
    assert quiz.release_answers == Quiz.AnswerRelease.AFTER_SUBMISSION
    page.goto(live_server.url + f"/quizzes/{quiz.slug}/")
    _scan(page, "practice quiz page", seen)
    attempt = attempt_start(user=learner_account, quiz=quiz)
    for item in quiz.items.all():
        if item.question_id:
            wrong = item.question.choices.filter(is_correct=False).first()
            response_submit(attempt=attempt, item=item, choice_ids=[wrong.pk])
            right = item.question.choices.filter(is_correct=True).first()
            response_submit(attempt=attempt, item=item, choice_ids=[right.pk])
        else:
            response_submit(attempt=attempt, item=item, text="12345")
    page.goto(live_server.url + f"/attempts/{attempt.pk}/")
    _scan(page, "practice quiz attempt", seen)
    page.goto(live_server.url + f"/attempts/{attempt.pk}/submit/")
    _scan(page, "practice quiz submit confirmation", seen)
    axe["practice quiz submit confirmation"] = serious_violations(page)
    attempt_submit(attempt=attempt)
    page.goto(live_server.url + f"/attempts/{attempt.pk}/results/")
    assert page.locator("details.solution").count() > 0, "no worked solution was released"
    _scan(page, "practice quiz results", seen)

    exam = Quiz.objects.get(slug="attention-exam")
    page.goto(live_server.url + f"/quizzes/{exam.slug}/")
    _scan(page, "exam page", seen)
    sitting = attempt_start(user=learner_account, quiz=exam)
    page.goto(live_server.url + f"/attempts/{sitting.pk}/")
    _scan(page, "exam attempt", seen)
    for item in exam.items.all():
        if item.question_id:
            wrong = item.question.choices.filter(is_correct=False).first()
            response_submit(attempt=sitting, item=item, choice_ids=[wrong.pk])
        else:
            response_submit(attempt=sitting, item=item, text="3")
    page.goto(live_server.url + f"/attempts/{sitting.pk}/submit/")
    _scan(page, "exam submit confirmation", seen)
    axe["exam submit confirmation"] = serious_violations(page)
    attempt_submit(attempt=sitting)
    assert Attempt.objects.get(pk=sitting.pk).status != Attempt.Status.IN_PROGRESS
    page.goto(live_server.url + f"/attempts/{sitting.pk}/results/")
    _scan(page, "exam results", seen)
    page.goto(live_server.url + "/history/")
    _scan(page, "history after both", seen)

    assert seen == {}
    assert len(axe) == 3
    assert {where: found for where, found in axe.items() if found} == {}


def test_the_raw_latex_scan_finds_what_it_looks_for(page, live_server, shipped_bank):
    """Positive control for the scan above: it reports formulas left as source in text and
    in the title, and passes over code and hidden text."""
    page.goto(live_server.url + LESSON)
    assert page.evaluate(RAW_LATEX) == []
    page.evaluate(
        r"""() => {
          const main = document.querySelector("main");
          for (const text of ["Feedback $q \\cdot k$", "Divide by \\sqrt{8}", "by √d_k"]) {
            main.append(Object.assign(document.createElement("p"), {textContent: text}));
          }
          main.append(Object.assign(document.createElement("code"), {textContent: "$x$"}));
          const hidden = {textContent: "$y$", hidden: true};
          main.append(Object.assign(document.createElement("p"), hidden));
          document.title = "Why $\\sqrt{d_k}$";
        }"""
    )
    assert page.evaluate(RAW_LATEX) == [
        r"Feedback $q \cdot k$",
        r"Divide by \sqrt{8}",
        "by √d_k",
        r"<title> Why $\sqrt{d_k}$",
    ]
