"""Markdown + LaTeX to HTML with MathML, rendered on the server (no script, no CDN), sanitized.

Math spans are cut out before Markdown runs, so Markdown never mangles `_` or `*` inside formulas,
then converted with latex2mathml and put back. Raw HTML in the source is escaped: lesson text is
authored by instructors, but a stray `<` must never become markup on a learner's page.

Escaping is not enough on its own: latex2mathml copies the text of `\\text{…}` into its output as
it is, and Markdown links take any URL. So every rendering ends in `sanitize_html`
(courses/sanitizer.py), an allowlist of what the renderer legitimately produces, applied by
nh3, a maintained HTML5 sanitizer.
The checks (`latex_to_html`, `check_markup`) refuse at authoring time what the sanitizer would
drop, so an instructor learns about it instead of a formula silently losing a part.

Rendering once: `convert_markup` is pure (source text in, HTML out), so `render_markup`, which
every page, API field and admin preview calls, keeps its results in a per-process memo keyed by
(RENDERER_VERSION, inline, source text), bounded by settings.MARKUP_MEMO_BYTES (courses/memo.py).
New text is a new key, so an edit shows at once, and there is nothing to invalidate. Behind the
memo, every worker shares what any of them rendered through Django's cache
(courses/render_cache.py), under the same key; docs/performance.md has the figures.

Each formula is converted once too (`formula_html`, a second memo keyed by (RENDERER_VERSION,
display, LaTeX), this process's only: a formula is too small to be worth a trip to the shared
cache): a worked solution is a new text for every learner's numbers, but most of its formulas
($\\sqrt{d_k}$, $q \\cdot k$) are the same for all of them, and converting a formula is most of
what rendering a text costs.
"""

from __future__ import annotations

import functools
import html
import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from urllib.parse import urlsplit

import markdown
from django.conf import settings
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from latex2mathml.converter import convert as latex_to_mathml
from markdown.extensions import Extension
from markdown.extensions.tables import TableExtension
from markdown.treeprocessors import Treeprocessor

from .memo import BoundedMemo
from .render_cache import shared_key, shared_render
from .sanitizer import (
    EXTERNAL_LINK_REL,
    MATHML_ATTRIBUTES,
    MATHML_TAGS,
    MATHML_VALUE,
    sanitize_html,
)
from .typesetting import MATHML_NAMESPACE, serialize, typeset

# Part of every memo key: raise it with any change that renders the same text differently (the
# allowlist, the extensions, the placeholders), so no worker serves HTML made the old way.
RENDERER_VERSION = 2

MATH_SPAN = re.compile(r"\$\$(?P<display>.+?)\$\$|(?<![\\$])\$(?P<inline>[^$\n]+?)\$", re.DOTALL)
TERM_LINK = re.compile(r"\[\[(?P<slug>[a-z0-9-]+)(?:\|(?P<text>[^\]]+))?\]\]")
# Markdown leaves these brackets alone, and lesson text has no reason to contain them.
_PLACEHOLDER = "⟦MATH{}⟧"
_PLACEHOLDER_RE = re.compile(r"⟦MATH(\d+)⟧")
_MATHML_NS = "{" + MATHML_NAMESPACE + "}"
# latex2mathml accepts anything; these element arities tell a broken \frac{1} from a good one.
_ARITY = {"mfrac": 2, "msub": 2, "msup": 2, "msubsup": 3, "mroot": 2, "munder": 2, "mover": 2}


class MarkupError(ValueError):
    """A formula or a key-term link that cannot be rendered; the message says which and why."""


@dataclass(frozen=True)
class MathSpan:
    latex: str
    display: bool


# ---------------------------------------------------------------------------------------------
# Formulas
# ---------------------------------------------------------------------------------------------


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


def _check_mathml(element: ET.Element, latex: str) -> None:
    """Refuse what the sanitizer would drop, naming it: HTML in \\text, links, styles."""
    tag = element.tag.removeprefix(_MATHML_NS)
    if tag not in MATHML_TAGS:
        raise MarkupError(f"HTML is not allowed in a formula: <{tag}> in ${latex}$")
    for name, value in element.attrib.items():
        if name.endswith("href"):
            raise MarkupError(
                f"links are not allowed in a formula (${latex}$): "
                "put a Markdown link [text](https://…) around it instead"
            )
        if (tag == "math" and name == "display") or (
            name in MATHML_ATTRIBUTES and MATHML_VALUE.fullmatch(value)
        ):
            continue
        shown = re.sub(r"^\{.*\}", "", name)
        raise MarkupError(f"${latex}$ sets {shown}={value!r}, which a formula may not carry")


