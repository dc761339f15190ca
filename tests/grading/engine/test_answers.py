"""Reading learners' answers: accepted notations, shapes and every refusal message."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from grading.engine import ParseError, format_answer, parse
from grading.engine.answers import compile_expression

ALLOWED = "you can use numbers, + − × / ^, sqrt, exp, ln, log, e, pi"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("64", 64.0),
        ("  64  ", 64.0),
        ("6.4e1", 64.0),
        ("sqrt(64)", 8.0),
        ("√64", 8.0),
        ("√(64)", 8.0),
        ("2√2", 2 * math.sqrt(2)),
        ("8^2", 64.0),
        ("8**2", 64.0),
        ("8²", 64.0),
        ("2^-1", 0.5),
        ("1/8", 0.125),
        ("exp(1)", math.e),
        ("e", math.e),
        ("pi", math.pi),
        ("π", math.pi),
        ("ln(2)", math.log(2)),
        ("log(e)", 1.0),
        ("−3", -3.0),
        ("2×3", 6.0),
        ("2·3", 6.0),
        ("6 ÷ 4", 1.5),
        ("[64]", 64.0),
        ("(64)", 64.0),
        ("64 * 1.5^2 * 2^2", 576.0),
        ("10^-400", 0.0),
    ],
)
def test_scalar_notations(text, expected):
    value = parse(text, ())
    assert value.shape == ()
    assert value.dtype == np.float64
    assert value == pytest.approx(expected)


def test_caret_is_power_not_xor():
    assert parse("3^2", ()) == 9.0  # XOR would give 1


@pytest.mark.parametrize(
    "text",
    [
        "[0.1, 0.2, 0.7]",
        "0.1, 0.2, 0.7",
        "0.1 0.2 0.7",
        "(0.1, 0.2, 0.7)",
        "0.1; 0.2; 0.7",
        "0.1\n0.2\n0.7",
        "[1/10, 0.2, 7/10]",
        "0.1, 0.2, 0.7,",
    ],
)
def test_vector_notations(text):
    assert parse(text, (3,)).tolist() == pytest.approx([0.1, 0.2, 0.7])


def test_spaces_separate_vector_entries_unless_inside_an_operation():
    assert parse("1 - 2, 3", (2,)).tolist() == [-1.0, 3.0]
    assert parse("1 -2", (2,)).tolist() == [1.0, -2.0]
    assert parse("1 - 2 3", (2,)).tolist() == [-1.0, 3.0]
    assert parse("sqrt (4) 3", (2,)).tolist() == [2.0, 3.0]


@pytest.mark.parametrize(
    "text",
    [
        "[[1, 2], [3, 4]]",
        "1, 2; 3, 4",
        "1 2; 3 4",
        "1, 2\n3, 4",
        "[1 2; 3 4]",
        "[[1, 2],[3, 2^2]]",
        "1 2\n\n3 4\n",
    ],
)
def test_matrix_notations(text):
    assert parse(text, (2, 2)).tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_single_row_matrix():
    assert parse("[[1, 2, 3]]", (1, 3)).tolist() == [[1.0, 2.0, 3.0]]


@pytest.mark.parametrize(
    ("text", "shape", "message"),
    [
        ("", (), "Enter an answer"),
        ("   \n ", (), "Enter an answer"),
        ("", (3,), "Enter an answer"),
        ("x", (), f"unknown name 'x'; {ALLOWED}"),
        ("d_k", (), f"unknown name 'd_k'; {ALLOWED}"),
        ("sqrt(d_k)", (), f"unknown name 'd_k'; {ALLOWED}"),
        ("(1+2", (), "unbalanced brackets: '(' is never closed"),
        ("1+2)", (), "unbalanced brackets: ')' has no matching '('"),
        ("[1, 2)", (2,), "unbalanced brackets: '[' is closed by ')'"),
        ("0.1, 0.2, 0.7", (4,), "expected 4 numbers, got 3"),
        ("1, 2; 3, 4", (3, 3), "expected a 3×3 matrix, got 2 rows"),
        ("1, 2; 3", (2, 2), "expected a 2×2 matrix, but row 2 has 1 entry"),
        ("1, 2; 3, 4, 5", (2, 2), "expected a 2×2 matrix, but row 2 has 3 entries"),
        ("1, 2, 3; 4, 5", (2, 2), "expected a 2×2 matrix, but row 1 has 3 entries"),
        ("1, 2, 3, 4", (2, 2), "expected a 2×2 matrix, got 1 row"),
        ("1 2; 3 4", (4,), "expected 4 numbers in a single list, got 2 rows"),
        ("1, 2", (), "expected a single number, got 2"),
        (
            "1,5",
            (),
            "expected a single number, got 2 (write decimals with a point, e.g. 1.5, "
            "and no thousands separators)",
        ),
        ("0.1,,0.7", (3,), "a number is missing between two commas"),
        ("1/0", (), "division by zero"),
        ("1/(2-2)", (), "division by zero"),
        ("0^-1", (), "division by zero (0 to a negative power)"),
        ("1e999", (), "a number is too large to work with (the limit is about 1e308)"),
        ("1" + "0" * 400, (), "a number is too large to work with (the limit is about 1e308)"),
        ("1e308*10", (), "the result is too large to work with (it is infinite)"),
        ("1e308*10 - 1e308*10", (), "the result is not a number (it is undefined)"),
        ("exp(1000)", (), "exp of that number is too large"),
        ("9^9^9", (), "that power is too large to compute"),
        ("10**10**10", (), "that power is too large to compute"),
        ("2^2000", (), "that power is too large to compute"),
        ("(-8)^(1/3)", (), "a negative number to a fractional power is not a real number"),
        ("sqrt(-1)", (), "the square root of a negative number is not a real number"),
        ("ln(0)", (), "the logarithm of zero or a negative number is undefined"),
        ("log(-2)", (), "the logarithm of zero or a negative number is undefined"),
        ("2pi", (), "could not read '2pi': write multiplication with * or ×, e.g. 2*pi"),
        ("2 3", (), "could not read '2 3' as a number or expression"),
        ("sqrt", (), "sqrt needs brackets, e.g. sqrt(2)"),
        ("sqrt(1, 2)", (), "sqrt takes exactly one number, e.g. sqrt(2)"),
        ("e(2)", (), "'e' is a number, not a function: write e*(...)"),
        ("√", (), "put what √ applies to right after it, e.g. √2 or √(2/3)"),
        ("1//2", (), f"the operator // is not allowed; {ALLOWED}"),
        ("50%", (), f"the character '%' is not allowed; {ALLOWED}"),
        ("x = 5", (), f"the character '=' is not allowed; {ALLOWED}"),
        ("١٢", (), f"the character '١' is not allowed; {ALLOWED}"),
        ("1, x, 3", (3,), f"entry 2: unknown name 'x'; {ALLOWED}"),
        ("[[1, 2], [3, 1/0]]", (2, 2), "entry (2, 2): division by zero"),
        ("(" * 21 + "1" + ")" * 21, (), "too many nested brackets (at most 20 levels)"),
        ("a" * 1001, (), "the answer is too long (at most 1,000 characters)"),
        ("6" * 1001, (), "the answer is too long (at most 1,000 characters)"),
    ],
)
def test_refusals_have_specific_messages(text, shape, message):
    with pytest.raises(ParseError) as caught:
        parse(text, shape)
    assert caught.value.message == message
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("__import__('os').system('true')", f"text in quotes is not allowed; {ALLOWED}"),
        ("__import__", f"unknown name '__import__'; {ALLOWED}"),
        ("().__class__", f"unknown name '__class__'; {ALLOWED}"),
        ("(1).real", f"unknown name 'real'; {ALLOWED}"),
        ("[1][0]", f"indexing with [...] is not allowed; {ALLOWED}"),
        ("lambda: 1", f"the character ':' is not allowed; {ALLOWED}"),
        ("lambda x 1", f"'lambda' is not allowed; {ALLOWED}"),
        ("[x for x in range(9)]", f"unknown name 'x'; {ALLOWED}"),
        ("[1 for a in b]", f"'for' is not allowed; {ALLOWED}"),
        ("'abc'", f"text in quotes is not allowed; {ALLOWED}"),
        ('"1" * 10', f"text in quotes is not allowed; {ALLOWED}"),
        ("None", f"'None' is not allowed; {ALLOWED}"),
        ("1 if 1 else 2", f"'if' is not allowed; {ALLOWED}"),
        ("{1: 2}", f"the character '{{' is not allowed; {ALLOWED}"),
        ("sqrt.__globals__", f"unknown name '__globals__'; {ALLOWED}"),
        ("1_000", f"unknown name '_000'; {ALLOWED}"),
        ("nan", f"unknown name 'nan'; {ALLOWED}"),
        ("inf", f"unknown name 'inf'; {ALLOWED}"),
        ("-" * 300 + "1", "the answer is too complicated; simplify it"),
        ("1+" * 300 + "1", "the answer is too complicated; simplify it"),
    ],
)
def test_hostile_input_gets_a_clean_message(text, message):
    with pytest.raises(ParseError) as caught:
        parse(text, ())
    assert caught.value.message == message


def test_deeply_nested_powers_are_refused_not_computed():
    with pytest.raises(ParseError, match="that power is too large to compute"):
        parse("9^9^9^9^9^9", ())


def _read(text, shape):
    try:
        return parse(text, shape), None
    except ParseError as error:
        return None, error.message


def _check_read(text, shape):
    value, message = _read(text, shape)
    if value is None:
        assert isinstance(message, str)
        assert message
    else:
        assert value.shape == shape
        assert np.isfinite(value).all()


@given(st.text(max_size=200))
def test_any_text_either_parses_or_raises_parse_error(text):
    for shape in ((), (3,), (2, 2)):
        _check_read(text, shape)


@given(st.text(alphabet="0123456789.,;[]() +-*/^√eE\nsqrtexplnpi_x", max_size=60))
def test_arithmetic_looking_text_either_parses_or_raises_parse_error(text):
    for shape in ((), (2,), (2, 2)):
        _check_read(text, shape)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1 / 3 * 0.37037, "0.123457"),
        (64.0, "64"),
        (-0.0, "0"),
        (1.5e-7, "1.5e-07"),
        (123456789.0, "1.23457e+08"),
        ([0.1, 0.2, 0.7], "[0.1, 0.2, 0.7]"),
        ([[1.0, 2.0], [3.0, 4.5]], "[[1, 2], [3, 4.5]]"),
    ],
)
def test_format_answer(value, text):
    assert format_answer(np.asarray(value)) == text


@given(
    st.lists(
        st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300),
        min_size=1,
        max_size=6,
    )
)
def test_format_answer_round_trips_to_six_figures(values):
    array = np.array(values)
    back = parse(format_answer(array), array.shape)
    assert back == pytest.approx(array, rel=5e-6, abs=1e-300)


def test_compile_expression_uses_variables_and_refuses_unknown_names():
    formula = compile_expression("sqrt(d_k) * s^2", ["d_k", "s"])
    assert formula.evaluate({"d_k": 64, "s": 0.5}) == pytest.approx(2.0)
    assert formula.variables == frozenset({"d_k", "s"})
    with pytest.raises(
        ParseError, match="unknown name 'sigma' at column 1; the variables are d_k, s"
    ):
        compile_expression("sigma * d_k", ["d_k", "s"])
