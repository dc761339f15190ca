import pytest

from courses.markup import MarkupError, check_markup, latex_to_html, render_markup


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
