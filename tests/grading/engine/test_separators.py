"""The page's decimal separator (answers/separators.py): one reader for "." and ",", thousands
groups refused as ambiguous, `;` between entries with a decimal comma, and the English reading
unchanged."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from grading.engine import ParseError, format_answer, parse
from grading.engine.answers.separators import decimal_commas

STRAY_COMMA = (
    "the comma is the decimal separator here, e.g. 0,5: separate entries with ;, e.g. [0,2; 0,8]"
)
FINITE = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12)


@pytest.mark.parametrize(
    ("text", "shape", "expected"),
    [
        ("0,5", (), 0.5),
        ("0.5", (), 0.5),  # a point always reads as a decimal point
        ("-1,25", (), -1.25),
        ("1,5e3", (), 1500.0),
        ("3,14159", (), 3.14159),
        ("0.125", (), 0.125),  # a group never starts with 0: no thousands separator here
        ("1.5", (), 1.5),
        ("1.2345", (), 1.2345),
        ("1,000", (), 1.0),  # with a decimal comma, a comma is always the decimal one
        ("√2,25", (), 1.5),
        ("1/2 + 0,25", (), 0.75),
        ("sqrt(0,25)", (), 0.5),
        ("[0,2; 0,5; 0,3]", (3,), [0.2, 0.5, 0.3]),
        ("0,2; 0,5; 0,3", (3,), [0.2, 0.5, 0.3]),
        ("[0.2; 0.5; 0.3]", (3,), [0.2, 0.5, 0.3]),
        ("0,2\n0,5\n0,3", (3,), [0.2, 0.5, 0.3]),
        ("0,2 0,5 0,3", (3,), [0.2, 0.5, 0.3]),
        ("[1/3; 2/3]", (2,), [1 / 3, 2 / 3]),
        ("[[0,1; 0,2]; [0,3; 0,4]]", (2, 2), [[0.1, 0.2], [0.3, 0.4]]),
        ("0,1; 0,2\n0,3; 0,4", (2, 2), [[0.1, 0.2], [0.3, 0.4]]),
        ("[0,1; 0,2]\n[0,3; 0,4]", (2, 2), [[0.1, 0.2], [0.3, 0.4]]),
    ],
)
def test_a_decimal_comma_page_reads_commas_and_points(text, shape, expected):
    assert np.allclose(parse(text, shape, decimal=","), expected)


@pytest.mark.parametrize(
    ("text", "shape", "message"),
    [
        (
            "1.000",
            (),
            "1.000 is ambiguous: write 1000 for the whole number, or 1,000 with a decimal comma",
        ),
        (
            "12.345",
            (),
            "12.345 is ambiguous: write 12345 for the whole number, or 12,345 with a decimal comma",
        ),
        (
            "-1.500",
            (),
            "1.500 is ambiguous: write 1500 for the whole number, or 1,500 with a decimal comma",
        ),
        (
            "2*1.000",
            (),
            "1.000 is ambiguous: write 1000 for the whole number, or 1,000 with a decimal comma",
        ),
        ("1.000.000", (), "1.000.000 has thousands separators: write it without them, as 1000000"),
        ("1.000,5", (), "1.000,5 has thousands separators: write it without them, as 1000,5"),
        (
            "[0,5; 1.000]",
            (2,),
            "1.000 is ambiguous: write 1000 for the whole number, or 1,000 with a decimal comma",
        ),
        (
            "[0.2, 0.5]",
            (2,),
            STRAY_COMMA,
        ),
        (
            "0,2, 0,5",
            (2,),
            STRAY_COMMA,
        ),
        (
            "1,2,3",
            (2,),
            "a number has two decimal commas: separate entries with ;, e.g. [0,2; 0,8]",
        ),
        ("0,1;; 0,7", (3,), "a number is missing between two semicolons"),
        ("1,5", (2,), "expected 2 numbers, got 1"),  # never two entries 1 and 5
        ("[1,5]", (2,), "expected 2 numbers, got 1"),
        ("0,5; 0,5", (), "expected a single number, got 2"),
    ],
)
def test_a_decimal_comma_page_refuses_what_it_cannot_read_for_sure(text, shape, message):
    with pytest.raises(ParseError) as caught:
        parse(text, shape, decimal=",")
    assert caught.value.message == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "1,000",
            "1,000 is ambiguous: write 1000 for the whole number, or 1.000 with a decimal point",
        ),
        (
            "-12,345",
            "12,345 is ambiguous: write 12345 for the whole number, or 12.345 with a decimal point",
        ),
        ("1,000,000", "1,000,000 has thousands separators: write it without them, as 1000000"),
        ("12,345.6", "12,345.6 has thousands separators: write it without them, as 12345.6"),
        (
            "1,5",
            "expected a single number, got 2 (write decimals with a point, e.g. 1.5, and no "
            "thousands separators)",
        ),
    ],
)
def test_a_decimal_point_page_refuses_a_number_with_a_thousands_comma(text, message):
    with pytest.raises(ParseError) as caught:
        parse(text, ())
    assert caught.value.message == message


@pytest.mark.parametrize(
    ("text", "shape", "expected"),
    [
        ("1,000", (2,), [1.0, 0.0]),  # a vector of two entries, as it always was
        ("1.000", (), 1.0),
        ("0.1, 0.2; 0.3, 0.4", (2, 2), [[0.1, 0.2], [0.3, 0.4]]),
        ("[0.2, 0.5, 0.3]", (3,), [0.2, 0.5, 0.3]),
    ],
)
def test_a_decimal_point_page_reads_as_it_always_has(text, shape, expected):
    assert np.allclose(parse(text, shape), expected)
    assert np.allclose(parse(text, shape, decimal="."), expected)


def test_the_transform_is_the_point_form():
    assert decimal_commas("[[0,1; 0,2]; [0,3; 0,4]]") == "[[0.1, 0.2], [0.3, 0.4]]"
    assert decimal_commas("0.5") == "0.5"


@given(value=FINITE)
def test_a_number_written_with_a_decimal_comma_reads_back(value):
    text = format_answer(value, 17, decimal=",")
    assert "." not in text
    assert parse(text, (), decimal=",") == value


@given(values=st.lists(FINITE, min_size=1, max_size=6))
def test_a_vector_written_with_a_decimal_comma_reads_back(values):
    text = format_answer(values, 17, decimal=",")
    assert np.array_equal(parse(text, (len(values),), decimal=","), values)


@given(values=st.lists(FINITE, min_size=4, max_size=4))
def test_a_matrix_written_with_a_decimal_comma_reads_back(values):
    matrix = np.array(values).reshape(2, 2)
    text = format_answer(matrix, 17, decimal=",")
    assert np.array_equal(parse(text, (2, 2), decimal=","), matrix)


@given(value=FINITE)
def test_a_plain_number_reads_the_same_with_either_separator_when_it_has_no_group(value):
    text = repr(value)
    ambiguous = any(
        part.isdigit() and len(part) == 3 for part in text.replace("-", "").split(".")[1:2]
    )
    if not ambiguous:
        assert parse(text, (), decimal=",") == parse(text, ()) == value


def test_english_reading_is_unchanged_by_the_default():
    for text, shape in [("√64", ()), ("[[1, 2], [3, 4]]", (2, 2)), ("1 2 3", (3,))]:
        assert np.array_equal(parse(text, shape), parse(text, shape, "."))
    assert parse("2.5e-3", ()) == 0.0025
    assert math.isclose(parse("pi", (), ","), math.pi)
