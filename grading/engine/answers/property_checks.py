"""The language of the property checks instructors write about a learner's answer.

A check is one or more comparisons, or a yes-or-no function on its own:

    sum(x) = 1        x >= 0        0 <= x <= 1        rowsums(x) = 0        x[1] > x[2]
    x[i, j] < d_k     symmetric(x)  max(abs(x)) <= sqrt(d_k)

x is the learner's answer (a number, a vector or a matrix); the problem's variables, e and pi
are numbers. Entries count from 1, as learners count (x[1] is the first), and an index may be
a variable or arithmetic on variables that comes to a whole number. Arithmetic is the
learner's own (arithmetic.py, with its guards), applied entry by entry; a number combines with
a vector or a matrix, two arrays only when they have the same dimensions.

A comparison between arrays holds when it holds for every entry (`x >= 0`: every entry);
`!=` holds when some entry differs. `=`, `!=`, `<=` and `>=` allow the problem's tolerance:
a = b when |a - b| <= max(atol, rtol * m), where m is the larger of |a|, |b| and the largest
entry of x (so `rowsums(x) = 0` holds for rows that cancel to within the tolerance of the
answer's size); `<` and `>` are strict. Nothing here is Python's eval: the text is parsed into
a syntax tree whose nodes are checked one by one, and only those below are evaluated.
"""

from __future__ import annotations

import ast
import itertools
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from grading.engine.answers.arithmetic import CONSTANTS, FUNCTIONS, OPERATORS
from grading.engine.answers.errors import ParseError
from grading.engine.answers.expressions import MAX_TREE_DEPTH
from grading.engine.answers.formatting import format_count
from grading.engine.answers.text import MAX_LENGTH, check_brackets, normalise
from grading.engine.checks import Tolerance
from grading.engine.i18n import gettext as _
from grading.engine.i18n import gettext_noop

ANSWER = "x"
Shape = tuple[int, ...]
Value = float | npt.NDArray[np.float64]

# name → (what it needs, what it gives); every element-wise function keeps its operand's shape.
REDUCERS = ("sum", "min", "max")
SHAPED = {
    "rowsums": gettext_noop("a matrix"),
    "colsums": gettext_noop("a matrix"),
    "diag": gettext_noop("a square matrix"),
}
ELEMENTWISE = ("abs", *FUNCTIONS)
PREDICATES = {"symmetric": gettext_noop("a square matrix")}
CHECK_FUNCTIONS = frozenset((*REDUCERS, *SHAPED, *ELEMENTWISE, *PREDICATES))
_COMPARISON = re.compile(r"<=|>=|!=|==|≤|≥|≠|=|<|>")
_SYMBOLS = {"≤": "<=", "≥": ">=", "≠": "!=", "==": "="}
_ALLOWED_CHARACTERS = re.compile(r"[^0-9A-Za-z_.,+\-*/()\[\] \t]")


def _describe(shape: Shape) -> str:
    if not shape:
        return "a number"
    if len(shape) == 1:
        return _("a vector of %(size)s") % {"size": shape[0]}
    return _("a %(rows)s × %(columns)s matrix") % {"rows": shape[0], "columns": shape[1]}


def _hint(variables: frozenset[str]) -> str:
    listed = ", ".join(sorted(variables)) or _("none")
    return _("x is the answer, the variables are %(listed)s; the functions are %(functions)s") % {
        "listed": listed,
        "functions": ", ".join(sorted(CHECK_FUNCTIONS)),
    }


@dataclass(frozen=True, slots=True)
class _Part:
    """One side of a comparison: its syntax tree (already checked) and its shape."""

    tree: ast.expr
    shape: Shape


