"""The explorer compares like with like, labels its chart, prints small numbers as ×10⁻ⁿ, and
every arrow key moves the head width, also where d_k is small."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

LESSON = "/lessons/scaled-dot-product-attention/"
# The page's variance is over 1,000 independent pairs (q, k). At d_k = 1 the score q·k has
# E[(q·k)^4] = 9, so the sample variance's standard error is √(8 / 1000) ≈ 0.089 of d_k; for wide
# heads the score is nearly normal and the error is √(2 / 1000) ≈ 0.045 of d_k. 30% is more than
# three standard errors everywhere: a page that showed one query's spread (0.0117 at d_k = 1 on
# the first draw), a standard deviation for a variance, or forgot to divide would miss it by far.
RELATIVE_TOLERANCE = 0.3
SCIENTIFIC = re.compile(r"^-?\d\.\d\d × 10⁻[¹²³⁴⁵⁶⁷⁸⁹][⁰¹²³⁴⁵⁶⁷⁸⁹]*$")


def width(page) -> int:
    return int(page.locator("#explorer-width-value").inner_text())


def variance_and_theory(page) -> tuple[float, float]:
    return (
        float(page.locator("#explorer-variance").inner_text()),
        float(page.locator("#explorer-variance-theory").inner_text()),
    )


def go_to_width(page, target: int) -> None:
    slider = page.locator("#explorer-width")
    slider.focus()
    page.keyboard.press("Home")
    while width(page) < target:
        page.keyboard.press("ArrowRight")
    assert width(page) == target


def test_each_arrow_key_moves_the_width_at_small_widths(page, live_server, shipped_bank):
    page.goto(live_server.url + LESSON)
    page.locator("#explorer-width").focus()
    page.keyboard.press("Home")
    assert width(page) == 1
    seen = [1]
    for _ in range(6):
        page.keyboard.press("ArrowRight")
        seen.append(width(page))
    assert seen == [1, 2, 3, 4, 5, 6, 7]
    for key in ("ArrowLeft", "ArrowDown"):
        before = width(page)
        page.keyboard.press(key)
        assert width(page) < before
    page.keyboard.press("ArrowUp")
    assert width(page) == 6
    page.keyboard.press("End")
    assert width(page) == 1024
    page.keyboard.press("ArrowLeft")
    assert width(page) < 1024


@pytest.mark.parametrize("target", [1, 2, 64, 1024])
def test_the_variance_over_many_draws_matches_the_theory_raw_and_scaled(
    page, live_server, shipped_bank, target
):
    page.goto(live_server.url + LESSON)
    go_to_width(page, target)
    empirical, theory = variance_and_theory(page)
    assert theory == target
    assert empirical == pytest.approx(theory, rel=RELATIVE_TOLERANCE)
    page.get_by_role("switch").check()
    empirical, theory = variance_and_theory(page)
    assert theory == 1
    assert empirical == pytest.approx(1, rel=RELATIVE_TOLERANCE)
    expect(page.locator("#explorer-readout")).to_contain_text(
        f"dₖ = {target}, scores divided by √dₖ: variance of the score over 1,000 draws"
    )
    # A new draw is new pairs too, and still near the theory.
    page.get_by_role("button", name="Draw new q and k").click()
    expect(page.locator("#explorer-draw-count")).to_have_text("Draw 2")
    redrawn, _ = variance_and_theory(page)
    assert redrawn != empirical
    assert redrawn == pytest.approx(1, rel=RELATIVE_TOLERANCE)


def test_the_chart_has_axis_labels_and_says_what_is_compared(page, live_server, shipped_bank):
    page.goto(live_server.url + LESSON)
    figure = page.locator("#explorer figure")
    expect(figure.locator(".axis-title-y")).to_have_text("Probability pj")
    expect(figure.locator(".axis-title-x")).to_have_text("Key j (1 to 12)")
    expect(figure.locator("figcaption")).to_contain_text("between 0 and 1, without unit")
    expect(figure.locator(".axis-ticks")).to_have_text("10.50")
    for title in (".axis-title-y", ".axis-title-x"):
        expect(figure.locator(title)).to_be_visible()
    expect(page.locator(".readings")).to_contain_text(
        "Variance of the score over 1,000 independent draws of q and k"
    )
    expect(page.locator(".readings")).to_contain_text(
        "Spread (standard deviation) of the first query's 12 scores"
    )
    # The spread of one query's scores no longer claims a theoretical value.
    assert "theory" not in page.locator("#explorer-std").inner_text()


def test_small_numbers_read_as_powers_of_ten(page, live_server, shipped_bank):
    page.goto(live_server.url + LESSON)
    page.locator("#explorer-width").focus()
    page.keyboard.press("End")  # raw scores at d_k = 1024: saturated, tiny Jacobian entries
    readings = [
        page.locator(selector).inner_text()
        for selector in ("#explorer-jacobian", "#explorer-variance", "#explorer-max")
    ]
    label = page.locator("#explorer-bars").get_attribute("aria-label")
    probabilities = label.split(": ", 1)[1].split(", ")
    small = [text for text in [*readings, *probabilities] if "×" in text]
    assert small, "at d_k = 1024 some probability is below 0.001"
    assert all(SCIENTIFIC.match(text) for text in small), small
    text = page.locator("#explorer").inner_text() + label
    assert "10^" not in text
    assert "e-" not in re.sub(r"[A-Za-z]e-", "", text)


def test_the_explorer_sits_after_the_paragraph_that_sends_the_learner_to_it(
    page, live_server, shipped_bank
):
    page.goto(live_server.url + LESSON)
    link = page.locator(".lesson-body a[href='#explorer']")
    expect(link).to_have_count(1)
    follows = page.evaluate(
        """() => {
          const paragraph = document.querySelector(".lesson-body a[href='#explorer']").closest("p");
          const explorer = document.getElementById("explorer");
          const top = explorer.getBoundingClientRect().top;
          const gap = top - paragraph.getBoundingClientRect().bottom;
          return [paragraph.parentElement.nextElementSibling === explorer,
                  paragraph === paragraph.parentElement.lastElementChild, gap];
        }"""
    )
    assert follows[0], "the explorer is the next block after the paragraph's part of the body"
    assert follows[1], "the paragraph ends its part of the body"
    assert 0 <= follows[2] < 100
    link.click()
    assert page.url.endswith("#explorer")
    expect(page.locator("#explorer-heading")).to_be_in_viewport()
