"""One expression: the syntax-tree check and its evaluation, for learners' entries and for
instructors' formulas (checked once, evaluated for many variable values).
"""

from __future__ import annotations

import ast
import keyword
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from grading.engine.answers.arithmetic import (
    CONSTANTS,
    FUNCTIONS,
    OPERATOR_SYMBOLS,
    OPERATORS,
    thread_evaluator,
)
from grading.engine.answers.errors import ALLOWED, EMPTY_MESSAGE, ParseError
from grading.engine.answers.formatting import format_count
from grading.engine.answers.text import (
    BAD_CHARACTER as _BAD_CHARACTER,
)
from grading.engine.answers.text import (
    MAX_LENGTH,
    check_brackets,
    check_characters,
    normalise,
)
from grading.engine.i18n import gettext as _

MAX_TREE_DEPTH = 60  # a bound that keeps hostile input cheap, like the text's bracket depth
_TOKEN = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|([A-Za-z_]\w*)")
_IMPLICIT_PRODUCT = re.compile(r"[\d.)]\s*[A-Za-z(]|\)\s*[\d.]")


def _syntax_message(text: str) -> str:
    snippet = text if len(text) <= 40 else text[:37] + "..."
    if _IMPLICIT_PRODUCT.search(text):
        return _("could not read '%(text)s': write multiplication with * or ×, e.g. 2*pi") % {
            "text": snippet
        }
    return _("could not read '%(text)s' as a number or expression") % {"text": snippet}


def _check_names(
    text: str, known: Iterable[str], unknown_hint: object, located: bool = False
) -> None:
    """Refuse the first unknown or reserved name; located: say at which column of text it is."""
    known_names = set(known)
    for match in _TOKEN.finditer(text):
        name = match.group(1)
        if name is None or name in known_names or name in FUNCTIONS:
            continue
        column = match.start(1) + 1
        fields = {"name": name, "column": column, "hint": unknown_hint}
        if keyword.iskeyword(name) or keyword.issoftkeyword(name):
            if located:
                message = _("'%(name)s' at column %(column)s is not allowed; %(hint)s")
            else:
                message = _("'%(name)s' is not allowed; %(hint)s")
        elif located:
            message = _("unknown name '%(name)s' at column %(column)s; %(hint)s")
        else:
            message = _("unknown name '%(name)s'; %(hint)s")
        raise ParseError(message % fields, column)


