"""latex2mathml's MathML, adjusted so a browser spaces it as TeX would.

latex2mathml writes `\\operatorname{Var}` as `<mo>Var</mo>`, which MathML Core spaces like an
unknown infix operator (a thick space on each side: "Var (x)"), `\\mathrm{softmax}` as one
upright <mi> per letter, and a minus sign as `<mo>−</mo>` wherever it stands, so "(−0.6" gets
the medium spaces of a subtraction: "( − 0.6". TeX tells these apart by the atom before and
after; `typeset` does the same on the element tree, in place:

- a function name (`\\operatorname`, `\\mathrm` of two letters or more, `\\exp`, `\\log`…)
  becomes one `<mi>`, followed by `<mo>&#x2061;</mo>` (function application, no space) when an
  argument follows, plus a thin space when that argument is not in brackets (`\\log x`);
- a sign with nothing before it, or an operator or an opening bracket, is a prefix sign with no
  space around it (`-x`, `(-0.6`, `= -3`), as TeX's unary minus;
- a decimal comma written TeX's way, `0{,}5`, becomes one number, `<mn>0,5</mn>` (latex2mathml
  writes a number, a bracketed comma and a number: three atoms a browser spaces apart), and a
  `;` between such numbers is punctuation, not a letter;
- the scripts of a large operator (∑, ∏, ⋃…) become limits (`<munderover>` with
  movablelimits): under and over it in display math, beside it inline, as TeX does; names that
  take limits (`\\max`, `\\lim`…) get them under in display math.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

MATHML_NAMESPACE = "http://www.w3.org/1998/Math/MathML"
_NS = "{" + MATHML_NAMESPACE + "}"

FUNCTION_APPLICATION = "\u2061"
THIN_SPACE = "0.1667em"  # TeX's \, between an operator name and an unbracketed argument
_NAME = re.compile(r"[A-Za-z]{2,}")
_SIGNS = frozenset("−+±∓-")
_OPENING = frozenset("([{⟨⌊⌈")
_CLOSING = frozenset(")]}⟩⌋⌉")
_BARS = frozenset("|‖∣")
LARGE_OPERATORS = frozenset("∑∏∐⋀⋁⋂⋃⨀⨁⨂⨄⨆")
# Names TeX sets with limits under them in display math (\max_j: j under "max").
LIMIT_NAMES = frozenset(
    {"lim", "liminf", "limsup", "max", "min", "sup", "inf", "det", "gcd", "Pr", "argmax", "argmin"}
)
# Elements whose children are read in a row, like <mrow>'s (MathML's inferred mrow).
_ROWS = frozenset({"math", "mrow", "mstyle", "mtd", "msqrt", "mpadded", "mphantom", "menclose"})
_SCRIPTS = {"msub": "munder", "msup": "mover", "msubsup": "munderover"}


def _tag(element: ET.Element) -> str:
    return element.tag.removeprefix(_NS)


def _make(tag: str, text: str | None = None, **attributes: str) -> ET.Element:
    element = ET.Element(_NS + tag, attributes)
    element.text = text
    return element


def _name_of(element: ET.Element) -> str | None:
    """The function name this element spells, if it spells one: <mo>Var</mo>, <mi>exp</mi>, or
    \\mathrm's row of upright one-letter <mi>s."""
    tag = _tag(element)
    if tag in ("mi", "mo") and len(element) == 0 and _NAME.fullmatch(element.text or ""):
        return element.text
    if (
        tag == "mrow"
        and len(element) >= 2
        and all(
            _tag(letter) == "mi"
            and letter.get("mathvariant") == "normal"
            and len(letter) == 0
            and re.fullmatch(r"[A-Za-z]", letter.text or "")
            for letter in element
        )
    ):
        return "".join(letter.text for letter in element)
    return None


def _names_to_identifiers(root: ET.Element) -> None:
    for parent in root.iter():
        for index, child in enumerate(list(parent)):
            name = _name_of(child)
            if name is None:
                continue
            identifier = _make("mi", name)
            identifier.tail = child.tail
            parent[index] = identifier


def _is_name(element: ET.Element) -> bool:
    """A function name, alone or carrying scripts or limits (\\max_j, \\log_2)."""
    if _tag(element) in _SCRIPTS or _tag(element) in _SCRIPTS.values():
        element = element[0] if len(element) else element
    return _tag(element) == "mi" and _NAME.fullmatch(element.text or "") is not None


