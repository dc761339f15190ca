"""Placeholders of a formula problem's prompt and worked solution: `{@name@}` shows a variable.

`{@name@}` is written where a learner reads the drawn value: "standard deviation {@s@}",
"$d_k = {@d_k@}$". Nothing else in the text is touched. The syntax was chosen so that no LaTeX
and no Markdown can contain it (docs/formula-problems.md argues the choice): a brace group such
as `\\sqrt{d_k}` or `\\frac{a}{b}` stays LaTeX whatever the variables are called, where the old
`{name}` placeholders turned `$\\sqrt{d_k}$` into √64.

The old `{name}` syntax is recognised only to refuse it (`placeholder_errors`) and to convert
stored text (`placeholders_upgraded`): outside math a `{name}` naming a variable was a placeholder;
inside `$…$` it was one only as a bare group (`$d_k = {d_k}$`), while a command's or a script's
argument (`\\sqrt{d_k}`, `^{d_k}`, the `{b}` of `\\frac{a}{b}`) is LaTeX.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from grading.engine.answers import format_number
from grading.engine.i18n import gettext as _

PLACEHOLDER = re.compile(r"\{@([A-Za-z][A-Za-z0-9_]*)@\}")
# The old syntax, and anything that looks like a new placeholder but is not one ({@ d_k @}).
_OLD = re.compile(r"(?<!\\)\{([A-Za-z][A-Za-z0-9_]*)\}")
_MALFORMED = re.compile(r"\{@[^{}\n]{0,40}?@?\}")
# The markup renderer's math spans (courses.markup.MATH_SPAN; the engine imports no Django app).
_MATH = re.compile(r"\$\$(?P<display>.+?)\$\$|(?<![\\$])\$(?P<inline>[^$\n]+?)\$", re.DOTALL)
# What makes a brace group an argument: a command (\sqrt, \frac), a script (^ _), the end of a
# previous argument (} ]) or a prime (a'{…} is not LaTeX anyway).
_ARGUMENT_BEFORE = re.compile(r"(?:\\[A-Za-z]+\*?|[\^_}\]])\s*$")


def placeholder_syntax(name: str) -> str:
    """How a variable is shown: `placeholder_syntax("d_k")` == "{@d_k@}"."""
    return "{@" + name + "@}"


def placeholder_names(text: str) -> list[str]:
    """Every name a `{@name@}` of the text names, in order."""
    return PLACEHOLDER.findall(text)


def substitute_placeholders(
    text: str,
    values: Mapping[str, Any],
    decimals: Mapping[str, int] | None = None,
    decimal: str = ".",
) -> str:
    """text with each {@name@} of a variable replaced by its value (with the variable's fixed
    decimals if it has them, e.g. 0.50); everything else, braces included, stays. decimal: the
    page's separator, e.g. 0,50, written 0{,}50 inside $math$ (TeX's decimal comma)."""
    ranges = _math_ranges(text) if decimal != "." else []

    def _substitute(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            return match.group(0)
        if decimals and name in decimals:
            written = f"{values[name]:.{decimals[name]}f}"
        else:
            written = format_number(values[name])
        if decimal == ".":
            return written
        in_math = any(start <= match.start() < end for start, end in ranges)
        return written.replace(".", "{" + decimal + "}" if in_math else decimal)

    return PLACEHOLDER.sub(_substitute, text)


@dataclass(frozen=True)
class OldPlaceholder:
    """A `{name}` of the old syntax that names a variable and was shown as its value."""

    name: str
    start: int
    end: int
    in_math: bool


def _math_ranges(text: str) -> list[tuple[int, int]]:
    """(start, end) of every formula's LaTeX inside the text (without its dollar signs)."""
    ranges = []
    for match in _MATH.finditer(text):
        group = "display" if match.group("display") is not None else "inline"
        ranges.append((match.start(group), match.end(group)))
    return ranges


def old_placeholders(text: str, names: Iterable[str]) -> list[OldPlaceholder]:
    """The old-style `{name}` placeholders of a text: outside math, every `{name}` naming a
    variable; inside math, only such a bare group (not a command's or a script's argument)."""
    names = set(names)
    ranges = _math_ranges(text)
    found = []
    for match in _OLD.finditer(text):
        if match.group(1) not in names:
            continue
        formula = next((r for r in ranges if r[0] <= match.start() < r[1]), None)
        if formula is not None and _ARGUMENT_BEFORE.search(text[formula[0] : match.start()]):
            continue
        in_math = formula is not None
        found.append(OldPlaceholder(match.group(1), match.start(), match.end(), in_math))
    return found


def placeholders_upgraded(text: str, names: Iterable[str]) -> str:
    """text with each old-style placeholder (`old_placeholders`) written as {@name@}."""
    out, position = [], 0
    for old in old_placeholders(text, names):
        out += [text[position : old.start], placeholder_syntax(old.name)]
        position = old.end
    out.append(text[position:])
    return "".join(out)


def placeholder_errors(text: str, names: Iterable[str]) -> list[str]:
    """What is wrong with a text's placeholders, each said once: a {@name@} naming no variable,
    a malformed one, or a `{name}` of the old syntax that would show letters, not the value."""
    names = set(names)
    problems: list[str] = []

    def add(message: str) -> None:
        if message not in problems:
            problems.append(message)

    for name in placeholder_names(text):
        if name not in names:
            known = ", ".join(sorted(names)) or _("none")
            add(
                _("%(placeholder)s names no variable (the variables: %(known)s).")
                % {"placeholder": placeholder_syntax(name), "known": known}
            )
    for match in _MALFORMED.finditer(text):
        if not PLACEHOLDER.fullmatch(match.group(0)):
            add(
                _(
                    "%(text)s is not a placeholder: write {@name@} with a variable's name and "
                    "no spaces."
                )
                % {"text": match.group(0)}
            )
    for old in old_placeholders(text, names):
        new = placeholder_syntax(old.name)
        if old.in_math:
            add(
                _(
                    "{%(name)s} inside $…$ is a LaTeX group that shows the letters %(name)s, not "
                    "the value: write %(new)s to show the value, or drop the braces."
                )
                % {"name": old.name, "new": new}
            )
        else:
            add(
                _(
                    "{%(name)s} shows the text {%(name)s}: placeholders are written %(new)s (so a "
                    "LaTeX group such as \\sqrt{%(name)s} stays LaTeX)."
                )
                % {"name": old.name, "new": new}
            )
    return problems
