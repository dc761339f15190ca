"""Variables' placeholders at the Moodle XML boundary: Moodle's `{name}`, softgrade's `{@name@}`.

Moodle shows a variable's value wherever `{name}` stands, inside a formula too; softgrade writes
`{@name@}` so that a LaTeX group such as `\\sqrt{d_k}` stays LaTeX (docs/formula-problems.md).
- In: each `{name}` of a variable becomes `{@name@}`, wherever it stands (that is what it
  meant in Moodle).
- Out: each `{@name@}` becomes `{name}`; a LaTeX group that names a variable (`\\sqrt{d_k}`) is
  written `{ d_k}`, which LaTeX reads the same and Moodle does not take for a placeholder (its
  names have no spaces).
Only the variables of the question take part; any other brace is text, as on both sides.

Today's mapped types (numerical, and formula problems with no variables) have none, so text
crosses unchanged; these are the one place a question with variables would cross.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_OURS = re.compile(r"\{@([A-Za-z][A-Za-z0-9_]*)@\}")
_MOODLE = re.compile(r"\{([A-Za-z][A-Za-z0-9_]*)\}")


def from_moodle(text: str, names: Iterable[str]) -> str:
    """Moodle text to softgrade's: `from_moodle("x = {x}", {"x"})` == "x = {@x@}"."""
    names = set(names)
    if not names:
        return text
    return _MOODLE.sub(lambda m: "{@" + m[1] + "@}" if m[1] in names else m[0], text)


def to_moodle(text: str, names: Iterable[str]) -> str:
    """softgrade text to Moodle's: `to_moodle("$\\\\sqrt{x} = {@x@}$", {"x"})` ==
    "$\\\\sqrt{ x} = {x}$"."""
    names = set(names)
    if not names:
        return text
    kept = _MOODLE.sub(lambda m: "{ " + m[1] + "}" if m[1] in names else m[0], text)
    return _OURS.sub(lambda m: "{" + m[1] + "}" if m[1] in names else m[0], kept)