def latex_to_html(latex: str, *, display: bool = False) -> str:
    """Convert one formula to MathML, or raise MarkupError: `latex_to_html("d_k")`."""
    return serialize(latex_to_tree(latex, display=display))


def latex_to_tree(latex: str, *, display: bool = False) -> ET.Element:
    """One formula as a checked, typeset MathML tree (its <math> element), or MarkupError."""
    latex = latex.strip()
    if not latex:
        raise MarkupError("empty formula")
    _check_braces(latex)
    try:
        mathml = latex_to_mathml(latex, display="block" if display else "inline")
    except Exception as exc:  # latex2mathml raises many unrelated types for malformed input
        raise MarkupError(f"cannot convert ${latex}$: {type(exc).__name__} {exc}".strip()) from exc
    try:
        root = ET.fromstring(mathml)
    except ET.ParseError as exc:
        # latex2mathml copies the text of \text{…} (and \mathrm{…}) as it is: a '<' or '&'
        # there is half a tag or half an entity.
        raise MarkupError(
            f"cannot convert ${latex}$: '<', '>' and '&' may not appear inside \\text{{…}} "
            "or \\mathrm{…}; write them outside, as in $a < b$"
        ) from exc
    for element in root.iter():
        _check_mathml(element, latex)
        tag = element.tag.removeprefix(_MATHML_NS)
        if element.text and element.text.startswith("\\"):
            raise MarkupError(f"unknown command {element.text} in ${latex}$")
        if tag in _ARITY and len(element) != _ARITY[tag]:
            raise MarkupError(f"missing argument in ${latex}$ ({tag} needs {_ARITY[tag]} parts)")
    return typeset(root)


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


# ---------------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------------


class _LinksAndImages(Treeprocessor):
    """Marks links that leave softgrade with EXTERNAL_LINK_REL; puts an image's alt text in its
    place (MARKDOWN_TAGS has no <img>)."""

    def run(self, root):
        for parent in root.iter():
            for index, image in reversed(list(enumerate(parent))):
                if image.tag != "img":
                    continue
                text = (image.get("alt") or "") + (image.tail or "")
                if index:
                    parent[index - 1].tail = (parent[index - 1].tail or "") + text
                else:
                    parent.text = (parent.text or "") + text
                parent.remove(image)
        for link in root.iter("a"):
            try:
                parts = urlsplit(link.get("href", ""))
                leaves = bool(parts.scheme or parts.netloc)
            except ValueError:  # e.g. "http://[": the sanitizer decides; mark it to be sure
                leaves = True
            if leaves:
                link.set("rel", EXTERNAL_LINK_REL)


class _LinksAndImagesExtension(Extension):
    def extendMarkdown(self, md):
        md.treeprocessors.register(_LinksAndImages(md), "links_and_images", 0)


def _escape_text(text: str) -> str:
    return html.escape(text, quote=False).replace("⟦", "&#x27E6;")


def convert_title(text: str) -> SafeString:
    """A title or a short label: its $math$ as MathML, everything else as escaped text (no
    Markdown: "2. Softmax" stays a title, not a list); MarkupError on a bad formula."""
    parts, position = [], 0
    for match in MATH_SPAN.finditer(text):
        display = match.group("display") is not None
        latex = match.group("display") if display else match.group("inline")
        parts += [html.escape(text[position : match.start()]), formula_html(latex)]
        position = match.end()
    parts.append(html.escape(text[position:]))
    return mark_safe(sanitize_html("".join(parts)))


