"""A small XML tree with line numbers, parsed without a DTD.

The standard library's parsers expand entities declared in a document's DTD, so a hostile file
can make a few kilobytes grow into gigabytes (the "billion laughs"). A question file never needs
a DTD, so any `<!DOCTYPE` is refused before an entity can be declared, as defusedxml's
`forbid_dtd` does; external entities are never fetched (expat does not, and there is no DTD to
name one). Expat reports the line of each start tag, which the located errors quote.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from xml.parsers import expat

MAX_BYTES = 20 * 1024 * 1024  # a file of thousands of questions is well under this


class XmlRefused(ValueError):
    """Not well-formed XML, or XML this parser refuses (a DTD); `line` is where, when known."""

    def __init__(self, message: str, line: int | None = None):
        self.line = line
        super().__init__(message)


@dataclass
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


def parse_xml(source: bytes) -> Node:
    """The document's root element; XmlRefused with a line for anything else."""
    if len(source) > MAX_BYTES:
        raise XmlRefused(f"the file is larger than {MAX_BYTES // (1024 * 1024)} MB")
    parser = expat.ParserCreate()
    stack: list[Node] = []
    roots: list[Node] = []

    def refuse_dtd(*args) -> None:
        raise XmlRefused("a DOCTYPE is not accepted in a question file", parser.CurrentLineNumber)

    def refuse_entity(*args) -> None:
        raise XmlRefused("entity declarations are not accepted", parser.CurrentLineNumber)

    def start(tag: str, attrs: dict[str, str]) -> None:
        node = Node(tag, attrs, parser.CurrentLineNumber)
        (stack[-1].children if stack else roots).append(node)
        stack.append(node)

    def end(tag: str) -> None:
        stack.pop()

    def text(data: str) -> None:
        if stack:
            stack[-1].parts.append(data)

    parser.StartDoctypeDeclHandler = refuse_dtd
    parser.EntityDeclHandler = refuse_entity
    parser.ExternalEntityRefHandler = refuse_entity
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    try:
        parser.Parse(source, True)
    except expat.ExpatError as exc:
        raise XmlRefused(
            f"not well-formed XML: {expat.ErrorString(exc.code)} (column {exc.offset + 1})",
            exc.lineno,
        ) from exc
    if not roots:
        raise XmlRefused("the file holds no XML element")
    return roots[0]
