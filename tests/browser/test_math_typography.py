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