def _opens(element: ET.Element) -> bool:
    """An opening bracket, or a \\left…\\right row."""
    if _tag(element) == "mrow" and len(element):
        element = element[0]
    return _tag(element) == "mo" and (
        (element.text or "") in _OPENING or element.get("form") == "prefix" == element.get("fence")
    )


def _is_argument(element: ET.Element) -> bool:
    """What a function name can apply to: anything but an operator (=, +, a comma)."""
    return _tag(element) != "mo" or (element.text or "") in _OPENING


def _apply_functions(row: ET.Element) -> None:
    index = 0
    while index < len(row) - 1:
        following = row[index + 1]
        if _is_name(row[index]) and (_opens(following) or _is_argument(following)):
            inserted = [_make("mo", FUNCTION_APPLICATION)]
            if not _opens(following):
                inserted.append(_make("mspace", width=THIN_SPACE))
            for offset, element in enumerate(inserted, start=1):
                row.insert(index + offset, element)
            index += len(inserted)
        index += 1


def _signs_to_prefix(row: ET.Element) -> None:
    bars = 0  # |…|: an odd count before a sign means an absolute value was just opened
    previous = None
    for child in row:
        text = child.text or ""
        if _tag(child) == "mo" and text in _SIGNS and len(child) == 0:
            before = (previous.text or "") if previous is not None else ""
            binary = previous is not None and (
                _tag(previous) != "mo"
                or before in _CLOSING
                or previous.get("form") == "postfix"
                or (before in _BARS and bars % 2 == 0)
            )
            if not binary:
                child.set("form", "prefix")
                child.set("lspace", "0")
                child.set("rspace", "0")
        if _tag(child) == "mo" and text in _BARS:
            bars += 1
        previous = child


def _is_braced_comma(element: ET.Element) -> bool:
    """`{,}`: a row holding only a comma."""
    return (
        _tag(element) == "mrow"
        and len(element) == 1
        and _tag(element[0]) == "mo"
        and element[0].text == ","
        and len(element[0]) == 0
    )


def _decimal_commas(row: ET.Element) -> None:
    """<mn>0</mn><mrow><mo>,</mo></mrow><mn>5</mn> (TeX's 0{,}5) → <mn>0,5</mn>; the `;` that
    separates entries beside decimal commas is punctuation (<mo>), not an identifier."""
    for child in row:
        if _tag(child) == "mi" and child.text == ";" and len(child) == 0:
            child.tag = _NS + "mo"
    index = 0
    while index < len(row) - 2:
        number, comma, digits = row[index], row[index + 1], row[index + 2]
        if _tag(number) == "mn" and _is_braced_comma(comma) and _tag(digits) == "mn":
            number.text = f"{number.text or ''},{digits.text or ''}"
            row.remove(comma)
            row.remove(digits)
            continue
        index += 1


def _limits(element: ET.Element, *, display: bool) -> None:
    scripts = _SCRIPTS.get(_tag(element))
    if scripts is None or not len(element):
        return
    base = element[0]
    large = _tag(base) == "mo" and (base.text or "") in LARGE_OPERATORS
    named = _tag(base) == "mi" and (base.text or "") in LIMIT_NAMES
    if large:
        base.set("movablelimits", "true")
    if large or (named and display):
        element.tag = _NS + scripts


def typeset(root: ET.Element) -> ET.Element:
    """Adjust one converted formula (its <math> element) in place; returns it."""
    display = root.get("display") == "block"
    _names_to_identifiers(root)
    for element in list(root.iter()):
        _limits(element, display=display)
        if _tag(element) in _ROWS:
            _decimal_commas(element)
            _apply_functions(element)
            _signs_to_prefix(element)
    return root


def serialize(root: ET.Element) -> str:
    """The formula as MathML text, the namespace declared once on <math> (as latex2mathml
    writes it; ElementTree would otherwise prefix every tag with ns0:)."""
    for element in root.iter():
        element.tag = _tag(element)
    root.attrib = {"xmlns": MATHML_NAMESPACE, **root.attrib}
    return ET.tostring(root, encoding="unicode")
