"""How every misconception picker names an option (the question's choices, the formula form's
mistakes): code and plain-text title, since an option cannot hold MathML, and "(imported)" on a
placeholder an import made, which the pickers list after the lesson's own named ideas."""

from __future__ import annotations

from .models import Misconception
from .plain_math import plain_math

IMPORTED_MARK = " (imported)"


def misconception_label(misconception: Misconception) -> str:
    label = f"{misconception.code}: {plain_math(misconception.title)}"
    return label + IMPORTED_MARK if misconception.imported else label
