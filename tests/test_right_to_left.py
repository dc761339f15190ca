"""Right-to-left readiness that a file can show: stylesheets name sides logically (start and end),
and page scripts hand every sentence to Django's JavaScript catalog.

A physical side is allowed where the comment just above the rule says why ("physical").
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STYLESHEETS = sorted((ROOT / "static" / "css").glob("*.css"))
# The site's scripts and the apps' own (the LTI setup page's copy buttons).
SCRIPTS = sorted([*(ROOT / "static" / "js").glob("*.js"), *ROOT.glob("*/static/*/js/*.js")])

PHYSICAL = re.compile(
    r"(?<![-\w])(?:(?:margin|padding|border)-(?:left|right)\b"
    r"|(?:left|right)\s*:"
    r"|(?:text-align|float|clear)\s*:\s*(?:left|right)\b)"
)
COMMENT = re.compile(r"/\*.*?\*/", re.S)


def _physical_sides(text: str) -> list[str]:
    """The declarations naming a physical side, except in a rule whose comment (just above it,
    after the previous rule) calls it physical."""
    found = []
    for match in PHYSICAL.finditer(text):
        before = text[: match.start()]
        if before.rfind("/*") > before.rfind("*/"):
            continue  # words in a comment
        comments = list(COMMENT.finditer(before))
        explained = (
            comments
            and comments[-1].end() > before.rfind("}")
            and "physical" in comments[-1].group()
        )
        if not explained:
            line = text.count("\n", 0, match.start()) + 1
            found.append(f"line {line}: {text[match.start() : match.end() + 12].strip()}")
    return found


@pytest.mark.parametrize("sheet", STYLESHEETS, ids=lambda path: path.name)
def test_stylesheets_name_sides_logically(sheet):
    assert _physical_sides(sheet.read_text()) == []


def test_the_check_finds_a_physical_side_and_lets_an_explained_one_pass():
    assert _physical_sides(".a { margin-left: 1rem; text-align: right; }") != []
    assert _physical_sides(".a { margin-inline-start: 1rem; text-align: end; }") == []
    explained = "/* Centred: physical left and a transform. */\n.a { left: 50%; }"
    assert _physical_sides(explained) == []


# A quoted sentence (a capital letter, then a word) put on the page as it is, not through gettext.
BARE_SENTENCE = re.compile(
    r"(?:textContent\s*=|say\(|tell\(|paragraph\(|showOnPage\(|retry\()\s*\"[A-Za-z]+ "
)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_page_scripts_translate_what_they_show(script):
    text = script.read_text()
    assert BARE_SENTENCE.findall(text) == []
    for function in ("gettext", "ngettext", "pgettext", "interpolate"):
        if re.search(rf"(?<![\w.]){function}\(", text):
            # Without the catalog (a page that does not load it) the script runs in English.
            assert f"var {function} = window.{function} ||" in text, function
