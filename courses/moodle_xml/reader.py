"""A Moodle XML file as plain records: each question with its type, name, line and texts.

Reading checks only what every question needs to be understood at all (a name, numbers where
numbers belong); whether a question maps onto the lesson is `mapping`'s decision.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import BinaryIO

from django.conf import settings
from django.utils.translation import gettext as _

from .files import FileRef, question_files
from .issues import MoodleIssue, MoodleXmlError
from .tree import Node, XmlRefused, parse_xml


@dataclass(frozen=True)
class Text:
    text: str
    text_format: str


@dataclass(frozen=True)
class Answer:
    fraction: float
    text: Text
    feedback: Text
    tolerance: float | None
    line: int


@dataclass
class Record:
    """One `<question>` element (category pseudo-questions included)."""

    qtype: str
    name: str
    line: int
    text: Text = Text("", "html")
    general_feedback: Text = Text("", "html")
    single: bool = True
    # <shuffleanswers>: false when the author wants the answers shown in the file's order.
    shuffle: bool = True
    answers: list[Answer] = field(default_factory=list)
    units: list[str] = field(default_factory=list)
    category: str = ""
    # Parts with content that the lesson has no place for (combined feedback, hints).
    extras: list[str] = field(default_factory=list)
    # Every file the question embeds or points at, anywhere in it (`files`).
    files: list[FileRef] = field(default_factory=list)

    @property
    def label(self) -> str:
        return _("question %(name)s (%(type)s, line %(line)s)") % {
            "name": repr(self.name),
            "type": self.qtype,
            "line": self.line,
        }


def _text(node: Node | None, default_format: str = "html") -> Text:
    if node is None:
        return Text("", default_format)
    inner = node.find("text")
    text = inner.text if inner is not None else ""
    return Text(text, node.attrs.get("format", default_format))


def _number(value: str, what: str, line: int, where: str, issues: list[MoodleIssue]) -> float:
    """`what` is "fraction" or "tolerance", the file's own word for the number."""
    named = {"value": repr(value.strip())}
    try:
        number = float(value.strip())
    except ValueError:
        if what == "fraction":
            message = _("fraction %(value)s is not a number") % named
        else:
            message = _("tolerance %(value)s is not a number") % named
        issues.append(MoodleIssue(where, line, message))
        return 0.0
    if number != number or number in (float("inf"), float("-inf")):
        if what == "fraction":
            message = _("fraction %(value)s is not finite") % named
        else:
            message = _("tolerance %(value)s is not finite") % named
        issues.append(MoodleIssue(where, line, message))
    return number


def _record(node: Node, issues: list[MoodleIssue]) -> Record:
    qtype = node.attrs.get("type", "")
    if qtype == "category":
        category = node.child_text("category")
        return Record("category", category, node.line, category=category)
    name = node.child_text("name")
    unnamed = _("(unnamed, line %(line)s)") % {"line": node.line}
    record = Record(qtype, name or unnamed, node.line)
    if not qtype:
        issues.append(MoodleIssue(record.label, node.line, _("the question has no type attribute")))
    if not name:
        issues.append(MoodleIssue(record.label, node.line, _("the question has no <name>")))
    record.files = question_files(node)
    record.text = _text(node.find("questiontext"), "html")
    record.general_feedback = _text(node.find("generalfeedback"), record.text.text_format)
    record.single = node.child_text("single", "true").lower() not in ("false", "0")
    record.shuffle = node.child_text("shuffleanswers", "true").lower() not in ("false", "0")
    for index, answer in enumerate(node.find_all("answer"), start=1):
        where = _("%(question)s › answer %(number)s") % {"question": record.label, "number": index}
        raw_fraction = answer.attrs.get("fraction", "0")
        fraction = _number(raw_fraction, "fraction", answer.line, where, issues)
        tolerance_node = answer.find("tolerance")
        tolerance = None
        if tolerance_node is not None:
            tolerance = _number(tolerance_node.text or "0", "tolerance", answer.line, where, issues)
            if tolerance < 0:
                issues.append(MoodleIssue(where, answer.line, _("the tolerance is negative")))
        record.answers.append(
            Answer(
                fraction=fraction,
                text=_text(answer, answer.attrs.get("format", record.text.text_format)),
                feedback=_text(answer.find("feedback"), record.text.text_format),
                tolerance=tolerance,
                line=answer.line,
            )
        )
    for tag in ("correctfeedback", "partiallycorrectfeedback", "incorrectfeedback"):
        if node.child_text(tag):
            record.extras.append(f"<{tag}>")
    if any(hint.child_text("text") or hint.text.strip() for hint in node.find_all("hint")):
        record.extras.append("<hint>")
    units = node.find("units")
    if units is not None:
        record.units = [unit.child_text("unit_name") for unit in units.find_all("unit")]
    return record


def read_source(file: BinaryIO) -> bytes:
    """A file's bytes, but never more than one over MOODLE_XML_MAX_BYTES: `read_records` refuses
    a longer file with the line where the limit is crossed, and the rest is never read."""
    return file.read(settings.MOODLE_XML_MAX_BYTES + 1)


def read_records(source: bytes, *, file_name: str) -> list[Record]:
    """Every `<question>` of the file, or MoodleXmlError with every located problem."""
    try:
        root = parse_xml(
            source,
            max_bytes=settings.MOODLE_XML_MAX_BYTES,
            max_elements=settings.MOODLE_XML_MAX_ELEMENTS,
        )
    except XmlRefused as exc:
        raise MoodleXmlError([MoodleIssue(file_name, exc.line, str(exc))]) from exc
    if root.tag != "quiz":
        message = _("the root element is <%(tag)s>, not <quiz>") % {"tag": root.tag}
        raise MoodleXmlError([MoodleIssue(file_name, root.line, message)])
    issues: list[MoodleIssue] = []
    records = [_record(node, issues) for node in root.find_all("question")]
    if issues:
        raise MoodleXmlError(issues)
    return records