class _Shapes:
    """Checks a side's syntax tree against the answer's shape, node by node, without values."""

    def __init__(self, answer: Shape, variables: frozenset[str]) -> None:
        self.answer = answer
        self.variables = variables
        self.hint = _hint(variables)

    def of(self, node: ast.expr, top: bool = False) -> Shape:
        kind = type(node)
        if kind is ast.Constant:
            value = node.value  # type: ignore[attr-defined]
            if type(value) not in (int, float) or not math.isfinite(float(value)):
                raise ParseError(_("only numbers are allowed; %(hint)s") % {"hint": self.hint})
            return ()
        if kind is ast.Name:
            name = node.id  # type: ignore[attr-defined]
            if name == ANSWER:
                return self.answer
            if name in self.variables or name in CONSTANTS:
                return ()
            if name in CHECK_FUNCTIONS:
                raise ParseError(_("%(name)s needs brackets, e.g. %(name)s(x)") % {"name": name})
            raise ParseError(
                _("unknown name '%(name)s'; %(hint)s") % {"name": name, "hint": self.hint}
            )
        if kind is ast.BinOp:
            if type(node.op) not in OPERATORS:  # type: ignore[attr-defined]
                raise ParseError(_("that operator is not allowed; %(hint)s") % {"hint": self.hint})
            return self._together(self.of(node.left), self.of(node.right))  # type: ignore[attr-defined]
        if kind is ast.UnaryOp:
            if type(node.op) not in OPERATORS:  # type: ignore[attr-defined]
                raise ParseError(_("that operator is not allowed; %(hint)s") % {"hint": self.hint})
            return self.of(node.operand)  # type: ignore[attr-defined]
        if kind is ast.Call:
            return self._call(node, top)  # type: ignore[arg-type]
        if kind is ast.Subscript:
            return self._index(node)  # type: ignore[arg-type]
        if kind in (ast.List, ast.Tuple):
            raise ParseError(_("a list is not allowed here; compare entries with x[1], x[2]"))
        raise ParseError(
            _("that kind of expression is not allowed; %(hint)s") % {"hint": self.hint}
        )

    def _together(self, left: Shape, right: Shape) -> Shape:
        if left and right and left != right:
            raise ParseError(
                _("cannot combine %(left)s with %(right)s")
                % {"left": _describe(left), "right": _describe(right)}
            )
        return left or right

    def _call(self, node: ast.Call, top: bool) -> Shape:
        func = node.func
        if type(func) is not ast.Name:
            raise ParseError(
                _("only the check's functions can be called; %(hint)s") % {"hint": self.hint}
            )
        if func.id not in CHECK_FUNCTIONS:
            raise ParseError(
                _("unknown function '%(id)s'; %(hint)s") % {"id": func.id, "hint": self.hint}
            )
        name = func.id
        if node.keywords or not node.args or any(type(a) is ast.Starred for a in node.args):
            raise ParseError(
                _("%(name)s takes what it applies to in brackets, e.g. %(name)s(x)")
                % {"name": name}
            )
        if name in REDUCERS:
            for arg in node.args:
                self.of(arg)
            return ()
        if len(node.args) != 1:
            raise ParseError(
                _("%(name)s takes exactly one argument, e.g. %(name)s(x)") % {"name": name}
            )
        shape = self.of(node.args[0])
        if name in ELEMENTWISE:
            return shape
        needs = SHAPED.get(name) or PREDICATES[name]
        square = "square" in needs
        if len(shape) != 2 or (square and shape[0] != shape[1]):
            raise ParseError(
                _("%(name)s needs %(needs)s, not %(shape)s")
                % {"name": name, "needs": _(needs), "shape": _describe(shape)}
            )
        if name in PREDICATES:
            if not top:
                raise ParseError(
                    _("%(name)s(...) is a yes-or-no check: write it as the whole check")
                    % {"name": name}
                )
            return ()
        return (shape[1],) if name == "colsums" else (shape[0],)

    def _index(self, node: ast.Subscript) -> Shape:
        shape = self.of(node.value)
        indices = list(node.slice.elts) if type(node.slice) is ast.Tuple else [node.slice]
        if not shape:
            raise ParseError(
                _("a number has no entries to index: [...] needs a vector or a matrix")
            )
        if len(indices) != len(shape):
            wanted = "[i]" if len(shape) == 1 else "[i, j]"
            raise ParseError(
                _("index %(shape)s as %(wanted)s, counting from 1")
                % {"shape": _describe(shape), "wanted": wanted}
            )
        for index, size in zip(indices, shape, strict=True):
            if type(index) is ast.Slice or self.of(index):
                raise ParseError(_("an index is one whole number, counting from 1, e.g. x[2]"))
            if type(index) is ast.Constant and not (
                float(index.value).is_integer() and 1 <= index.value <= size
            ):
                raise ParseError(
                    _("index %(index)s is out of range for %(shape)s: use 1 to %(size)s")
                    % {"index": index.value, "shape": _describe(shape), "size": size}
                )
        return ()


