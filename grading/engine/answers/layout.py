"""Layout: which entries the learner wrote, row by row, checked against the expected shape.

A vector or matrix may be written with brackets, commas, semicolons, new lines or spaces; the
layout is worked out on the text, before any entry is evaluated.
"""

from __future__ import annotations

import re

from grading.engine.answers.errors import ParseError
from grading.engine.i18n import gettext as _
from grading.engine.i18n import ngettext

_DECIMAL_COMMA = re.compile(r"^\s*-?\d+,\d+\s*$")


def split_top(text: str, separators: str) -> list[str]:
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
    if text[0] == "(" and len(split_top(inner, ",")) < 2:
        return None  # plain grouping brackets around one expression
    return inner


def _split_spaces(row: str) -> list[str]:
    # Spaces separate entries unless they sit inside an operation: "1 - 2" is one entry,
    # "1 -2" is two, "sqrt (2)" is one.
    entries: list[str] = []
    for chunk in split_top(row, " \t\r"):
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
    parts = split_top(row, ",")
    if len(parts) > 1:
        if not parts[-1].strip():
            parts.pop()  # a trailing comma is harmless
        if any(not part.strip() for part in parts):
            raise ParseError(_("a number is missing between two commas"))
        return [part.strip() for part in parts]
    if spaces_separate:
        return _split_spaces(row.strip())
    return [row.strip()] if row.strip() else []


def layout(text: str, spaces_separate: bool) -> list[list[str]]:
    """Rows of entry texts: [[a, b], [c, d]], rows split by ';' or new lines, or a flat list."""
    text = text.strip()
    body = _list_body(text)
    if body is not None:
        items = split_top(body, ",")
        if items[-1].strip() == "" and len(items) > 1:
            items.pop()
        if all(_list_body(item.strip()) is not None for item in items):
            return [_row_entries(item, spaces_separate) for item in items]
        text = body
    rows = [row for row in split_top(text, ";\n") if row.strip()]
    return [_row_entries(row, spaces_separate) for row in rows]


def arrange(rows: list[list[str]], shape: tuple[int, ...], text: str) -> list[str]:
    """Check the layout against the expected shape; return entries in row-major order."""
    if not shape:
        entries = [entry for row in rows for entry in row]
        if len(entries) != 1:
            if _DECIMAL_COMMA.match(text):
                message = _(
                    "expected a single number, got %(count)s (write decimals with a point, e.g. "
                    "1.5, and no thousands separators)"
                )
            else:
                message = _("expected a single number, got %(count)s")
            raise ParseError(message % {"count": len(entries)})
        return entries
    if len(shape) == 1:
        (size,) = shape
        if len(rows) == 1:
            entries = rows[0]
        elif all(len(row) == 1 for row in rows):
            entries = [row[0] for row in rows]  # one number per line reads as a column
        else:
            raise ParseError(
                _("expected %(size)s numbers in a single list, got %(count)s rows")
                % {"size": size, "count": len(rows)}
            )
        if len(entries) != size:
            raise ParseError(
                ngettext(
                    "expected %(size)s numbers, got %(count)s",
                    "expected %(size)s numbers, got %(count)s",
                    size,
                )
                % {"size": size, "count": len(entries)}
            )
        return entries
    n_rows, n_cols = shape
    fields = {"rows": n_rows, "columns": n_cols, "count": len(rows)}
    if len(rows) != n_rows:
        raise ParseError(
            ngettext(
                "expected a %(rows)s×%(columns)s matrix, got %(count)s row",
                "expected a %(rows)s×%(columns)s matrix, got %(count)s rows",
                len(rows),
            )
            % fields
        )
    for index, row in enumerate(rows, start=1):
        if len(row) != n_cols:
            raise ParseError(
                ngettext(
                    "expected a %(rows)s×%(columns)s matrix, but row %(row)s has %(count)s entry",
                    "expected a %(rows)s×%(columns)s matrix, but row %(row)s has %(count)s entries",
                    len(row),
                )
                % {**fields, "row": index, "count": len(row)}
            )
    return [entry for row in rows for entry in row]
