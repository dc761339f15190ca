import re
from html.parser import HTMLParser

import pytest
import yaml
from latex2mathml.converter import convert as latex_to_mathml

from courses import markup, sanitizer
from courses.markup import (
    EXTERNAL_LINK_REL,
    MarkupError,
    check_markup,
    latex_to_html,
    render_markup,
    render_markup_or_plain,
    sanitize_html,
)
from tests.conftest import SHIPPED_BANK
from tests.markup_payloads import PAYLOADS, live_html_findings


def test_inline_and_display_math_become_mathml():
    html = render_markup("Inline $d_k$ here.\n\n$$\\frac{q \\cdot k}{\\sqrt{d_k}}$$\n")
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in html
    assert 'display="block"' in html
    assert "<mfrac>" in html
    assert "<msqrt>" in html
    assert "$" not in html


def test_markdown_does_not_mangle_underscores_inside_math():
    html = render_markup("$q_i k_i$ and $p_i p_j$")
    assert "<em>" not in html
    assert "<msub><mi>q</mi><mi>i</mi></msub>" in html


def test_raw_html_is_escaped():
    html = render_markup("<script>alert(1)</script> and <b>bold</b>")
    assert "<script>" not in html
    assert "&lt;script&gt;" in html


def test_key_term_links_point_to_glossary_anchors():
    html = render_markup("The [[variance]] and the [[standard-deviation|spread]].")
    assert '<a class="term-link" href="#term-variance">variance</a>' in html
    assert '<a class="term-link" href="#term-standard-deviation">spread</a>' in html


@pytest.mark.parametrize(
    ("latex", "reason"),
    [
        ("\\frac{1}", "missing argument"),
        ("\\sqrt{d_k", "unbalanced braces"),
        ("x}", "unbalanced braces"),
        ("\\notacommand{x}", "unknown command \\notacommand"),
        ("x^", "cannot convert"),
    ],
)
def test_formulas_that_do_not_convert_are_refused_with_the_reason(latex, reason):
    with pytest.raises(MarkupError, match=reason.replace("\\", "\\\\")):
        latex_to_html(latex)
    assert any(reason in problem for problem in check_markup(f"text ${latex}$ text"))


def test_check_markup_flags_links_to_unknown_terms():
    problems = check_markup("See [[variance]] and [[nope]].", term_slugs={"variance"})
    assert problems == ["[[nope]] links to no key term of this lesson"]


def test_inline_rendering_drops_the_paragraph():
    assert render_markup("why we divide by $\\sqrt{d_k}$", inline=True).startswith("why we")


# --- injection: nothing authored becomes live HTML ------------------------------------------------


@pytest.mark.parametrize(("name", "payload"), PAYLOADS, ids=[name for name, _ in PAYLOADS])
def test_no_payload_survives_the_renderer(name, payload):
    assert len(PAYLOADS) >= 30
    for inline in (False, True):
        assert live_html_findings(render_markup_or_plain(payload, inline=inline)) == []
    # Text that the checks refuse still renders safely, since stored text may predate them.
    if not check_markup(payload):
        assert live_html_findings(render_markup(payload)) == []
    # And the sanitizer alone stops it, whatever reaches it.
    assert live_html_findings(sanitize_html(payload)) == []


@pytest.mark.parametrize(
    "latex",
    [
        '\\text{<a href="javascript:alert(1)">x</a>}',
        '\\text{<img src="x" onerror="alert(1)"/>}',
        "\\text{<img/src=x/onerror=alert(1)>}",
        "\\href{javascript:alert(1)}{x}",
        "\\style{background:url(javascript:alert(1))}{x}",
        '\\color{red" onmouseover="alert(1)}{x}',
    ],
)
def test_the_sanitizer_alone_disarms_what_latex2mathml_emits(latex):
    mathml = latex_to_mathml(latex)
    assert live_html_findings(sanitize_html(mathml)) == []
    assert "<math" in sanitize_html(mathml)


@pytest.mark.parametrize(
    ("latex", "reason"),
    [
        ('\\text{<a href="https://evil.example">log in</a>}', "'<', '>' and '&' may not appear"),
        ("\\text{<img src=x>}", "'<', '>' and '&' may not appear"),
        ("\\mathrm{a&b}", "'<', '>' and '&' may not appear"),
        ("\\text{<b>bold</b>}", "HTML is not allowed in a formula: <b>"),
        ("\\href{javascript:alert(1)}{x}", "links are not allowed in a formula"),
        ("\\href{https://example.org}{x}", "links are not allowed in a formula"),
        ("\\style{color:red}{x}", "sets style='color:red'"),
        ("\\class{x}{y}", "sets class='x'"),
        ('\\color{red" onclick="x}{y}', "sets mathcolor="),
    ],
)
def test_html_links_and_styles_in_a_formula_are_a_markup_error_not_a_crash(latex, reason):
    with pytest.raises(MarkupError, match=re.escape(reason)):
        latex_to_html(latex, display=True)
    problems = check_markup(f"before $${latex}$$ after")
    assert len(problems) == 1
    assert reason in problems[0]
    assert latex in problems[0]


