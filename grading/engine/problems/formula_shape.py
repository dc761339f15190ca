"""The shape of a formula problem's answer: one formula for a number, a list of formulas for a
vector, a list of rows of formulas for a matrix; every mistake has the answer's shape.

    "shape": "vector", "answer": ["a + b", "a - b"]
    "shape": "matrix", "answer": [["a", "0"], ["0", "b"]]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from grading.engine.answers.layout import split_top
from grading.engine.i18n import gettext as _
from grading.engine.i18n import ngettext

SHAPES = ("number", "vector", "matrix")
MAX_ENTRIES = 100
ShapedFormula = str | list[str] | list[list[str]]


def shape_error(formula: object, shape: str) -> str | None:
    """Why formula is not written in the given shape, or None when it is."""
    if shape == "number":
        if isinstance(formula, str):
            return None
        return _("Give the answer as a formula, e.g. d_k * s^2.")
    if shape == "vector":
        if (
            isinstance(formula, list)
            and 0 < len(formula) <= MAX_ENTRIES
            and all(isinstance(entry, str) for entry in formula)
        ):
            return None
        return _("Give a vector as a list of 1 to %(count)s formulas, e.g. [a + b, a - b].") % {
            "count": MAX_ENTRIES
        }
    if (
        isinstance(formula, list)
        and formula
        and all(isinstance(row, list) and row for row in formula)
        and len({len(row) for row in formula}) == 1
        and len(formula) * len(formula[0]) <= MAX_ENTRIES
        and all(isinstance(entry, str) for row in formula for entry in row)
    ):
        return None
    return _(
        "Give a matrix as rows of formulas, each row as long, at most %(count)s entries, e.g. "
        "[[a, 0], [0, b]]."
    ) % {"count": MAX_ENTRIES}


def answer_request(shape: Sequence[int]) -> str:
    """The sentence under a vector or matrix problem's prompt, e.g. 'Give your answer as a
    vector of 3 numbers.'"""
    if len(shape) == 1:
        return ngettext(
            "Give your answer as a vector of %(size)s number.",
            "Give your answer as a vector of %(size)s numbers.",
            shape[0],
        ) % {"size": shape[0]}
    return _("Give your answer as a %(rows)s × %(columns)s matrix.") % {
        "rows": shape[0],
        "columns": shape[1],
    }


def dimensions(formula: ShapedFormula) -> tuple[int, ...]:
    """() for one formula, (n,) for a vector, (rows, columns) for a matrix."""
    if isinstance(formula, str):
        return ()
    if formula and isinstance(formula[0], list):
        return (len(formula), len(formula[0]))
    return (len(formula),)


def entries(formula: ShapedFormula) -> list[tuple[str, str]]:
    """Each formula with where it sits, for messages: "", "entry 2" or "row 1, entry 2"."""
    if isinstance(formula, str):
        return [("", formula)]
    if formula and isinstance(formula[0], list):
        return [
            (_("row %(row)s, entry %(entry)s") % {"row": i, "entry": j}, entry)
            for i, row in enumerate(formula, start=1)
            for j, entry in enumerate(row, start=1)
        ]
    return [
        (_("entry %(entry)s") % {"entry": i}, entry)
        for i, entry in enumerate(formula, start=1)  # type: ignore[misc]
    ]


def map_entries(formula: ShapedFormula, evaluate: Callable[[str], Any]) -> Any:
    """formula with each entry replaced by evaluate(entry), keeping its nesting."""
    if isinstance(formula, str):
        return evaluate(formula)
    return [map_entries(entry, evaluate) for entry in formula]  # type: ignore[arg-type]


def written(formula: ShapedFormula | Sequence[Any]) -> str:
    """The formula as an instructor would type it: 'a + b', '[a + b, a - b]', '[[a, 0], [0, b]]'."""
    if isinstance(formula, str):
        return formula
    return "[" + ", ".join(written(entry) for entry in formula) + "]"


def _split_top(text: str, separators: str) -> list[str]:
    return [part.strip() for part in split_top(text, separators)]


def _unbracket(text: str) -> str:
    """text without one pair of brackets around all of it: '[a, b]' → 'a, b'; '[a] + [b]' stays."""
    text = text.strip()
    if not (text.startswith("[") and text.endswith("]")):
        return text
    depth = 0
    for index, char in enumerate(text):
        depth += char in "(["
        depth -= char in ")]"
        if depth == 0 and index < len(text) - 1:
            return text  # the first bracket closes early
    return text[1:-1].strip()


def read_shaped(text: str, shape: str) -> ShapedFormula:
    """Text as an instructor types it in the given shape, e.g. '[a + b, a - b]' → ['a + b',
    'a - b']; '[[a, 0], [0, b]]' or 'a, 0; 0, b' → [['a', '0'], ['0', 'b']]. The entries are
    checked later, with the rest of the problem."""
    if shape == "number":
        return text.strip()
    inner = _unbracket(text)
    if shape == "vector":
        return _split_top(inner, ",;")
    rows = _split_top(inner, ",;\n") if "[" in inner else _split_top(inner, ";\n")
    return [_split_top(_unbracket(row), ",") for row in rows if row]
