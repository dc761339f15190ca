"""Text clean-up before reading: the symbols learners type, the characters and brackets allowed."""

from __future__ import annotations

import re

from grading.engine.answers.errors import ALLOWED, ParseError
from grading.engine.i18n import gettext as _

MAX_LENGTH = 1000
# Bounds that keep hostile input cheap: the Python parser costs about a microsecond per token.
MAX_BRACKET_DEPTH = 20

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
BAD_CHARACTER = re.compile(r"[^0-9A-Za-z_.,;+\-*/()\[\] \t\r\n]")
_CLOSING = {")": "(", "]": "["}


def normalise(text: str) -> str:
    """Map the symbols learners type (−, ×, ·, ^, √, π, ²) onto plain arithmetic."""
    text = text.translate(_TRANSLATION)
    if "√" in text:
        text = _ROOT_AFTER_VALUE.sub("*√", text)
        text = _ROOT_BRACKET.sub("sqrt(", text)
        text = _ROOT_ATOM.sub(r"sqrt(\1)", text)
        if "√" in text:
            raise ParseError(_("put what √ applies to right after it, e.g. √2 or √(2/3)"))
    return text


def check_characters(text: str) -> None:
    bad = BAD_CHARACTER.search(text)
    if bad is None:
        return
    char = bad.group()
    if char in "'\"`":
        raise ParseError(_("text in quotes is not allowed; %(allowed)s") % {"allowed": ALLOWED})
    raise ParseError(
        _("the character %(char)s is not allowed; %(allowed)s")
        % {"char": repr(char), "allowed": ALLOWED}
    )


def check_brackets(text: str) -> None:
    stack: list[str] = []
    for char in text:
        if char in "([":
            stack.append(char)
            if len(stack) > MAX_BRACKET_DEPTH:
                raise ParseError(
                    _("too many nested brackets (at most %(depth)s levels)")
                    % {"depth": MAX_BRACKET_DEPTH}
                )
        elif char in ")]":
            if not stack:
                opening = _CLOSING[char]
                raise ParseError(
                    _("unbalanced brackets: '%(closing)s' has no matching '%(opening)s'")
                    % {"closing": char, "opening": opening}
                )
            opened = stack.pop()
            if opened != _CLOSING[char]:
                raise ParseError(
                    _("unbalanced brackets: '%(opening)s' is closed by '%(closing)s'")
                    % {"opening": opened, "closing": char}
                )
    if stack:
        raise ParseError(
            _("unbalanced brackets: '%(opening)s' is never closed") % {"opening": stack[-1]}
        )
