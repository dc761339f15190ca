"""Question text between Moodle's formats and the lesson's Markdown with `$…$` math.

In: HTML (and `moodle_auto_format`, which allows HTML) becomes Markdown: paragraphs, line
breaks, bold, italic, code, lists, headings and links are kept; any other element keeps its
text and is named in `dropped`, and every file the text shows or links (an image, a sound, a
video, an object, a link to a file of the question) is named in `files` (the caller reports the
question and does not import it: a question that loses its figure asks something else).
MathJax delimiters `\\(…\\)`, `\\[…\\]` and `$$…$$` become `$…$` and `$$…$$` (display on its own
line). Plain text and Markdown are taken as they are.

Out: Markdown is rendered to plain HTML with the formulas left as TeX in `\\(…\\)` and `\\[…\\]`,
which MathJax typesets wherever the file is imported, then passed through the pages' sanitizer
(`courses.sanitizer.sanitize_html`): no element, attribute or URL scheme a page would refuse
leaves in a file.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

import markdown
from django.utils.translation import gettext as _

from ..markup import MATH_SPAN, TERM_LINK, sanitize_html
from .files import IMAGE, PLUGINFILE, FileRef, file_ref

_MATH_IN_HTML = re.compile(
    r"\\\((?P<inline>.+?)\\\)|\\\[(?P<display>.+?)\\\]|\$\$(?P<display2>.+?)\$\$", re.DOTALL
)
_BREAK = "⟦BR⟧"  # a line break: its two trailing spaces must outlive the stripping of lines
_MARKDOWN_SPECIAL = re.compile(r"([\\`*\[\]])|(?<!\w)_|_(?!\w)")
_INLINE = {"strong": "**", "b": "**", "em": "*", "i": "*", "code": "`", "tt": "`"}
_BLOCKS = {"p", "div", "blockquote", "pre", "table", "tr", "h1", "h2", "h3", "h4", "h5", "h6"}
# Wrappers whose loss changes nothing a learner reads.
_QUIET = {"span", "font", "body", "html", "thead", "tbody", "td", "th"}
_KEPT = {*_INLINE, *_QUIET, "br", "img", "p", "div", "ul", "ol", "li", "a", "script", "style"}
_KEPT |= {f"h{level}" for level in range(1, 7)}


@dataclass
class ConvertedText:
    markdown: str
    files: list[FileRef] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


def _escape(text: str) -> str:
    return _MARKDOWN_SPECIAL.sub(lambda m: "\\" + m.group(0), text)


def _plain_with_math(text: str) -> str:
    """Text of an HTML text node: whitespace collapsed, Markdown escaped, math kept as `$…$`."""
    out, position = [], 0
    for match in _MATH_IN_HTML.finditer(text):
        out.append(_escape(re.sub(r"\s+", " ", text[position : match.start()])))
        if match.group("inline") is not None:
            out.append(f"${match.group('inline').strip()}$")
        else:
            latex = (match.group("display") or match.group("display2")).strip()
            out.append(f"\n\n$${latex}$$\n\n")
        position = match.end()
    out.append(_escape(re.sub(r"\s+", " ", text[position:])))
    return "".join(out)


class _ToMarkdown(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.lists: list[list] = []  # per open list: [ordered, count]
        self.links: list[str] = []
        self.skip = 0
        self.files: list[FileRef] = []
        self.dropped: list[str] = []
        self.media: list[str] = []  # the open <audio> and <video> elements

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag in ("script", "style"):
            self.skip += 1
            self._drop(tag)
        elif tag == "img":
            if attributes.get("src"):
                self.files.append(file_ref(attributes["src"], element="img"))
            else:
                self.files.append(FileRef(attributes.get("alt") or _("with no address"), IMAGE))
        elif tag in ("audio", "video", "source", "track", "object", "embed"):
            if tag in ("audio", "video"):
                self.media.append(tag)
            address = attributes.get("data" if tag == "object" else "src")
            if address:
                element = tag if tag in ("audio", "video") else (self.media or [""])[-1]
                self.files.append(file_ref(address, element=element))
        elif tag in _INLINE:
            self.out.append(_INLINE[tag])
        elif tag == "br":
            self.out.append(_BREAK + "\n")
        elif tag in ("ul", "ol"):
            self.lists.append([tag == "ol", 0])
            self.out.append("\n\n")
        elif tag == "li" and self.lists:
            current = self.lists[-1]
            current[1] += 1
            marker = f"{current[1]}. " if current[0] else "- "
            self.out.append("\n" + "    " * (len(self.lists) - 1) + marker)
        elif tag == "a":
            self.links.append(attributes.get("href") or "")
            if self.links[-1].startswith(PLUGINFILE):
                self.files.append(file_ref(self.links[-1]))
            self.out.append("[")
        elif tag in _BLOCKS:
            self.out.append("\n\n")
            if tag[0] == "h" and tag[1:].isdigit():
                self.out.append("#" * int(tag[1]) + " ")
        if tag not in _KEPT:
            self._drop(tag)

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip = max(0, self.skip - 1)
        elif tag in ("audio", "video") and self.media:
            self.media.pop()
        elif tag in _INLINE:
            self.out.append(_INLINE[tag])
        elif tag in ("ul", "ol") and self.lists:
            self.lists.pop()
            self.out.append("\n\n")
        elif tag == "a" and self.links:
            self.out.append(f"]({self.links.pop()})")
        elif tag in _BLOCKS:
            self.out.append("\n\n")

    def handle_data(self, data):
        if not self.skip:
            self.out.append(_plain_with_math(data))

    def _drop(self, tag: str) -> None:
        if f"<{tag}>" not in self.dropped:
            self.dropped.append(f"<{tag}>")


def html_to_markdown(text: str, text_format: str) -> ConvertedText:
    """Moodle text in its declared format as the lesson's Markdown, with what did not map."""
    if text_format in ("plain_text", "markdown"):
        return ConvertedText(text.strip())
    if text_format == "moodle_auto_format":
        # Moodle's own format: HTML allowed, a blank line starts a paragraph, a newline breaks.
        paragraphs = re.split(r"\n\s*\n", text.replace("\r\n", "\n").strip())
        text = "".join(f"<p>{p.replace(chr(10), '<br>')}</p>" for p in paragraphs)
    parser = _ToMarkdown()
    parser.feed(text)
    parser.close()
    joined = "".join(parser.out)
    lines = [line.strip() if not line.startswith("    ") else line for line in joined.split("\n")]
    result = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip().replace(_BREAK, "  ")
    # Emphasis markers around nothing (an empty <b></b>) would render as stray asterisks.
    result = re.sub(r"\*\*\*\*|(?<!\*)\*\*(?!\*)(?=\s*$)", "", result)
    return ConvertedText(result, parser.files, parser.dropped)