def _elementwise(function: Callable[..., float], *operands: Value) -> Value:
    """The learner's guarded scalar arithmetic, entry by entry (answers hold at most 100)."""
    if all(np.ndim(operand) == 0 for operand in operands):
        return function(*(float(operand) for operand in operands))
    arrays = np.broadcast_arrays(*(np.asarray(operand, dtype=np.float64) for operand in operands))
    flat = [function(*entry) for entry in zip(*(a.ravel().tolist() for a in arrays), strict=True)]
    return np.array(flat, dtype=np.float64).reshape(arrays[0].shape)


def _finite(value: Value) -> Value:
    if not np.isfinite(value).all():
        raise ParseError(_("the result is too large to work with"))
    return value


class _Values:
    """Evaluates a checked side with the answer and the variables' values."""

    def __init__(self, answer: Value, values: Mapping[str, float]) -> None:
        self.answer = answer
        self.values = values

    def of(self, node: ast.expr) -> Value:
        kind = type(node)
        if kind is ast.Constant:
            return float(node.value)  # type: ignore[attr-defined]
        if kind is ast.Name:
            name = node.id  # type: ignore[attr-defined]
            if name == ANSWER:
                return self.answer
            return float(self.values[name]) if name in self.values else CONSTANTS[name]
        if kind is ast.BinOp:
            operator = OPERATORS[type(node.op)]  # type: ignore[attr-defined]
            return _elementwise(operator, self.of(node.left), self.of(node.right))  # type: ignore[attr-defined]
        if kind is ast.UnaryOp:
            operator = OPERATORS[type(node.op)]  # type: ignore[attr-defined]
            return _elementwise(operator, self.of(node.operand))  # type: ignore[attr-defined]
        if kind is ast.Subscript:
            return self._index(node)  # type: ignore[arg-type]
        return self._call(node)  # type: ignore[arg-type]

    def _index(self, node: ast.Subscript) -> Value:
        array = np.asarray(self.of(node.value))
        indices = list(node.slice.elts) if type(node.slice) is ast.Tuple else [node.slice]
        place = []
        for index, size in zip(indices, array.shape, strict=True):
            number = float(self.of(index))
            if not number.is_integer() or not 1 <= number <= size:
                raise ParseError(
                    _("index %(index)s is out of range: use 1 to %(size)s")
                    % {"index": f"{number:g}", "size": size}
                )
            place.append(int(number) - 1)
        return float(array[tuple(place)])

    def _call(self, node: ast.Call) -> Value:
        name = node.func.id  # type: ignore[attr-defined]
        args = [self.of(arg) for arg in node.args]
        if name == "sum":
            return float(_finite(np.sum(args[0])))
        if name in ("min", "max"):
            entries = np.concatenate([np.ravel(arg) for arg in args])
            return float(entries.min() if name == "min" else entries.max())
        if name == "abs":
            return _elementwise(abs, args[0])
        if name in FUNCTIONS:
            return _elementwise(FUNCTIONS[name], args[0])
        array = np.asarray(args[0])
        if name == "rowsums":
            return _finite(array.sum(axis=1))
        if name == "colsums":
            return _finite(array.sum(axis=0))
        return np.diag(array).astype(np.float64)


@dataclass(frozen=True, slots=True)
class PropertyCheck:
    """An instructor's check, parsed once and checked against the answer's shape."""

    text: str
    parts: tuple[_Part, ...]
    operators: tuple[str, ...]

    def holds(self, answer: Value, values: Mapping[str, float], tolerance: Tolerance) -> bool:
        """Whether the answer has the property; ParseError when it cannot be evaluated for
        this answer (a square root of a negative entry, an index a variable puts out of range)."""
        evaluator = _Values(answer, values)
        scale = float(np.max(np.abs(answer))) if np.size(answer) else 0.0
        if not self.operators:
            matrix = np.asarray(evaluator.of(self.parts[0].tree.args[0]))  # type: ignore[attr-defined]
            return _compare(matrix, "=", matrix.T, tolerance, scale)
        sides = [evaluator.of(part.tree) for part in self.parts]
        return all(
            _compare(sides[i], operator, sides[i + 1], tolerance, scale)
            for i, operator in enumerate(self.operators)
        )


