"""The language of instructors' property checks: functions, comparisons, tolerance, errors."""

import numpy as np
import pytest

from grading.engine import ParseError, Tolerance
from grading.engine.answers.property_checks import compile_check

TOL = Tolerance(atol=0.0, rtol=0.01)
SOFTMAX = np.array([0.2, 0.3, 0.5])
JACOBIAN = np.diag(SOFTMAX) - np.outer(SOFTMAX, SOFTMAX)


def holds(text, answer, values=None, tolerance=TOL):
    answer = np.asarray(answer, dtype=np.float64)
    answer_value = float(answer) if answer.shape == () else answer
    check = compile_check(text, frozenset(values or {}), answer.shape)
    return check.holds(answer_value, values or {}, tolerance)


@pytest.mark.parametrize(
    ("text", "answer", "expected"),
    [
        ("sum(x) = 1", SOFTMAX, True),
        ("sum(x) = 1", SOFTMAX * 2, False),
        ("sum(x) == 1", SOFTMAX, True),
        ("x >= 0", SOFTMAX, True),
        ("x >= 0", [0.5, -0.2, 0.7], False),
        ("x > 0", [0.5, 0.0, 0.5], False),
        ("x < 1", SOFTMAX, True),
        ("x <= 0.4", SOFTMAX, False),
        ("0 <= x <= 1", SOFTMAX, True),
        ("0 ≤ x ≤ 1", [0.5, 1.5, -1], False),
        ("x != 0", SOFTMAX, True),
        ("x ≠ 0", [0, 0, 0], False),
        ("x[3] > x[1]", SOFTMAX, True),
        ("x[1] > x[3]", SOFTMAX, False),
        ("min(x) = 0.2", SOFTMAX, True),
        ("max(x) = 0.5", SOFTMAX, True),
        ("max(x, 0.7) = 0.7", SOFTMAX, True),
        ("abs(x[1] - 0.5) = 0.3", SOFTMAX, True),
        ("sqrt(x[3]^2) = 0.5", SOFTMAX, True),
        ("exp(ln(x)) = x", SOFTMAX, True),
        ("2 * x - x = x", SOFTMAX, True),
        ("symmetric(x)", JACOBIAN, True),
        ("symmetric(x)", [[1.0, 2.0], [3.0, 1.0]], False),
        ("rowsums(x) = 0", JACOBIAN, True),
        ("colsums(x) = 0", JACOBIAN, True),
        ("rowsums(x) = 0", JACOBIAN + np.eye(3) * 0.1, False),
        ("colsums(x) = [1]", None, None),
        ("diag(x) > 0", JACOBIAN, True),
        ("x[1, 2] <= 0", JACOBIAN, True),
        ("x[2, 2] <= 0", JACOBIAN, False),
        ("x = 4", 4.0, True),
        ("-x < 0", 4.0, True),
    ],
)
def test_each_function_and_comparison(text, answer, expected):
    if answer is None:
        with pytest.raises(ParseError):
            compile_check(text, frozenset(), (3, 3))
        return
    assert holds(text, answer) is expected


def test_comparisons_with_variables_and_indices_by_variable():
    values = {"i": 2, "j": 1, "d_k": 64}
    assert holds("x[i] > x[j]", [1.0, 2.0], values)
    assert not holds("x[j] > x[i]", [1.0, 2.0], values)
    assert holds("x <= sqrt(d_k)", [1.0, 8.0], values)
    assert not holds("x < sqrt(d_k)", [1.0, 8.0], values)
    assert holds("x[i - j, i] = d_k / 32", [[1.0, 2.0], [3.0, 4.0]], values)


def test_equality_allows_the_problems_tolerance_and_no_more():
    assert holds("sum(x) = 1", [0.2, 0.3, 0.504])  # 0.4% off, 1% allowed
    assert not holds("sum(x) = 1", [0.2, 0.3, 0.52])
    assert holds("sum(x) = 1", [0.2, 0.3, 0.52], tolerance=Tolerance(0.0, 0.05))
    assert holds("x = 100", 100.9)
    assert not holds("x = 100", 101.5)
    assert not holds("x != 100", 100.9)
    # Near zero the answer's largest entry sets the scale: rows that cancel to rounding hold.
    rounded = np.round(JACOBIAN, 3)
    assert holds("rowsums(x) = 0", rounded, tolerance=Tolerance(0.0, 0.001))
    assert not holds("rowsums(x) = 0", rounded + 0.01, tolerance=Tolerance(0.0, 0.001))
    # <= and >= allow the tolerance; < and > are strict.
    assert holds("x >= 0", [-0.001, 0.5, 0.501])
    assert not holds("x > 0", [0.0, 0.5, 0.5])
    assert holds("x <= 1", [1.005])
    assert not holds("x < 1", [1.0])