CODE_SPAN = re.compile(r"<code>.*?</code>", re.DOTALL)
DOUBLE_ESCAPED = re.compile(r"&amp;(lt|gt|amp|quot);")


def markdown_to_html(text: str) -> str:
    """The lesson's Markdown as HTML for a Moodle XML file, formulas as TeX for MathJax."""
    formulas: list[str] = []

    def stash(match: re.Match[str]) -> str:
        if match.group("display") is not None:
            formulas.append(f"\\[{match.group('display').strip()}\\]")
        else:
            formulas.append(f"\\({match.group('inline')}\\)")
        return f"⟦MATH{len(formulas) - 1}⟧"

    source = html.escape(MATH_SPAN.sub(stash, text), quote=False)
    source = TERM_LINK.sub(lambda m: m.group("text") or m.group("slug").replace("-", " "), source)
    rendered = markdown.markdown(source, extensions=["sane_lists"], output_format="html")
    # Markdown escapes "&" inside a code span again, so the text escaped above reads "&amp;gt;"
    # there: undo that second escape, in code spans only.
    rendered = CODE_SPAN.sub(lambda m: DOUBLE_ESCAPED.sub(r"&\1;", m.group(0)), rendered)
    rendered = re.sub(
        r"⟦MATH(\d+)⟧", lambda m: html.escape(formulas[int(m.group(1))], quote=False), rendered
    )
    # The pages' own sanitizer, so the file carries nothing a page would not show: a Markdown
    # link to `javascript:` keeps its text and loses its address; an image is dropped.
    return sanitize_html(rendered)
