"""Moodle's {name} and softgrade's {@name@} map both ways at the XML boundary."""

from io import StringIO

import pytest
from django.core.management import call_command

from courses.moodle_xml.placeholders import from_moodle, to_moodle
from tests.factories import LessonFactory, ProblemFactory


def test_moodle_placeholders_become_softgrade_ones_even_inside_math():
    text = "Spread {s}; $\\sqrt{d_k}$ with $d_k = {d_k}$; {other} and {@s@} stay."
    assert from_moodle(text, {"s", "d_k"}) == (
        "Spread {@s@}; $\\sqrt{@d_k@}$ with $d_k = {@d_k@}$; {other} and {@s@} stay."
    )


def test_softgrade_placeholders_become_moodle_ones_and_latex_groups_are_not_taken_for_them():
    text = "Spread {@s@}; $\\sqrt{d_k} = \\sqrt{{@d_k@}}$; {other}."
    moodle = to_moodle(text, {"s", "d_k"})
    assert moodle == "Spread {s}; $\\sqrt{ d_k} = \\sqrt{{d_k}}$; {other}."
    # Read back, the LaTeX group is still LaTeX and each placeholder is one again.
    assert (
        from_moodle(moodle, {"s", "d_k"})
        == "Spread {@s@}; $\\sqrt{ d_k} = \\sqrt{{@d_k@}}$; {other}."
    )


def test_text_without_variables_crosses_unchanged():
    text = "Keep {x} and {@x@} and $\\sqrt{x}$."
    assert from_moodle(text, set()) == text
    assert to_moodle(text, {}) == text


@pytest.mark.django_db
def test_a_numerical_question_keeps_its_braces_on_export(tmp_path):
    lesson = LessonFactory()
    ProblemFactory(
        lesson=lesson,
        slug="fixed",
        family="formula",
        params={"variables": {}, "answer": "8", "prompt": "Why $\\sqrt{64} = 8$ in {this} set?"},
    )
    out = tmp_path / "out.xml"
    call_command("export_moodle_xml", lesson.slug, "-o", str(out), stdout=StringIO())
    xml = out.read_text("utf-8")
    assert "in {this} set?" in xml