@pytest.mark.parametrize(
    ("text", "shape", "message"),
    [
        ("sum(y) = 1", (3,), "unknown name 'y'; x is the answer, the variables are d_k"),
        ("softmax(x) = 1", (3,), "unknown function 'softmax'"),
        ("x[4] > 0", (3,), "index 4 is out of range for a vector of 3: use 1 to 3"),
        ("x[0] > 0", (3,), "index 0 is out of range for a vector of 3: use 1 to 3"),
        ("x[1.5] > 0", (3,), "index 1.5 is out of range"),
        ("x[1] > 0", (2, 2), "index a 2 × 2 matrix as [i, j], counting from 1"),
        ("x[1, 2] > 0", (3,), "index a vector of 3 as [i], counting from 1"),
        ("x[1] > 0", (), "a number has no entries to index"),
        ("x[1:2] > 0", (3,), "the character ':' is not allowed in a check"),
        ("x[x] > 0", (3,), "an index is one whole number"),
        ("rowsums(x) = 0", (3,), "rowsums needs a matrix, not a vector of 3"),
        ("symmetric(x)", (2, 3), "symmetric needs a square matrix, not a 2 × 3 matrix"),
        ("diag(x) > 0", (2, 3), "diag needs a square matrix"),
        ("symmetric(x) = 1", (2, 2), "symmetric(...) is a yes-or-no check"),
        ("x = rowsums(x)", (2, 3), "cannot compare a 2 × 3 matrix with a vector of 2"),
        ("x + rowsums(x) > 0", (2, 2), "cannot combine a 2 × 2 matrix with a vector of 2"),
        ("sum(x)", (3,), "a check compares (=, !=, <, <=, >, >=)"),
        ("x >", (3,), "a comparison needs something on each side (side 2)"),
        ("x = [1, 2, 3]", (3,), "a list is not allowed here"),
        ("x.sum() = 1", (3,), "only the check's functions can be called"),
        ("x.T = x", (3,), "that kind of expression is not allowed"),
        ("x % 2 = 0", (3,), "the character '%' is not allowed in a check"),
        ("sum x = 1", (3,), "could not read 'sum x'"),
        ("sum = 1", (3,), "sum needs brackets, e.g. sum(x)"),
        ("sum() = 1", (3,), "sum takes what it applies to in brackets"),
        ("sum(x = 1) = 1", (3,), "the character '=' is not allowed in a check (side 1)"),
        ("abs(x, x) = 1", (3,), "abs takes exactly one argument"),
        ("(x = 1", (3,), "unbalanced brackets"),
        ("", (3,), "write the check"),
        ("-" * 80 + "x > 0", (3,), "nested too deeply"),
        ("'x' = 1", (3,), "the character"),
    ],
)
def test_bad_checks_say_what_is_wrong(text, shape, message):
    with pytest.raises(ParseError) as caught:
        compile_check(text, frozenset({"d_k"}), shape)
    assert message in caught.value.message


def test_a_variable_named_x_is_refused_because_x_is_the_answer():
    with pytest.raises(ParseError, match="rename it"):
        compile_check("x > 0", frozenset({"x"}), ())


def test_a_check_that_cannot_be_evaluated_for_an_answer_raises_parse_error():
    check = compile_check("sqrt(x) > 0", frozenset(), (2,))
    with pytest.raises(ParseError, match="square root of a negative"):
        check.holds(np.array([1.0, -4.0]), {}, TOL)
    by_variable = compile_check("x[i] > 0", frozenset({"i"}), (2,))
    with pytest.raises(ParseError, match="index 3 is out of range: use 1 to 2"):
        by_variable.holds(np.array([1.0, 2.0]), {"i": 3}, TOL)
    with pytest.raises(ParseError, match="division by zero"):
        compile_check("1 / x > 0", frozenset(), (2,)).holds(np.array([1.0, 0.0]), {}, TOL)
