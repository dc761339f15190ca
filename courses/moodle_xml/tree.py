"""A small XML tree with line numbers, parsed without a DTD.

The standard library's parsers expand entities declared in a document's DTD, so a hostile file
can make a few kilobytes grow into gigabytes (the "billion laughs"). A question file never needs
a DTD, so any `<!DOCTYPE` is refused before an entity can be declared, as defusedxml's
`forbid_dtd` does; external entities are never fetched (expat does not, and there is no DTD to
name one). Expat reports the line of each start tag, which the located errors quote.

Limits keep a hostile or mistaken file from costing more than a few seconds and a few hundred MB
(the defaults, settings.MOODLE_XML_MAX_BYTES and MOODLE_XML_MAX_ELEMENTS, are far above any real
question file): a file over `max_bytes` is refused before it is parsed, and the parse, fed in
chunks, stops at the element or attribute that goes over `max_elements`, so no more than that
many are ever built; one tag (or comment) longer than MAX_MARKUP is refused too. Every refusal
names the line where its limit is crossed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from xml.parsers import expat

from django.utils.formats import number_format
from django.utils.translation import gettext as _

_CHUNK = 1 << 16
# Expat hands over a start tag only once it has read all of it, attributes and all: a tag of
# millions of attributes would cost seconds and hundreds of MB before the count could stop it.
# So the parse stops when this much input has gone by with nothing reported (a question file's
# longest tag is well under a kilobyte; a long text is reported piece by piece).
MAX_MARKUP = 1 << 20


class XmlRefused(ValueError):
    """Not well-formed XML, or XML this parser refuses (a DTD); `line` is where, when known."""

    def __init__(self, message: str, line: int | None = None):
        self.line = line
        super().__init__(message)


@dataclass(slots=True)  # no per-node __dict__: a large file builds many nodes
class Node:
    tag: str
    attrs: dict[str, str]
    line: int
    children: list[Node] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The text directly inside this element (CDATA included), not its children's."""
        return "".join(self.parts)

    def find(self, tag: str) -> Node | None:
        return next((child for child in self.children if child.tag == tag), None)

    def find_all(self, tag: str) -> list[Node]:
        return [child for child in self.children if child.tag == tag]

    def child_text(self, tag: str, default: str = "") -> str:
        """The text of a child `<tag>` or of its `<text>` child (Moodle writes both shapes)."""
        child = self.find(tag)
        if child is None:
            return default
        inner = child.find("text")
        return (inner.text if inner is not None else child.text).strip()

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            yield from child.walk()


def parse_xml(source: bytes, *, max_bytes: int, max_elements: int) -> Node:
    """The document's root element; XmlRefused with a line for anything else."""
    if len(source) > max_bytes:
        line = source[:max_bytes].count(b"\n") + 1
        raise XmlRefused(
            _("the file is larger than %(count)s bytes, the limit")
            % {"count": number_format(max_bytes, force_grouping=True)},
            line,
        )
    parser = expat.ParserCreate()
    # Adjacent text comes in one piece, not one per line: a text of many short lines is one string.
    parser.buffer_text = True
    stack: list[Node] = []
    roots: list[Node] = []
    count = 0
    reported = 0  # where the last element, text or comment reported began, in bytes

    def refuse_dtd(*args) -> None:
        raise XmlRefused(
            _("a DOCTYPE is not accepted in a question file"), parser.CurrentLineNumber
        )

    def refuse_entity(*args) -> None:
        raise XmlRefused(_("entity declarations are not accepted"), parser.CurrentLineNumber)

    def progress(*args) -> None:
        nonlocal reported
        reported = parser.CurrentByteIndex

    def start(tag: str, attrs: dict[str, str]) -> None:
        nonlocal count
        progress()
        count += 1 + len(attrs)
        if count > max_elements:
            message = _("the file has more than %(count)s elements and attributes, the limit") % {
                "count": number_format(max_elements, force_grouping=True)
            }
            raise XmlRefused(message, parser.CurrentLineNumber)
        node = Node(tag, attrs, parser.CurrentLineNumber)
        (stack[-1].children if stack else roots).append(node)
        stack.append(node)

    def end(tag: str) -> None:
        progress()
        stack.pop()

    def text(data: str) -> None:
        progress()
        if stack:
            stack[-1].parts.append(data)

    parser.StartDoctypeDeclHandler = refuse_dtd
    parser.EntityDeclHandler = refuse_entity
    parser.ExternalEntityRefHandler = refuse_entity
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    parser.CommentHandler = parser.ProcessingInstructionHandler = progress
    try:
        for position in range(0, len(source), _CHUNK):
            parser.Parse(source[position : position + _CHUNK], False)
            if position + _CHUNK - reported > MAX_MARKUP:
                line = source[: reported + MAX_MARKUP].count(b"\n") + 1
                message = _("a tag or comment runs over %(count)s bytes, the limit") % {
                    "count": number_format(MAX_MARKUP, force_grouping=True)
                }
                raise XmlRefused(message, line)
        parser.Parse(b"", True)
    except expat.ExpatError as exc:
        raise XmlRefused(
            _("not well-formed XML: %(error)s (column %(column)s)")
            % {"error": expat.ErrorString(exc.code), "column": exc.offset + 1},
            exc.lineno,
        ) from exc
    if not roots:
        raise XmlRefused(_("the file holds no XML element"))
    return roots[0]
