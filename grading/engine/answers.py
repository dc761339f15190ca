"""Reading what learners type: numbers, expressions, vectors and matrices.

Every entry is a small arithmetic expression evaluated by simpleeval with our own operator,
function and name tables, after a lexical and syntax-tree check that refuses anything beyond
numbers, + − × / ^, sqrt, exp, ln, log, e and pi. Every failure is a ParseError whose message
tells the learner what to fix.
"""

from __future__ import annotations

import ast
import keyword
import math
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from simpleeval import SimpleEval

MAX_LENGTH = 1000
# Bounds that keep hostile input cheap: the Python parser costs about a microsecond per token.
MAX_BRACKET_DEPTH = 20
MAX_TREE_DEPTH = 60
MAX_OPERATIONS = 200
LARGEST_POWER_DIGITS = 308  # log10 of the largest finite float64

ALLOWED = "you can use numbers, + − × / ^, sqrt, exp, ln, log, e, pi"
EMPTY_MESSAGE = "Enter an answer"


class ParseError(ValueError):
    """A learner's text could not be read as a number; .message says why, for the learner."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# --- arithmetic with guards ---------------------------------------------------------------
# Operands arrive as int or float; everything is done in float so that no operation can build
# a huge integer or repeat a sequence.


def _add(a: float, b: float) -> float:
    return float(a) + float(b)


def _sub(a: float, b: float) -> float:
    return float(a) - float(b)


def _mul(a: float, b: float) -> float:
    return float(a) * float(b)


def _div(a: float, b: float) -> float:
    if float(b) == 0.0:
        raise ParseError("division by zero")
    return float(a) / float(b)


def _power(a: float, b: float) -> float:
    base, exponent = float(a), float(b)
    if base == 0.0 and exponent < 0:
        raise ParseError("division by zero (0 to a negative power)")
    if base < 0 and not exponent.is_integer():
        raise ParseError("a negative number to a fractional power is not a real number")
    magnitude = abs(base)
    if magnitude not in (0.0, 1.0):
        digits = abs(exponent) * abs(math.log10(magnitude))
        # Decide from the size of the result before computing it, so 9^9^9 costs nothing.
        if digits > LARGEST_POWER_DIGITS:
            if (magnitude > 1) == (exponent > 0):
                raise ParseError("that power is too large to compute")
            return 0.0
    try:
        return math.pow(base, exponent)
    except OverflowError:
        raise ParseError("that power is too large to compute") from None


def _neg(a: float) -> float:
    return -float(a)


def _pos(a: float) -> float:
    return float(a)


def _sqrt(x: float) -> float:
    value = float(x)
    if value < 0:
        raise ParseError("the square root of a negative number is not a real number")
    return math.sqrt(value)


def _exp(x: float) -> float:
    try:
        return math.exp(float(x))
    except OverflowError:
        raise ParseError("exp of that number is too large") from None


def _ln(x: float) -> float:
    value = float(x)
    if value <= 0:
        raise ParseError("the logarithm of zero or a negative number is undefined")
    return math.log(value)


_OPERATORS: dict[type, Callable[..., float]] = {
    ast.Add: _add,
    ast.Sub: _sub,
    ast.Mult: _mul,
    ast.Div: _div,
    ast.Pow: _power,
    ast.USub: _neg,
    ast.UAdd: _pos,
}
_FUNCTIONS: dict[str, Callable[[float], float]] = {
    "sqrt": _sqrt,
    "exp": _exp,
    "ln": _ln,
    "log": _ln,  # learners of this lesson mean the natural log
}
CONSTANTS: dict[str, float] = {"e": math.e, "pi": math.pi}
RESERVED_NAMES = frozenset(_FUNCTIONS) | frozenset(CONSTANTS)

_OPERATOR_SYMBOLS = {
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.MatMult: "@",
    ast.BitXor: "^",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.Invert: "~",
    ast.Not: "not",
}

_local = threading.local()


def _evaluator() -> SimpleEval:
    # One evaluator per thread: building one costs more than most evaluations.
    evaluator = getattr(_local, "evaluator", None)
    if evaluator is None:
        evaluator = SimpleEval(
            operators=dict(_OPERATORS), functions=dict(_FUNCTIONS), names=dict(CONSTANTS)
        )
        _local.evaluator = evaluator
    return evaluator


# --- text clean-up ------------------------------------------------------------------------

_TRANSLATION = str.maketrans(
    {
        "\u2212": "-",  # minus sign
        "\u2013": "-",  # en dash, which some keyboards produce for minus
        "\u00d7": "*",  # ×
        "\u00b7": "*",  # ·
        "\u22c5": "*",  # ⋅
        "\u2219": "*",  # ∙
        "\u00f7": "/",  # ÷
        "\u03c0": "pi",  # π
        "\u00b2": "**2",  # ²
        "\u00b3": "**3",  # ³
        "\u00a0": " ",  # no-break space
        "^": "**",  # learners mean a power; simpleeval would read ^ as XOR
    }
)
_ROOT_AFTER_VALUE = re.compile(r"(?<=[\w.)\]])\s*√")
_ROOT_BRACKET = re.compile(r"√\s*\(")
_ROOT_ATOM = re.compile(r"√\s*((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[A-Za-z_]\w*)")
_BAD_CHARACTER = re.compile(r"[^0-9A-Za-z_.,;+\-*/()\[\] \t\r\n]")
_TOKEN = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|([A-Za-z_]\w*)")
_IMPLICIT_PRODUCT = re.compile(r"[\d.)]\s*[A-Za-z(]|\)\s*[\d.]")
_DECIMAL_COMMA = re.compile(r"^\s*-?\d+,\d+\s*$")
_CLOSING = {")": "(", "]": "["}


def _normalise(text: str) -> str:
    """Map the symbols learners type (−, ×, ·, ^, √, π, ²) onto plain arithmetic."""
    text = text.translate(_TRANSLATION)
    if "√" in text:
        text = _ROOT_AFTER_VALUE.sub("*√", text)
        text = _ROOT_BRACKET.sub("sqrt(", text)
        text = _ROOT_ATOM.sub(r"sqrt(\1)", text)
        if "√" in text:
            raise ParseError("put what √ applies to right after it, e.g. √2 or √(2/3)")
    return text


def _check_characters(text: str) -> None:
    bad = _BAD_CHARACTER.search(text)
    if bad is None:
        return
    char = bad.group()
    if char in "'\"`":
        raise ParseError(f"text in quotes is not allowed; {ALLOWED}")
    raise ParseError(f"the character {char!r} is not allowed; {ALLOWED}")


def _check_brackets(text: str) -> None:
    stack: list[str] = []
    for char in text:
        if char in "([":
            stack.append(char)
            if len(stack) > MAX_BRACKET_DEPTH:
                raise ParseError(f"too many nested brackets (at most {MAX_BRACKET_DEPTH} levels)")
        elif char in ")]":
            if not stack:
                opening = _CLOSING[char]
                raise ParseError(f"unbalanced brackets: '{char}' has no matching '{opening}'")
            opened = stack.pop()
            if opened != _CLOSING[char]:
                raise ParseError(f"unbalanced brackets: '{opened}' is closed by '{char}'")
    if stack:
        raise ParseError(f"unbalanced brackets: '{stack[-1]}' is never closed")


# --- layout: which entries the learner wrote, row by row ----------------------------------


def _split_top(text: str, separators: str) -> list[str]:
    """Split text at separators that sit outside every bracket."""
    parts: list[str] = []
    depth = 0
    start = 0
    for index, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif depth == 0 and char in separators:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


def _closing_index(text: str) -> int:
    depth = 0
    for index, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
            if depth == 0:
                return index
    return -1


def _list_body(text: str) -> str | None:
    """Return the inside of [ ... ] (or of ( ... ) holding a comma), else None."""
    if len(text) < 2 or text[0] not in "([" or _closing_index(text) != len(text) - 1:
        return None
    inner = text[1:-1]
    if text[0] == "(" and len(_split_top(inner, ",")) < 2:
        return None  # plain grouping brackets around one expression
    return inner


def _split_spaces(row: str) -> list[str]:
    # Spaces separate entries unless they sit inside an operation: "1 - 2" is one entry,
    # "1 -2" is two, "sqrt (2)" is one.
    entries: list[str] = []
    for chunk in _split_top(row, " \t\r"):
        if not chunk:
            continue
        if entries:
            last = entries[-1]
            joins = (
                last[-1] in "+-*/("
                or chunk[0] in "*/)"
                or chunk in ("+", "-")
                or (chunk[0] == "(" and (last[-1].isalnum() or last[-1] in "_)"))
            )
            if joins:
                entries[-1] = f"{last} {chunk}"
                continue
        entries.append(chunk)
    return entries


def _row_entries(row: str, spaces_separate: bool) -> list[str]:
    body = _list_body(row.strip())
    if body is not None:
        row = body
    parts = _split_top(row, ",")
    if len(parts) > 1:
        if not parts[-1].strip():
            parts.pop()  # a trailing comma is harmless
        if any(not part.strip() for part in parts):
            raise ParseError("a number is missing between two commas")
        return [part.strip() for part in parts]
    if spaces_separate:
        return _split_spaces(row.strip())
    return [row.strip()] if row.strip() else []


def _layout(text: str, spaces_separate: bool) -> list[list[str]]:
    """Rows of entry texts: [[a, b], [c, d]], rows split by ';' or new lines, or a flat list."""
    text = text.strip()
    body = _list_body(text)
    if body is not None:
        items = _split_top(body, ",")
        if items[-1].strip() == "" and len(items) > 1:
            items.pop()
        if all(_list_body(item.strip()) is not None for item in items):
            return [_row_entries(item, spaces_separate) for item in items]
        text = body
    rows = [row for row in _split_top(text, ";\n") if row.strip()]
    return [_row_entries(row, spaces_separate) for row in rows]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _arrange(rows: list[list[str]], shape: tuple[int, ...], text: str) -> list[str]:
    """Check the layout against the expected shape; return entries in row-major order."""
    if not shape:
        entries = [entry for row in rows for entry in row]
        if len(entries) != 1:
            hint = ""
            if _DECIMAL_COMMA.match(text):
                hint = " (write decimals with a point, e.g. 1.5, and no thousands separators)"
            raise ParseError(f"expected a single number, got {len(entries)}{hint}")
        return entries
    if len(shape) == 1:
        (size,) = shape
        if len(rows) == 1:
            entries = rows[0]
        elif all(len(row) == 1 for row in rows):
            entries = [row[0] for row in rows]  # one number per line reads as a column
        else:
            raise ParseError(f"expected {size} numbers in a single list, got {len(rows)} rows")
        if len(entries) != size:
            raise ParseError(f"expected {size} numbers, got {len(entries)}")
        return entries
    n_rows, n_cols = shape
    label = f"a {n_rows}×{n_cols} matrix"
    if len(rows) != n_rows:
        raise ParseError(f"expected {label}, got {_plural(len(rows), 'row')}")
    for index, row in enumerate(rows, start=1):
        if len(row) != n_cols:
            raise ParseError(f"expected {label}, but row {index} has {_plural(len(row), 'entry')}")
    return [entry for row in rows for entry in row]


# --- one expression -----------------------------------------------------------------------


def _syntax_message(text: str) -> str:
    snippet = text if len(text) <= 40 else text[:37] + "..."
    if _IMPLICIT_PRODUCT.search(text):
        return f"could not read '{snippet}': write multiplication with * or ×, e.g. 2*pi"
    return f"could not read '{snippet}' as a number or expression"


def _check_names(text: str, known: Iterable[str], unknown_hint: str) -> None:
    known_names = set(known)
    for match in _TOKEN.finditer(text):
        name = match.group(1)
        if name is None or name in known_names or name in _FUNCTIONS:
            continue
        if keyword.iskeyword(name) or keyword.issoftkeyword(name):
            raise ParseError(f"'{name}' is not allowed; {unknown_hint}")
        raise ParseError(f"unknown name '{name}'; {unknown_hint}")


def _check_tree(tree: ast.expr, known: Iterable[str], unknown_hint: str) -> None:
    """Refuse every syntax-tree node that is not plain arithmetic on numbers."""
    known_names = set(known)
    stack: list[tuple[ast.AST, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_TREE_DEPTH:
            raise ParseError("the expression is nested too deeply; simplify it")
        kind = type(node)
        if kind is ast.Constant:
            value = node.value  # type: ignore[attr-defined]
            if type(value) is complex:
                raise ParseError("complex numbers are not allowed")
            if type(value) not in (int, float):
                raise ParseError(f"only numbers are allowed; {unknown_hint}")
            try:
                finite = math.isfinite(float(value))
            except OverflowError:
                finite = False
            if not finite:
                raise ParseError("a number is too large to work with (the limit is about 1e308)")
        elif kind is ast.Name:
            name = node.id  # type: ignore[attr-defined]
            if name in _FUNCTIONS:
                raise ParseError(f"{name} needs brackets, e.g. {name}(2)")
            if name not in known_names:
                raise ParseError(f"unknown name '{name}'; {unknown_hint}")
        elif kind is ast.BinOp:
            op = type(node.op)  # type: ignore[attr-defined]
            if op not in _OPERATORS:
                symbol = _OPERATOR_SYMBOLS.get(op, op.__name__)
                raise ParseError(f"the operator {symbol} is not allowed; {unknown_hint}")
            stack.append((node.left, depth + 1))  # type: ignore[attr-defined]
            stack.append((node.right, depth + 1))  # type: ignore[attr-defined]
        elif kind is ast.UnaryOp:
            op = type(node.op)  # type: ignore[attr-defined]
            if op not in _OPERATORS:
                symbol = _OPERATOR_SYMBOLS.get(op, op.__name__)
                raise ParseError(f"the operator {symbol} is not allowed; {unknown_hint}")
            stack.append((node.operand, depth + 1))  # type: ignore[attr-defined]
        elif kind is ast.Call:
            func = node.func  # type: ignore[attr-defined]
            if type(func) is not ast.Name:
                raise ParseError(f"only sqrt, exp, ln and log can be called; {unknown_hint}")
            if func.id not in _FUNCTIONS:
                if func.id in known_names:
                    raise ParseError(
                        f"'{func.id}' is a number, not a function: write {func.id}*(...)"
                    )
                raise ParseError(f"unknown name '{func.id}'; {unknown_hint}")
            args = node.args  # type: ignore[attr-defined]
            if node.keywords or len(args) != 1 or type(args[0]) is ast.Starred:  # type: ignore[attr-defined]
                raise ParseError(f"{func.id} takes exactly one number, e.g. {func.id}(2)")
            stack.append((args[0], depth + 1))
        elif kind in (ast.List, ast.Tuple):
            raise ParseError("a list is not allowed inside a single number")
        elif kind is ast.Attribute:
            raise ParseError(f"'.{node.attr}' is not allowed; {unknown_hint}")  # type: ignore[attr-defined]
        elif kind is ast.Subscript:
            raise ParseError(f"indexing with [...] is not allowed; {unknown_hint}")
        else:
            raise ParseError(f"that kind of expression is not allowed; {unknown_hint}")


def _evaluate(text: str, names: Mapping[str, float], unknown_hint: str = ALLOWED) -> float:
    """Evaluate one already-normalised expression to a finite float, or raise ParseError."""
    text = text.strip()
    if not text:
        raise ParseError(EMPTY_MESSAGE)
    if text.isascii() and "_" not in text:
        try:
            value = float(text)
        except ValueError:
            pass
        else:
            if math.isfinite(value):
                return value
    _check_names(text, names, unknown_hint)
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        raise ParseError(_syntax_message(text)) from None
    except (RecursionError, MemoryError, ValueError):
        raise ParseError("the expression is nested too deeply; simplify it") from None
    _check_tree(tree, names, unknown_hint)
    evaluator = _evaluator()
    saved_names = evaluator.names
    if names is not CONSTANTS:
        evaluator.names = dict(names)
    try:
        result = evaluator.eval(text, previously_parsed=tree)
    except ParseError:
        raise
    except ZeroDivisionError:
        raise ParseError("division by zero") from None
    except OverflowError:
        raise ParseError("the result is too large to work with") from None
    except Exception:
        # The tree check leaves nothing that should fail here; never let an internal
        # exception reach the learner or the caller.
        raise ParseError(_syntax_message(text)) from None
    finally:
        evaluator.names = saved_names
    if isinstance(result, bool) or not isinstance(result, int | float):
        raise ParseError(f"could not read '{text[:40]}' as a number")
    value = float(result)
    if math.isnan(value):
        raise ParseError("the result is not a number (it is undefined)")
    if math.isinf(value):
        raise ParseError("the result is too large to work with (it is infinite)")
    return value


# --- public API ---------------------------------------------------------------------------


def _fast_numbers(text: str, shape: tuple[int, ...]) -> npt.NDArray[np.float64] | None:
    """Plain numbers without any expression: skip the full reader (a large share of answers)."""
    if not text.isascii() or "_" in text:
        return None  # float() accepts '1_0' and non-ASCII digits; the full reader does not
    try:
        if not shape:
            value = float(text)
            return np.array(value) if math.isfinite(value) else None
        if len(shape) != 1:
            return None
        body = text.strip()
        if body[:1] == "[" and body[-1:] == "]":
            body = body[1:-1]
        parts = body.split(",")
        if len(parts) != shape[0]:
            return None
        values = np.array([float(part) for part in parts])
    except ValueError:
        return None
    return values if np.isfinite(values).all() else None


def parse(text: str, shape: tuple[int, ...]) -> npt.NDArray[np.float64]:
    """Read a learner's answer as a float64 array of the given shape, e.g. parse('√64', ()) → 8."""
    if text is None:
        raise ParseError(EMPTY_MESSAGE)
    if not isinstance(text, str):
        raise ParseError("the answer must be text")
    if len(text) > MAX_LENGTH:
        raise ParseError(f"the answer is too long (at most {MAX_LENGTH:,} characters)")
    shape = tuple(shape)
    fast = _fast_numbers(text, shape)
    if fast is not None:
        return fast
    normalised = _normalise(text)
    if not normalised.strip():
        raise ParseError(EMPTY_MESSAGE)
    _check_characters(normalised)
    _check_brackets(normalised)
    if sum(normalised.count(op) for op in "+-*/(") > MAX_OPERATIONS:
        raise ParseError("the answer is too complicated; simplify it")
    if not shape and not any(mark in normalised for mark in ",;\n["):
        entries = [normalised]  # one expression: no layout to work out
    else:
        entries = _arrange(_layout(normalised, spaces_separate=bool(shape)), shape, normalised)
    values: list[float] = []
    for index, entry in enumerate(entries):
        try:
            values.append(_evaluate(entry, CONSTANTS))
        except ParseError as error:
            if not shape:
                raise
            if len(shape) == 1:
                where = f"entry {index + 1}"
            else:
                row, col = divmod(index, shape[1])
                where = f"entry ({row + 1}, {col + 1})"
            raise ParseError(f"{where}: {error.message}") from None
    return np.array(values, dtype=np.float64).reshape(shape)


