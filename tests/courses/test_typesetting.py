"""The MathML of a formula reads as TeX sets it: no gap after a function name, a unary minus
next to its number, limits under a sum in display math."""

from __future__ import annotations

import pytest

from courses.markup import latex_to_html, render_markup

APPLY = "<mo>\u2061</mo>"
UNARY_MINUS = '<mo form="prefix" lspace="0" rspace="0">−</mo>'


@pytest.mark.parametrize(
    ("latex", "name"),
    [
        (r"\operatorname{Var}(q \cdot k)", "Var"),
        (r"\mathrm{softmax}(z)", "softmax"),
        (r"\mathrm{Var}\left(\sum_i x_i\right)", "Var"),
        (r"\exp(x)", "exp"),
    ],
)
def test_a_function_name_is_one_identifier_applied_to_its_brackets_without_a_gap(latex, name):
    mathml = latex_to_html(latex)
    assert f"<mi>{name}</mi>{APPLY}<mo" in mathml or f"<mi>{name}</mi>{APPLY}<mrow><mo" in mathml
    # Not an operator with a thick space around it, not one letter per element.
    assert f"<mo>{name}</mo>" not in mathml
    assert '<mi mathvariant="normal">' not in mathml
    assert "<mspace" not in mathml


def test_a_name_before_an_unbracketed_argument_gets_a_thin_space_as_in_tex():
    mathml = latex_to_html(r"\log x")
    assert f'<mi>log</mi>{APPLY}<mspace width="0.1667em" /><mi>x</mi>' in mathml


def test_a_name_that_is_not_applied_gets_nothing_after_it():
    assert APPLY not in latex_to_html(r"x_{\mathrm{max}} = \operatorname{Var}")
    assert "<mi>max</mi>" in latex_to_html(r"x_{\mathrm{max}}")
    # One upright letter stays as latex2mathml writes it.
    assert APPLY not in latex_to_html(r"\mathrm{d}x")


@pytest.mark.parametrize(
    "latex",
    [r"(-0.6, 1)", r"-x + y", r"y = -3", r"e^{-x}", r"\left[-1, 2\right]", r"|-x|", r"a, -b"],
)
def test_a_sign_with_nothing_to_subtract_from_is_a_prefix_with_no_space(latex):
    assert UNARY_MINUS in latex_to_html(latex)


@pytest.mark.parametrize("latex", [r"a - b", r"(a) - b", r"x_i - 0.6", r"|x| - 1", r"f(x)^2 - 1"])
def test_a_subtraction_keeps_the_spacing_of_a_binary_operator(latex):
    mathml = latex_to_html(latex)
    assert "<mo>−</mo>" in mathml
    assert 'form="prefix"' not in mathml


def test_a_sum_takes_limits_that_move_beside_it_inline():
    inline = latex_to_html(r"\sum_{i=1}^{n} x_i")
    assert '<munderover><mo movablelimits="true">∑</mo>' in inline
    assert "<msubsup>" not in inline


def test_max_takes_its_limit_under_it_in_display_math_only():
    assert "<munder><mi>max</mi><mi>j</mi></munder>" in latex_to_html(r"\max_j z_j", display=True)
    assert "<msub><mi>max</mi><mi>j</mi></msub>" in latex_to_html(r"\max_j z_j")


def test_the_adjusted_mathml_survives_the_sanitizer():
    html = render_markup(r"Then $\operatorname{softmax}(-z)$ and $\log x$.")
    assert f"<mi>softmax</mi>{APPLY}" in html
    assert UNARY_MINUS in html
    assert '<mspace width="0.1667em">' in html or '<mspace width="0.1667em" />' in html


@pytest.mark.parametrize(
    ("latex", "numbers"),
    [
        (r"c = 0{,}5", ["0,5"]),
        (r"-1{,}25 + 3", ["1,25", "3"]),
        (r"(0{,}3;\ -1{,}2;\ 0{,}8)", ["0,3", "1,2", "0,8"]),
        (r"\begin{pmatrix} 0{,}1 & 2 \\ 3 & 0{,}4 \end{pmatrix}", ["0,1", "2", "3", "0,4"]),
    ],
)
def test_a_decimal_comma_written_the_tex_way_is_one_number(latex, numbers):
    mathml = latex_to_html(latex)
    assert [f"<mn>{n}</mn>" in mathml for n in numbers] == [True] * len(numbers), mathml
    assert "<mrow><mo>,</mo></mrow>" not in mathml
    assert "<mi>;</mi>" not in mathml  # a semicolon between entries is punctuation


def test_a_comma_between_entries_stays_punctuation():
    mathml = latex_to_html(r"(0.3, -1.2)")
    assert "<mn>0.3</mn><mo>,</mo>" in mathml
