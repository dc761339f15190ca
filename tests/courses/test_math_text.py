"""Titles and short texts with $math$: MathML on the page, plain Unicode in <title>."""

from __future__ import annotations

import pytest
from django.template import Context, Template

from courses.markup import convert_title, render_title
from courses.plain_math import plain_math


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        (r"Why we divide by $\sqrt{d_k}$", "Why we divide by √dₖ"),
        (r"Divided by $d_k$ instead of $\sqrt{d_k}$", "Divided by dₖ instead of √dₖ"),
        (r"$\operatorname{Var}(q \cdot k) = d_k$", "Var(q · k) = dₖ"),
        (r"$\frac{Q K^T}{\sqrt{d_k}}$", "(QKᵀ)/√dₖ"),
        (r"$\sqrt{128} / \sqrt{8}$", "√128/√8"),
        (r"$(-0.6, 1)$ and $e^{-x}$", "(−0.6, 1) and e⁻ˣ"),
        (r"$\sigma^2 d_k$", "σ²dₖ"),
        (r"$d_{\mathrm{model}}$", "d_(model)"),
        (r"$\sqrt{a + b}$", "√(a + b)"),
        ("No formula, d_k as typed", "No formula, d_k as typed"),
        (r"A bad one: $\nosuchcommand$", r"A bad one: \nosuchcommand"),
    ],
)
def test_plain_math_reads_as_text(text, plain):
    assert plain_math(text) == plain


def test_a_title_gets_mathml_and_no_markdown():
    html = convert_title(r"2. Why we divide by $\sqrt{d_k}$ *now* <b>")
    assert html.startswith("2. Why we divide by <math")
    assert "<msqrt>" in html
    assert "<ol" not in html
    assert "<em>" not in html
    assert "&lt;b&gt;" in html
    assert "$" not in html


def test_a_title_that_cannot_render_shows_as_written():
    assert render_title(r"Broken $\frac{1}$ <i>") == r"Broken $\frac{1}$ &lt;i&gt;"


def test_the_template_filters():
    template = Template(
        "{% load math_text %}<title>{{ t|plain_math }}</title><h1>{{ t|inline_math }}</h1>"
    )
    page = template.render(Context({"t": r"Check: $\sqrt{d_k}$ & more"}))
    assert "<title>Check: √dₖ &amp; more</title>" in page
    assert "<h1>Check: <math" in page
    assert "&amp; more</h1>" in page
