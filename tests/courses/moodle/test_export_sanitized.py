"""Authored text leaves in a Moodle XML file through the pages' own sanitizer: no `javascript:`
address and no event-handler attribute leaves softgrade, whichever text it was stored in."""

import re
from html.parser import HTMLParser

import pytest

from courses.moodle_xml.importer import moodle_import
from courses.moodle_xml.writer import moodle_export
from tests.factories import (
    ChoiceFactory,
    LessonFactory,
    MisconceptionFactory,
    ProblemFactory,
    QuestionFactory,
)

pytestmark = pytest.mark.django_db

HOSTILE = (
    "Read [the notes](javascript:alert(1)) first. ![chart](javascript:alert(2)) "
    '<img src=x onerror="alert(3)"> $q \\cdot k$'
)


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.attributes: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag, attrs):
        self.attributes += [(tag, name, value or "") for name, value in attrs]


def exported_attributes(xml: str) -> list[tuple[str, str, str]]:
    """Every attribute of every HTML element in the file's CDATA texts."""
    parser = _Elements()
    for text in re.findall(r"<!\[CDATA\[(.*?)\]\]>", xml, re.DOTALL):
        parser.feed(text)
    return parser.attributes


def assert_nothing_unsafe(xml: str) -> None:
    assert "javascript:" not in xml
    attributes = exported_attributes(xml)
    assert not [a for a in attributes if a[1].startswith("on")]
    assert not [a for a in attributes if a[0] == "img"]
    # The text around them is kept: the link's words, the formula, the raw HTML as text.
    assert "Read <a>the notes</a> first." in xml
    assert "\\(q \\cdot k\\)" in xml
    assert "&lt;img src=x onerror=" in xml  # text a learner reads, as on the pages


def test_no_javascript_address_or_event_handler_leaves_in_any_exported_text():
    lesson = LessonFactory()
    question = QuestionFactory(lesson=lesson, prompt=HOSTILE, explanation=HOSTILE)
    wrong = MisconceptionFactory(lesson=lesson, code="hostile-wrong")
    ChoiceFactory(question=question, text="$d_k$", is_correct=True, feedback=HOSTILE)
    ChoiceFactory(question=question, text=HOSTILE, is_correct=False, misconception=wrong)
    MisconceptionFactory(lesson=lesson, code="forgot-root", explanation=HOSTILE)
    ProblemFactory(
        lesson=lesson,
        family="formula",
        atol=0.05,
        rtol=0.0,
        params={
            "variables": {},
            "answer": "2",
            "prompt": HOSTILE,
            "solution": [HOSTILE],
            "mistakes": {"forgot-root": "0.25"},
            "version": 1,
        },
    )
    export = moodle_export(lesson=lesson)
    assert len(export.written) == 2
    # Prompt, explanation, a choice and its feedback; prompt, solution and mistake feedback.
    assert export.xml.count("Read <a>the notes</a> first.") == 7
    assert_nothing_unsafe(export.xml)


def test_a_hostile_link_imported_from_a_file_does_not_leave_again():
    """A Moodle file's HTML link is kept as a Markdown link; exporting it goes through the
    sanitizer like any authored text."""
    source = """<?xml version="1.0"?>
<quiz><question type="truefalse"><name><text>Claim</text></name>
<questiontext format="html"><text><![CDATA[<p>Read <a href="javascript:alert(1)">the notes</a>
first. <img src=x onerror="alert(3)"> \\(q \\cdot k\\)</p>]]></text></questiontext>
<answer fraction="100"><text>true</text></answer><answer fraction="0"><text>false</text></answer>
</question></quiz>"""
    lesson = LessonFactory()
    report = moodle_import(source=source.encode(), file_name="x.xml", lesson=lesson)
    assert [item.record.name for item in report.reported] == ["Claim"]  # its <img>: left out
    clean = source.replace('<img src=x onerror="alert(3)">', "")
    moodle_import(source=clean.encode(), file_name="x.xml", lesson=lesson)
    assert "javascript:alert(1)" in lesson.questions.get().prompt
    xml = moodle_export(lesson=lesson).xml
    assert "javascript:" not in xml
    assert "Read <a>the notes</a>" in xml