@dataclass(frozen=True, slots=True)
class Expression:
    """An instructor's formula, checked once and evaluated for many variable values."""

    text: str
    variables: frozenset[str]
    hint: str

    def evaluate(self, values: Mapping[str, float]) -> float:
        """Evaluate with these variable values, e.g. .evaluate({'x': 4}) → 8.0 for '2*x'."""
        names = dict(CONSTANTS)
        names.update({name: float(values[name]) for name in self.variables})
        return _evaluate(self.text, names, self.hint)


def compile_expression(text: str, variables: Iterable[str] = ()) -> Expression:
    """Check a formula over the given variable names; raise ParseError naming what is wrong."""
    if not isinstance(text, str):
        raise ParseError("the formula must be text")
    if len(text) > MAX_LENGTH:
        raise ParseError(f"the formula is too long (at most {MAX_LENGTH:,} characters)")
    variables = frozenset(variables)
    listed = ", ".join(sorted(variables)) or "none"
    hint = f"the variables are {listed}; you can also use sqrt, exp, ln, log, e, pi"
    normalised = _normalise(text).strip()
    if not normalised:
        raise ParseError("the formula is empty")
    _check_characters(normalised)
    _check_brackets(normalised)
    known = set(CONSTANTS) | variables
    _check_names(normalised, known, hint)
    try:
        tree = ast.parse(normalised, mode="eval").body
    except SyntaxError:
        raise ParseError(_syntax_message(normalised)) from None
    except (RecursionError, MemoryError, ValueError):
        raise ParseError("the formula is nested too deeply; simplify it") from None
    _check_tree(tree, known, hint)
    used = {match.group(1) for match in _TOKEN.finditer(normalised) if match.group(1)}
    return Expression(normalised, frozenset(used & variables), hint)


def format_number(value: float, sig: int = 6) -> str:
    """Shortest text for value with sig significant digits, e.g. format_number(1/3) → '0.333333'."""
    text = f"{float(value):.{sig}g}"
    return "0" if text == "-0" else text


def format_answer(value: npt.ArrayLike, sig: int = 6) -> str:
    """Text a learner could type for value, e.g. '0.123457', '[0.1, 0.2]' or '[[1, 2], [3, 4]]'."""
    array = np.asarray(value, dtype=np.float64)
    if array.ndim == 0:
        return format_number(float(array), sig)
    if array.ndim == 1:
        return "[" + ", ".join(format_number(x, sig) for x in array.tolist()) + "]"
    if array.ndim == 2:
        rows = ("[" + ", ".join(format_number(x, sig) for x in row) + "]" for row in array.tolist())
        return "[" + ", ".join(rows) + "]"
    raise ValueError(f"cannot format an array with {array.ndim} dimensions")
