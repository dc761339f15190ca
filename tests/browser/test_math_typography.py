"""Math looks like math in Chromium: the vendored OpenType MATH font is loaded and used."""

from __future__ import annotations

import pytest

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
