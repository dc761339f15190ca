"""A formula problem's property checks cannot be run by a numerical question: the export writes
them as general feedback text, says so, and importing the file brings back no check."""

import pytest

from courses.moodle_xml.importer import moodle_import
from courses.moodle_xml.writer import moodle_export
from tests.factories import LessonFactory, ProblemFactory

pytestmark = pytest.mark.django_db

PARAMS = {
    "variables": {},
    "answer": "64",
    "mistakes": {"halved": "32"},
    "properties": [
        {"check": "x > 0", "feedback": "A variance is never negative."},
        {
            "check": "x * 0.5 >= 2 * 8",
            "feedback": "Sixteen terms add up.",
            "misconception": "halved",
        },
    ],
    "prompt": "How much?",
    "solution": ["Multiply the terms."],
}


def _export():
    lesson = LessonFactory()
    ProblemFactory(lesson=lesson, slug="checked", title="Checked", family="formula", params=PARAMS)
    return moodle_export(lesson=lesson)


def test_checks_are_written_as_general_feedback_after_the_solution():
    export = _export()
    general = export.xml.split("<generalfeedback")[1].split("</generalfeedback>")[0]
    assert general.index("Multiply the terms.") < general.index("Checks on a wrong answer")
    assert "<li>Check “x &gt; 0”: A variance is never negative.</li>" in general
    assert "<li>Check “x * 0.5 &gt;= 2 * 8”: Sixteen terms add up.</li>" in general
    assert export.written == ["problem checked"]
    assert export.left_out == [
        "problem checked: its property checks are written as text in the general feedback "
        "(a numerical question cannot run them)"
    ]


def test_a_problem_without_checks_has_no_such_text():
    lesson = LessonFactory()
    params = {key: value for key, value in PARAMS.items() if key != "properties"}
    ProblemFactory(lesson=lesson, slug="plain", title="Plain", family="formula", params=params)
    export = moodle_export(lesson=lesson)
    assert "Checks on a wrong answer" not in export.xml
    assert export.left_out == []


def test_importing_the_export_brings_back_no_check():
    second = LessonFactory()
    moodle_import(source=_export().xml.encode(), file_name="export", lesson=second)
    [problem] = second.problems.all()
    assert "properties" not in problem.params
    assert float(problem.params["answer"]) == 64
