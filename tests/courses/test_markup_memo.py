"""Rendering once: `render_markup` converts each (renderer version, inline, text) once per
process, serves the same sanitized HTML as converting directly, and stays within its bound."""

from __future__ import annotations

import pytest
import yaml
from django.core.cache import cache

from courses import markup
from courses.markup import MarkupError, render_markup, render_markup_or_plain
from courses.memo import BoundedMemo
from grading.engine import get_family, make_variant
from tests.conftest import SHIPPED_BANK
from tests.courses.test_markup import _bank_texts
from tests.markup_payloads import PAYLOADS, live_html_findings


def test_a_text_is_converted_once_then_served_from_the_memo(markup_conversions, markup_memo):
    first = render_markup("why we divide by $\\sqrt{d_k}$")
    again = render_markup("why we divide by $\\sqrt{d_k}$")
    assert again == first == markup.convert_markup("why we divide by $\\sqrt{d_k}$")
    assert markup_conversions.texts[:1] == [("why we divide by $\\sqrt{d_k}$", False)]
    assert len(markup_conversions) == 2  # the one above, and the direct call in the assert
    assert (markup_memo.hits, len(markup_memo)) == (1, 1)


def test_an_edited_text_renders_again(markup_conversions):
    before = render_markup("the variance is $d_k$")
    after = render_markup("the variance is $d_k^2$")
    assert "<mn>2</mn>" in after
    assert "<mn>2</mn>" not in before
    assert after == markup.convert_markup("the variance is $d_k^2$")
    assert [text for text, _ in markup_conversions.texts[:2]] == [
        "the variance is $d_k$",
        "the variance is $d_k^2$",
    ]


def test_inline_and_block_renderings_are_kept_apart(markup_conversions):
    block = render_markup("a $x$")
    inline = render_markup("a $x$", inline=True)
    assert block.startswith("<p>")
    assert not inline.startswith("<p>")
    assert render_markup("a $x$") == block
    assert render_markup("a $x$", inline=True) == inline
    assert markup_conversions.texts == [("a $x$", False), ("a $x$", True)]


def test_a_new_renderer_version_renders_again(markup_conversions, monkeypatch):
    render_markup("$q \\cdot k$")
    render_markup("$q \\cdot k$")
    assert len(markup_conversions) == 1
    monkeypatch.setattr(markup, "RENDERER_VERSION", markup.RENDERER_VERSION + 1)
    render_markup("$q \\cdot k$")
    assert len(markup_conversions) == 2


def test_text_that_cannot_render_is_refused_each_time_and_converted_once(markup_conversions):
    for _ in range(3):
        with pytest.raises(MarkupError, match="missing argument"):
            render_markup("$\\frac{1}$")
        assert render_markup_or_plain("$\\frac{1}$", inline=True) == "$\\frac{1}$"
    assert markup_conversions.texts == [("$\\frac{1}$", False), ("$\\frac{1}$", True)]


def test_the_process_memo_is_bounded_by_the_setting(settings):
    markup.render_memo.cache_clear()
    settings.MARKUP_MEMO_BYTES = 12_345_678
    try:
        assert markup.render_memo().max_bytes == 12_345_678
        assert markup.render_memo() is markup.render_memo()
    finally:
        markup.render_memo.cache_clear()


def test_the_memo_stays_within_its_bound_however_many_texts(monkeypatch):
    small = BoundedMemo(max_bytes=64 * 1024)
    monkeypatch.setattr(markup, "render_memo", lambda: small)
    for n in range(400):
        render_markup(f"item {n}: $\\frac{{{n}}}{{\\sqrt{{d_k}}}}$")
        assert small.size_bytes <= 64 * 1024
    assert small.evictions > 0
    # What was pushed out renders again, the same.
    assert render_markup("item 0: $\\frac{0}{\\sqrt{d_k}}$") == markup.convert_markup(
        "item 0: $\\frac{0}{\\sqrt{d_k}}$"
    )


def test_with_no_room_every_request_asks_the_shared_cache_then_converts(
    markup_conversions, markup_memo
):
    markup_memo.resize(max_bytes=0)
    render_markup("$d_k$")
    render_markup("$d_k$")
    # The second was read from the cache every worker shares (courses/render_cache.py).
    assert len(markup_conversions) == 1
    cache.clear()
    render_markup("$d_k$")
    assert len(markup_conversions) == 2