def _compare(left: Value, operator: str, right: Value, tol: Tolerance, scale: float) -> bool:
    a, b = np.asarray(left, dtype=np.float64), np.asarray(right, dtype=np.float64)
    allowed = np.maximum(tol.atol, tol.rtol * np.maximum(np.maximum(np.abs(a), np.abs(b)), scale))
    if operator == "<":
        return bool((a < b).all())
    if operator == ">":
        return bool((a > b).all())
    if operator == "<=":
        return bool((a <= b + allowed).all())
    if operator == ">=":
        return bool((a >= b - allowed).all())
    equal = bool((np.abs(a - b) <= allowed).all())
    return equal if operator == "=" else not equal


def _split(text: str) -> tuple[list[str], list[str]]:
    """The sides and the comparison operators between them, as written."""
    sides, operators, start = [], [], 0
    for match in _COMPARISON.finditer(text):
        before = text[: match.start()]
        if before.count("(") + before.count("[") != before.count(")") + before.count("]"):
            continue  # inside brackets: not a comparison of the check (the reader refuses it)
        sides.append(text[start : match.start()])
        operators.append(_SYMBOLS.get(match.group(), match.group()))
        start = match.end()
    sides.append(text[start:])
    return sides, operators


def _parse_side(text: str, number: int, count: int) -> ast.expr:
    where = "" if count == 1 else _(" (side %(number)s)") % {"number": number}
    side = normalise(text).strip()
    if not side:
        raise ParseError(_("a comparison needs something on each side%(where)s") % {"where": where})
    bad = _ALLOWED_CHARACTERS.search(side)
    if bad is not None:
        raise ParseError(
            _("the character %(char)s is not allowed in a check%(where)s")
            % {"char": repr(bad.group()), "where": where}
        )
    check_brackets(side)
    try:
        tree = ast.parse(side, mode="eval").body
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        raise ParseError(
            _("could not read '%(text)s'%(where)s as an expression")
            % {"text": side[:40], "where": where}
        ) from None
    stack: list[tuple[ast.AST, int]] = [(tree, 1)]
    while stack:  # the walkers below recurse: keep hostile nesting cheap, as for formulas
        node, depth = stack.pop()
        if depth > MAX_TREE_DEPTH:
            raise ParseError(
                _("the check is nested too deeply%(where)s; simplify it") % {"where": where}
            )
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return tree


def compile_check(text: object, variables: frozenset[str], answer: Shape) -> PropertyCheck:
    """Parse and check a property check for an answer of this shape, e.g.
    compile_check('sum(x) = 1', frozenset(), (3,)); ParseError says what is wrong."""
    if not isinstance(text, str) or not text.strip():
        raise ParseError(_("write the check, e.g. sum(x) = 1 or x >= 0"))
    if len(text) > MAX_LENGTH:
        raise ParseError(
            _("the check is too long (at most %(count)s characters)")
            % {"count": format_count(MAX_LENGTH)}
        )
    if ANSWER in variables:
        raise ParseError(_("a variable is named x, which in a check is the answer: rename it"))
    check_brackets(normalise(text))
    sides, operators = _split(text)
    shapes = _Shapes(answer, variables)
    parts = []
    for number, side in enumerate(sides, start=1):
        tree = _parse_side(side, number, len(sides))
        parts.append(_Part(tree, shapes.of(tree, top=not operators)))
    if not operators:
        tree = parts[0].tree
        if not (type(tree) is ast.Call and tree.func.id in PREDICATES):  # type: ignore[attr-defined]
            raise ParseError(
                "a check compares (=, !=, <, <=, >, >=), e.g. sum(x) = 1, or is symmetric(x)"
            )
    for left, right in itertools.pairwise(parts):
        if left.shape and right.shape and left.shape != right.shape:
            raise ParseError(
                _("cannot compare %(left)s with %(right)s")
                % {"left": _describe(left.shape), "right": _describe(right.shape)}
            )
    return PropertyCheck(text, tuple(parts), tuple(operators))
