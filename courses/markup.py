"""Markdown + LaTeX to HTML with MathML, rendered on the server (no script, no CDN).

Math spans are cut out before Markdown runs, so Markdown never mangles `_` or `*` inside formulas,
then converted with latex2mathml and put back. Raw HTML in the source is escaped: lesson text is
authored by instructors, but a stray `<` must never become markup on a learner's page.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import markdown
from django.utils.safestring import SafeString, mark_safe
from latex2mathml.converter import convert as latex_to_mathml

MATH_SPAN = re.compile(r"\$\$(?P<display>.+?)\$\$|(?<![\\$])\$(?P<inline>[^$\n]+?)\$", re.DOTALL)
TERM_LINK = re.compile(r"\[\[(?P<slug>[a-z0-9-]+)(?:\|(?P<text>[^\]]+))?\]\]")
# Markdown leaves these brackets alone, and lesson text has no reason to contain them.
_PLACEHOLDER = "⟦MATH{}⟧"
_PLACEHOLDER_RE = re.compile(r"⟦MATH(\d+)⟧")
_MATHML_NS = "{http://www.w3.org/1998/Math/MathML}"
# latex2mathml accepts anything; these element arities tell a broken \frac{1} from a good one.
_ARITY = {"mfrac": 2, "msub": 2, "msup": 2, "msubsup": 3, "mroot": 2, "munder": 2, "mover": 2}


class MarkupError(ValueError):
    """A formula or a key-term link that cannot be rendered; the message says which and why."""


@dataclass(frozen=True)
class MathSpan:
    latex: str
    display: bool


def _check_braces(latex: str) -> None:
    depth = 0
    for position, char in enumerate(latex):
        if char == "{" and (position == 0 or latex[position - 1] != "\\"):
            depth += 1
        elif char == "}" and (position == 0 or latex[position - 1] != "\\"):
            depth -= 1
            if depth < 0:
                raise MarkupError(f"unbalanced braces in ${latex}$: a '}}' closes nothing")
    if depth:
        raise MarkupError(f"unbalanced braces in ${latex}$: {depth} '{{' left open")


def latex_to_html(latex: str, *, display: bool = False) -> str:
    """Convert one formula to MathML, or raise MarkupError: `latex_to_html("d_k")`."""
    latex = latex.strip()
    if not latex:
        raise MarkupError("empty formula")
    _check_braces(latex)
    try:
        mathml = latex_to_mathml(latex, display="block" if display else "inline")
    except Exception as exc:  # latex2mathml raises many unrelated types for malformed input
        raise MarkupError(f"cannot convert ${latex}$: {type(exc).__name__} {exc}".strip()) from exc
    root = ET.fromstring(mathml)
    for element in root.iter():
        tag = element.tag.removeprefix(_MATHML_NS)
        if element.text and element.text.startswith("\\"):
            raise MarkupError(f"unknown command {element.text} in ${latex}$")
        if tag in _ARITY and len(element) != _ARITY[tag]:
            raise MarkupError(f"missing argument in ${latex}$ ({tag} needs {_ARITY[tag]} parts)")
    return mathml


def math_spans(text: str) -> list[MathSpan]:
    """Every formula in a Markdown text, in order."""
    spans = []
    for match in MATH_SPAN.finditer(text):
        if match.group("display") is not None:
            spans.append(MathSpan(match.group("display"), display=True))
        else:
            spans.append(MathSpan(match.group("inline"), display=False))
    return spans


def check_markup(text: str, *, term_slugs: set[str] | None = None) -> list[str]:
    """Every problem that would stop `render_markup` on this text; empty when it renders."""
    problems = []
    for span in math_spans(text):
        try:
            latex_to_html(span.latex, display=span.display)
        except MarkupError as exc:
            problems.append(str(exc))
    if term_slugs is not None:
        for match in TERM_LINK.finditer(text):
            if match.group("slug") not in term_slugs:
                problems.append(f"[[{match.group('slug')}]] links to no key term of this lesson")
    return problems


def render_markup(text: str, *, inline: bool = False) -> SafeString:
    """Markdown with $math$ and [[term]] links to safe HTML; raises MarkupError on a bad formula."""
    rendered: list[str] = []

    def stash(match: re.Match[str]) -> str:
        display = match.group("display") is not None
        latex = match.group("display") if display else match.group("inline")
        rendered.append(latex_to_html(latex, display=display))
        return _PLACEHOLDER.format(len(rendered) - 1)

    source = MATH_SPAN.sub(stash, text)
    source = html.escape(source, quote=False)
    source = TERM_LINK.sub(
        lambda m: (
            f'<a class="term-link" href="#term-{m.group("slug")}">'
            f"{m.group('text') or m.group('slug').replace('-', ' ')}</a>"
        ),
        source,
    )
    output = markdown.markdown(source, extensions=["sane_lists", "tables"], output_format="html")
    if inline and output.startswith("<p>") and output.endswith("</p>") and output.count("<p>") == 1:
        output = output[3:-4]
    output = _PLACEHOLDER_RE.sub(lambda m: rendered[int(m.group(1))], output)
    # A display formula alone in a paragraph should not sit inside <p>.
    output = re.sub(r"<p>(<math[^>]*display=\"block\".*?</math>)</p>", r"\1", output, flags=re.S)
    return mark_safe(output)