def _check_tree(tree: ast.expr, known: Iterable[str], unknown_hint: object) -> None:
    """Refuse every syntax-tree node that is not plain arithmetic on numbers."""
    known_names = set(known)
    stack: list[tuple[ast.AST, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_TREE_DEPTH:
            raise ParseError(_("the expression is nested too deeply; simplify it"))
        kind = type(node)
        if kind is ast.Constant:
            value = node.value  # type: ignore[attr-defined]
            if type(value) is complex:
                raise ParseError(_("complex numbers are not allowed"))
            if type(value) not in (int, float):
                raise ParseError(_("only numbers are allowed; %(hint)s") % {"hint": unknown_hint})
            try:
                finite = math.isfinite(float(value))
            except OverflowError:
                finite = False
            if not finite:
                raise ParseError(_("a number is too large to work with (the limit is about 1e308)"))
        elif kind is ast.Name:
            name = node.id  # type: ignore[attr-defined]
            if name in FUNCTIONS:
                raise ParseError(_("%(name)s needs brackets, e.g. %(name)s(2)") % {"name": name})
            if name not in known_names:
                raise ParseError(
                    _("unknown name '%(name)s'; %(hint)s") % {"name": name, "hint": unknown_hint}
                )
        elif kind is ast.BinOp:
            op = type(node.op)  # type: ignore[attr-defined]
            if op not in OPERATORS:
                symbol = OPERATOR_SYMBOLS.get(op, op.__name__)
                raise ParseError(
                    _("the operator %(symbol)s is not allowed; %(hint)s")
                    % {"symbol": symbol, "hint": unknown_hint}
                )
            stack.append((node.left, depth + 1))  # type: ignore[attr-defined]
            stack.append((node.right, depth + 1))  # type: ignore[attr-defined]
        elif kind is ast.UnaryOp:
            op = type(node.op)  # type: ignore[attr-defined]
            if op not in OPERATORS:
                symbol = OPERATOR_SYMBOLS.get(op, op.__name__)
                raise ParseError(
                    _("the operator %(symbol)s is not allowed; %(hint)s")
                    % {"symbol": symbol, "hint": unknown_hint}
                )
            stack.append((node.operand, depth + 1))  # type: ignore[attr-defined]
        elif kind is ast.Call:
            func = node.func  # type: ignore[attr-defined]
            if type(func) is not ast.Name:
                raise ParseError(
                    _("only sqrt, exp, ln and log can be called; %(hint)s") % {"hint": unknown_hint}
                )
            if func.id not in FUNCTIONS:
                if func.id in known_names:
                    raise ParseError(
                        f"'{func.id}' is a number, not a function: write {func.id}*(...)"
                    )
                raise ParseError(
                    _("unknown name '%(id)s'; %(hint)s") % {"id": func.id, "hint": unknown_hint}
                )
            args = node.args  # type: ignore[attr-defined]
            if node.keywords or len(args) != 1 or type(args[0]) is ast.Starred:  # type: ignore[attr-defined]
                raise ParseError(
                    _("%(id)s takes exactly one number, e.g. %(id)s(2)") % {"id": func.id}
                )
            stack.append((args[0], depth + 1))
        elif kind in (ast.List, ast.Tuple):
            raise ParseError(_("a list is not allowed inside a single number"))
        elif kind is ast.Attribute:
            raise ParseError(
                _("'.%(attr)s' is not allowed; %(hint)s")
                % {"attr": node.attr, "hint": unknown_hint}
            )  # type: ignore[attr-defined]
        elif kind is ast.Subscript:
            raise ParseError(
                _("indexing with [...] is not allowed; %(hint)s") % {"hint": unknown_hint}
            )
        else:
            raise ParseError(
                _("that kind of expression is not allowed; %(hint)s") % {"hint": unknown_hint}
            )


def evaluate_text(text: str, names: Mapping[str, float], unknown_hint: object = ALLOWED) -> float:
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
        raise ParseError(_("the expression is nested too deeply; simplify it")) from None
    _check_tree(tree, names, unknown_hint)
    evaluator = thread_evaluator()
    saved_names = evaluator.names
    if names is not CONSTANTS:
        evaluator.names = dict(names)
    try:
        result = evaluator.eval(text, previously_parsed=tree)
    except ParseError:
        raise
    except ZeroDivisionError:
        raise ParseError(_("division by zero")) from None
    except OverflowError:
        raise ParseError(_("the result is too large to work with")) from None
    except Exception:
        # The tree check leaves nothing that should fail here; never let an internal
        # exception reach the learner or the caller.
        raise ParseError(_syntax_message(text)) from None
    finally:
        evaluator.names = saved_names
    if isinstance(result, bool) or not isinstance(result, int | float):
        raise ParseError(_("could not read '%(text)s' as a number") % {"text": text[:40]})
    value = float(result)
    if math.isnan(value):
        raise ParseError(_("the result is not a number (it is undefined)"))
    if math.isinf(value):
        raise ParseError(_("the result is too large to work with (it is infinite)"))
    return value


class VariablesHint:
    """What a formula may use, e.g. "the variables are d_k, s; you can also use sqrt, …": written
    out (in the reader's language) only when a message needs it, as compiled formulas are cached
    across requests."""

    __slots__ = ("variables",)

    def __init__(self, variables: Iterable[str]) -> None:
        self.variables = tuple(sorted(variables))

    def __str__(self) -> str:
        listed = ", ".join(self.variables) or _("none")
        return _("the variables are %(listed)s; you can also use sqrt, exp, ln, log, e, pi") % {
            "listed": listed
        }

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VariablesHint) and other.variables == self.variables

    def __hash__(self) -> int:
        return hash(self.variables)


@dataclass(frozen=True, slots=True)
class Expression:
    """An instructor's formula, checked once and evaluated for many variable values."""

    text: str
    variables: frozenset[str]
    hint: VariablesHint

    def evaluate(self, values: Mapping[str, float]) -> float:
        """Evaluate with these variable values, e.g. .evaluate({'x': 4}) → 8.0 for '2*x'."""
        names = dict(CONSTANTS)
        names.update({name: float(values[name]) for name in self.variables})
        return evaluate_text(self.text, names, self.hint)


def _locate_characters(text: str, normalised: str) -> None:
    """check_characters, with the column of the refused character in the text as written."""
    try:
        check_characters(normalised)
    except ParseError:
        bad = _BAD_CHARACTER.search(normalised)
        column = text.find(bad.group()) + 1 if bad else 0
        if column < 1:
            raise
        char = bad.group()  # type: ignore[union-attr]
        if char in "'\"`":
            message = _("text in quotes at column %(column)s is not allowed; %(allowed)s")
        else:
            message = _("the character %(char)s at column %(column)s is not allowed; %(allowed)s")
        fields = {"char": repr(char), "column": column, "allowed": ALLOWED}
        raise ParseError(message % fields, column) from None


def compile_expression(text: str, variables: Iterable[str] = ()) -> Expression:
    """Check a formula over the given variable names; raise ParseError naming what is wrong."""
    if not isinstance(text, str):
        raise ParseError(_("the formula must be text"))
    if len(text) > MAX_LENGTH:
        raise ParseError(
            _("the formula is too long (at most %(count)s characters)")
            % {"count": format_count(MAX_LENGTH)}
        )
    variables = frozenset(variables)
    hint = VariablesHint(variables)
    known = set(CONSTANTS) | variables
    normalised = normalise(text).strip()
    if not normalised:
        raise ParseError(_("the formula is empty"))
    _locate_characters(text, normalised)
    # Names are found in the text as written, so the column is the one the instructor sees
    # (normalising turns ^ into ** and shifts what follows).
    _check_names(text, known, hint, located=True)
    check_brackets(normalised)
    try:
        tree = ast.parse(normalised, mode="eval").body
    except SyntaxError:
        raise ParseError(_syntax_message(normalised)) from None
    except (RecursionError, MemoryError, ValueError):
        raise ParseError(_("the formula is nested too deeply; simplify it")) from None
    _check_tree(tree, known, hint)
    used = {match.group(1) for match in _TOKEN.finditer(normalised) if match.group(1)}
    return Expression(normalised, frozenset(used & variables), hint)
