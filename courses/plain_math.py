"""Text with $math$ as plain Unicode, for where MathML cannot go: a page's <title>.

`plain_math("why we divide by $\\sqrt{d_k}$")` is "why we divide by √dₖ": the formula is
converted as for the page (courses.markup.latex_to_tree), then read back as text, with Unicode
sub- and superscripts where every character has one ("dₖ", "x²", "Kᵀ") and "_(…)"/"^(…)"
otherwise, a fraction as "a/b", a root as "√x" or "√(…)". A formula that does not convert is
shown as its source, without the dollar signs.
"""

from __future__ import annotations

import functools
import re
import xml.etree.ElementTree as ET

from .markup import MATH_SPAN, MarkupError, latex_to_tree

_SUBSCRIPTS = dict(
    zip(
        "0123456789+−=()aehijklmnoprstuvxβγρφχ",
        "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ",
        strict=True,
    )
)
_SUPERSCRIPTS = dict(
    zip(
        "0123456789+−=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVWβγδθφχ",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵝᵞᵟᶿᵠᵡ",
        strict=True,
    )
)
# Operators written with a space on each side when they stand between two things.
_SPACED = frozenset("=+−±×·<>≤≥≈≠→∈")
_INVISIBLE = frozenset("\u2061\u2062\u2063\u2064")


def _tag(element: ET.Element) -> str:
    return element.tag.rsplit("}", 1)[-1]


def _script(text: str, table: dict[str, str], mark: str) -> str:
    if text and all(char in table for char in text):
        return "".join(table[char] for char in text)
    return f"{mark}{text}" if len(text) == 1 else f"{mark}({text})"


def _grouped(element: ET.Element) -> str:
    """An operand of / or √: in brackets when it is more than one thing."""
    text = _text(element)
    parts = list(element) if _tag(element) == "mrow" else [element]
    while len(parts) == 1 and _tag(parts[0]) == "mrow":
        parts = list(parts[0])
    return text if len(parts) <= 1 else f"({text})"


def _row(children: list[ET.Element]) -> str:
    out = []
    for index, child in enumerate(children):
        text = _text(child)
        binary = (
            _tag(child) == "mo"
            and text in _SPACED
            and child.get("form") != "prefix"
            and 0 < index < len(children) - 1
        )
        if binary:
            out.append(f" {text} ")
        elif _tag(child) == "mo" and text == ",":
            out.append(", ")
        else:
            out.append(text)
    return "".join(out)


def _text(element: ET.Element) -> str:
    tag = _tag(element)
    children = list(element)
    if tag in ("mi", "mn", "mo", "mtext"):
        text = element.text or ""
        return "" if text in _INVISIBLE else text
    if tag == "mspace":
        width = re.match(r"[\d.]+", element.get("width") or "0")
        return " " if width and float(width.group()) >= 0.5 else ""
    if tag in ("msub", "munder") and len(children) == 2:
        return _text(children[0]) + _script(_text(children[1]), _SUBSCRIPTS, "_")
    if tag in ("msup", "mover") and len(children) == 2:
        return _text(children[0]) + _script(_text(children[1]), _SUPERSCRIPTS, "^")
    if tag in ("msubsup", "munderover") and len(children) == 3:
        base, below, above = (_text(child) for child in children)
        return base + _script(below, _SUBSCRIPTS, "_") + _script(above, _SUPERSCRIPTS, "^")
    if tag == "mfrac" and len(children) == 2:
        return f"{_grouped(children[0])}/{_grouped(children[1])}"
    if tag == "msqrt":
        row = ET.Element("mrow")
        row.extend(children)
        return "√" + _grouped(row)
    if tag == "mroot" and len(children) == 2:
        return _script(_text(children[1]), _SUPERSCRIPTS, "") + "√" + _grouped(children[0])
    if tag == "mtable":
        return "[" + "; ".join(_text(row) for row in children) + "]"
    if tag == "mtr":
        return ", ".join(_text(cell) for cell in children)
    if tag == "mphantom":
        return ""
    return _row(children)


@functools.lru_cache(maxsize=1024)
def plain_math(text: str) -> str:
    """`text` with every $formula$ as plain Unicode text (see the module's docstring)."""

    def formula(match: re.Match[str]) -> str:
        latex = match.group("display") or match.group("inline")
        try:
            return _text(latex_to_tree(latex))
        except MarkupError:
            return latex

    return MATH_SPAN.sub(formula, text)