def _statement_texts() -> list[str]:
    """The problem statements of the shipped bank's problems, for a few learners' numbers."""
    bank = yaml.safe_load(SHIPPED_BANK.read_text(encoding="utf-8"))
    texts = []
    for problem in bank["problems"]:
        family = get_family(problem["family"])
        for seed in (1, 2, 3):
            variant = make_variant(family, problem.get("params") or {}, seed)
            texts.append(family.prompt(variant.givens))
    return texts


def test_the_memo_serves_what_converting_directly_gives_for_the_shipped_bank(markup_memo):
    texts = _bank_texts() + _statement_texts()
    assert len(texts) > 230
    for text in texts:
        for inline in (False, True):
            direct = markup.convert_markup(text, inline=inline)
            assert render_markup(text, inline=inline) == direct  # converted into the memo
            assert render_markup(text, inline=inline) == direct  # served from it
    assert markup_memo.hits >= len(set(texts))


@pytest.mark.parametrize(("name", "payload"), PAYLOADS, ids=[name for name, _ in PAYLOADS])
def test_what_the_memo_serves_is_sanitized(name, payload, markup_memo):
    for inline in (False, True):
        for _ in ("converted", "served from the memo"):
            assert live_html_findings(render_markup_or_plain(payload, inline=inline)) == []
    assert markup_memo.hits >= 2


@pytest.fixture
def formula_conversions(monkeypatch) -> list[tuple[str, bool]]:
    """The formulas actually converted (the formula memo's misses), behind a fresh memo."""
    fresh = BoundedMemo(max_bytes=2**20)
    monkeypatch.setattr(markup, "formula_memo", lambda: fresh)
    seen: list[tuple[str, bool]] = []
    convert = markup.latex_to_html

    def counting(latex: str, *, display: bool = False) -> str:
        seen.append((latex, display))
        return convert(latex, display=display)

    monkeypatch.setattr(markup, "latex_to_html", counting)
    return seen


def test_a_formula_shared_by_new_texts_is_converted_once(formula_conversions):
    # Two learners' worked solutions: new texts, the same formula around different numbers.
    first = markup.convert_markup("$\\sqrt{d_k}$ is $2$")
    second = markup.convert_markup("$\\sqrt{d_k}$ is $3$")
    assert formula_conversions == [("\\sqrt{d_k}", False), ("2", False), ("3", False)]
    assert first.startswith("<p><math")
    assert "<msqrt>" in second
    assert "<mn>3</mn>" in second
    assert "<mn>3</mn>" not in first


def test_a_formula_renders_as_converted_directly(formula_conversions, monkeypatch):
    text = "softmax: $$\\frac{e^{x_i}}{\\sum_j e^{x_j}}$$ and $q \\cdot k$"
    remembered = markup.convert_markup(text)
    assert markup.convert_markup(text) == remembered
    assert len(formula_conversions) == 2
    monkeypatch.setattr(markup, "formula_memo", lambda: BoundedMemo(max_bytes=0))
    assert markup.convert_markup(text) == remembered
    assert len(formula_conversions) == 4


def test_inline_and_display_formulas_are_kept_apart(formula_conversions):
    inline = markup.convert_markup("a $x$")
    display = markup.convert_markup("a $$x$$")
    assert 'display="block"' in display
    assert 'display="block"' not in inline
    assert formula_conversions == [("x", False), ("x", True)]


def test_a_formula_that_cannot_render_is_refused_each_time_and_converted_once(
    formula_conversions,
):
    for text in ("$\\frac{1}$", "again $\\frac{1}$"):
        with pytest.raises(MarkupError, match="missing argument"):
            markup.convert_markup(text)
    assert formula_conversions == [("\\frac{1}", False)]


def test_a_new_renderer_version_converts_formulas_again(formula_conversions, monkeypatch):
    markup.convert_markup("$q_i$")
    monkeypatch.setattr(markup, "RENDERER_VERSION", markup.RENDERER_VERSION + 1)
    markup.convert_markup("$q_i$")
    assert formula_conversions == [("q_i", False), ("q_i", False)]


def test_the_formula_memo_is_an_eighth_of_the_setting(settings):
    markup.formula_memo.cache_clear()
    settings.MARKUP_MEMO_BYTES = 8_000_000
    try:
        assert markup.formula_memo().max_bytes == 1_000_000
        assert markup.formula_memo() is markup.formula_memo()
    finally:
        markup.formula_memo.cache_clear()