def test_links_keep_safe_schemes_and_external_ones_get_rel():
    html = render_markup(
        "[a](https://example.org/x) [b](mailto:me@example.org) [c](/lessons/x/) [d](#term-x) "
        "[e](javascript:alert(1)) [f](data:text/html,x) [g](//example.org/y)"
    )
    links = _links(html)
    external = {"rel": EXTERNAL_LINK_REL}
    assert links == [
        ("a", {"href": "https://example.org/x", **external}),
        ("b", {"href": "mailto:me@example.org", **external}),
        ("c", {"href": "/lessons/x/"}),
        ("d", {"href": "#term-x"}),
        ("e", external),
        ("f", external),
        ("g", {"href": "//example.org/y", **external}),
    ]


def test_an_image_shows_its_alt_text_and_loads_nothing():
    html = render_markup("Look: ![a plot of softmax](https://example.org/p.png) here")
    assert html == "<p>Look: a plot of softmax here</p>"


def test_tables_align_columns_without_style_attributes():
    html = render_markup("| a | b |\n|:-|-:|\n| 1 | 2 |")
    assert '<th align="left">a</th>' in html
    assert '<td align="right">2</td>' in html
    assert "style" not in html


def test_authored_placeholder_text_stays_text():
    html = render_markup("⟦MATH7⟧ and $x$ then ⟦MATH0⟧")
    assert html.count("<math") == 1
    assert "⟦MATH7⟧" in html
    assert "⟦MATH0⟧" in html


def test_text_that_cannot_render_shows_as_escaped_source_on_pages():
    assert render_markup_or_plain("bad $\\text{<img src=x>}$") == (
        "<p>bad $\\text{&lt;img src=x&gt;}$</p>"
    )
    assert render_markup_or_plain("$\\frac{1}$", inline=True) == "$\\frac{1}$"
    assert render_markup_or_plain("fine $d_k$") == render_markup("fine $d_k$")


def _signature(html: str) -> list:
    """Elements, attributes and text in document order: what a reader of the page gets."""
    parts: list = []

    class Reader(HTMLParser):
        def handle_starttag(self, tag, attrs):
            parts.append(("start", tag, sorted(attrs)))

        def handle_endtag(self, tag):
            parts.append(("end", tag))

        def handle_data(self, data):
            parts.append(data)

    reader = Reader()
    reader.feed(html)
    reader.close()
    return parts


def _links(html: str) -> list[tuple[str, dict]]:
    signature = _signature(html)
    return [
        (signature[n + 1], dict(part[2]))
        for n, part in enumerate(signature)
        if isinstance(part, tuple) and part[:2] == ("start", "a")
    ]


def _bank_texts() -> list[str]:
    """Every Markdown field of the shipped bank (read as YAML: no database needed)."""
    bank = yaml.safe_load(SHIPPED_BANK.read_text(encoding="utf-8"))
    texts = [bank["lesson"]["title"], bank["lesson"]["body"]]
    texts += [term["definition"] for term in bank["key_terms"]]
    texts += [item["explanation"] for item in bank["misconceptions"]]
    for question in bank["questions"]:
        texts += [question["prompt"], question.get("explanation")]
        texts += [
            choice.get(field) for choice in question["choices"] for field in ("text", "feedback")
        ]
    texts += [problem.get("prompt") for problem in bank["problems"]]
    texts += [quiz.get("description") for quiz in bank["quizzes"]]
    return [text for text in texts if text]


def test_the_shipped_bank_renders_the_same_with_and_without_the_sanitizer(monkeypatch):
    texts = _bank_texts()
    assert len(texts) > 200
    # Rendered now, past the memo: it would hand back what was sanitized before the patch.
    sanitized = [str(markup.convert_markup(text)) for text in texts]
    monkeypatch.setattr(markup, "sanitize_html", lambda fragment: fragment)
    unsanitized = [str(markup.convert_markup(text)) for text in texts]
    for text, before, after in zip(texts, unsanitized, sanitized, strict=True):
        assert _signature(after) == _signature(before), text
    emitted = {
        part[1] for html in sanitized for part in _signature(html) if isinstance(part, tuple)
    }
    # The bank exercises the formulas it teaches with, and they all pass.
    assert {"math", "mfrac", "msqrt", "msub", "msup", "munderover", "mo", "mtext"} <= emitted
    assert emitted <= sanitizer.ALLOWED_TAGS