def convert_markup(text: str, *, inline: bool = False) -> SafeString:
    """Markdown with $math$ and [[term]] links to sanitized HTML, rendered now (pure; every
    caller but the memo and its tests wants `render_markup`); MarkupError on a bad formula."""
    rendered: list[str] = []

    def stash(match: re.Match[str]) -> str:
        display = match.group("display") is not None
        latex = match.group("display") if display else match.group("inline")
        rendered.append(formula_html(latex, display=display))
        return _PLACEHOLDER.format(len(rendered) - 1)

    # Raw HTML in the text is escaped, and so is "⟦": only the placeholders made here hold one.
    parts, position = [], 0
    for match in MATH_SPAN.finditer(text):
        parts += [_escape_text(text[position : match.start()]), stash(match)]
        position = match.end()
    source = "".join([*parts, _escape_text(text[position:])])
    source = TERM_LINK.sub(
        lambda m: (
            f'<a class="term-link" href="#term-{m.group("slug")}">'
            f"{m.group('text') or m.group('slug').replace('-', ' ')}</a>"
        ),
        source,
    )
    output = markdown.markdown(
        source,
        extensions=[
            "sane_lists",
            TableExtension(use_align_attribute=True),  # align="…", so no style attribute
            _LinksAndImagesExtension(),
        ],
        output_format="html",
    )
    if inline and output.startswith("<p>") and output.endswith("</p>") and output.count("<p>") == 1:
        output = output[3:-4]
    output = _PLACEHOLDER_RE.sub(lambda m: rendered[int(m.group(1))], output)
    # A display formula alone in a paragraph should not sit inside <p>.
    output = re.sub(r"<p>(<math[^>]*display=\"block\".*?</math>)</p>", r"\1", output, flags=re.S)
    return mark_safe(sanitize_html(output))


@dataclass(frozen=True)
class _Unrenderable:
    """What the memo keeps for text that does not render: the message, not the exception (whose
    traceback would keep the failed call's frames alive)."""

    message: str


@functools.cache
def render_memo() -> BoundedMemo[SafeString | _Unrenderable]:
    """This process's memo of rendered markup, made at first use (MARKUP_MEMO_BYTES)."""
    return BoundedMemo(max_bytes=settings.MARKUP_MEMO_BYTES)


def _converted(convert) -> SafeString | _Unrenderable:
    try:
        return convert()
    except MarkupError as exc:
        return _Unrenderable(str(exc))


# Formulas are small and few (a lesson's texts hold a few hundred distinct ones; a worked
# solution's numbers add a few per learner), so an eighth of the texts' budget holds them all.
FORMULA_MEMO_SHARE = 8


@functools.cache
def formula_memo() -> BoundedMemo[str | _Unrenderable]:
    """This process's memo of converted formulas, made at first use (an eighth of
    MARKUP_MEMO_BYTES)."""
    return BoundedMemo(max_bytes=settings.MARKUP_MEMO_BYTES // FORMULA_MEMO_SHARE)


def formula_html(latex: str, *, display: bool = False) -> str:
    """`latex_to_html`, converted once per (renderer version, display, formula) in this
    process; MarkupError on a bad formula, each time it is asked."""
    return _render_once(
        display,
        latex,
        lambda: latex_to_html(latex, display=display),
        memo=formula_memo(),
        shared=False,
    )


def _render_once(
    kind: bool | str, text: str, convert, *, memo: BoundedMemo | None = None, shared: bool = True
):
    """`convert()`, done once per (renderer version, kind, text) in this process (in the memo
    of texts unless another is given), and read from the cache every worker shares before that
    (courses/render_cache.py) unless `shared` is False."""
    memo = render_memo() if memo is None else memo
    key = (RENDERER_VERSION, kind, text)
    outcome = memo.get(key)
    if outcome is None:
        if shared:
            key_shared = shared_key(version=RENDERER_VERSION, kind=kind, text=text)
            outcome = shared_render(key_shared, lambda: _converted(convert))
        else:
            outcome = _converted(convert)
        shown = outcome.message if isinstance(outcome, _Unrenderable) else outcome
        memo.put(key, outcome, size=sys.getsizeof(text) + sys.getsizeof(shown))
    if isinstance(outcome, _Unrenderable):
        raise MarkupError(outcome.message)
    return outcome


def render_markup(text: str, *, inline: bool = False) -> SafeString:
    """`convert_markup`, rendered once per (renderer version, inline, text) in this process."""
    return _render_once(inline, text, lambda: convert_markup(text, inline=inline))


def render_title(text: str) -> SafeString:
    """For titles, headings and short labels: `convert_title` once per text, or the source as
    escaped text when it cannot render (as `render_markup_or_plain`)."""
    try:
        return _render_once("title", text, lambda: convert_title(text))
    except MarkupError:
        return format_html("{}", text)


def render_markup_or_plain(text: str, *, inline: bool = False) -> SafeString:
    """For learners' pages: `render_markup`, or the source as escaped text when it cannot render.

    Every authoring path refuses text that does not render, but text stored before a check
    existed must still show (as written) instead of breaking the page.
    """
    try:
        return render_markup(text, inline=inline)
    except MarkupError:
        return format_html("{}", text) if inline else format_html("<p>{}</p>", text)
