"""Export then import gives back the same questions; what cannot be exported is named."""

from pathlib import Path

import pytest
from django.core.management import call_command

from courses.models import Choice, Problem, Question
from courses.moodle_xml.importer import moodle_import
from courses.moodle_xml.writer import moodle_export
from tests.factories import LessonFactory, ProblemFactory

pytestmark = pytest.mark.django_db

FILES = Path(__file__).parent


def question_content(question: Question) -> tuple:
    choices = tuple(
        (c.text, c.is_correct, c.feedback, c.misconception is None)
        for c in question.choices.order_by("order")
    )
    return (question.kind, question.prompt, question.explanation, choices)


def problem_content(problem: Problem) -> tuple:
    params = problem.params
    mistakes = tuple(float(value) for value in params["mistakes"].values())
    return (
        problem.title,
        params["prompt"],
        float(params["answer"]),
        params.get("solution"),
        mistakes,
        problem.atol,
        problem.rtol,
    )


def test_hand_written_file_round_trips_through_export_and_import():
    first = LessonFactory()
    moodle_import(source=(FILES / "questions.xml").read_bytes(), file_name="q", lesson=first)
    exported = moodle_export(lesson=first)
    assert exported.left_out == []
    second = LessonFactory()
    report = moodle_import(source=exported.xml.encode(), file_name="export", lesson=second)
    assert report.reported == []
    before = [question_content(q) for q in first.questions.order_by("order")]
    after = [question_content(q) for q in second.questions.order_by("order")]
    assert after == before
    assert [problem_content(p) for p in second.problems.all()] == [
        problem_content(p) for p in first.problems.all()
    ]
    # Each mistake's misconception comes back with the same explanation (its feedback).
    [old], [new] = first.problems.all(), second.problems.all()
    assert new.params["mistakes"] != old.params["mistakes"]  # new codes, never clobbered
    assert second.misconceptions.get(code=next(iter(new.params["mistakes"]))).explanation == (
        first.misconceptions.get(code=next(iter(old.params["mistakes"]))).explanation
    )


def test_relative_tolerance_is_exported_as_the_same_absolute_interval():
    lesson = LessonFactory()
    ProblemFactory(
        lesson=lesson,
        slug="fixed",
        title="Fixed",
        family="formula",
        params={"variables": {}, "answer": "200", "mistakes": {}, "prompt": "How much?"},
        atol=0.5,
        rtol=0.01,
    )
    xml = moodle_export(lesson=lesson).xml
    assert "<tolerance>2</tolerance>" in xml  # max(0.5, 0.01 · 200)


def test_problems_with_drawn_numbers_are_left_out_by_name(tmp_path, capsys):
    lesson = LessonFactory()
    ProblemFactory(lesson=lesson, slug="drawn", family="dot-variance", params={})
    out_file = tmp_path / "out.xml"
    call_command("export_moodle_xml", lesson.slug, "-o", str(out_file))
    err = capsys.readouterr().err
    assert "problem drawn: left out: its numbers are drawn per learner" in err
    assert "drawn" not in out_file.read_text()
    assert out_file.read_text().startswith('<?xml version="1.0" encoding="UTF-8"?>\n<quiz>')


def test_multiple_choice_export_shares_the_mark_and_penalises_wrong_choices():
    lesson = LessonFactory()
    moodle_import(source=(FILES / "questions.xml").read_bytes(), file_name="q", lesson=lesson)
    xml = moodle_export(lesson=lesson).xml
    block = xml[xml.index("<name><text>Softmax properties") :]  # the title an import kept
    block = block[: block.index("</question>")]
    assert "<single>false</single>" in block
    assert block.count('fraction="50"') == 2
    assert block.count('fraction="-100"') == 1


def test_the_category_names_the_course_and_lesson_with_slashes_doubled():
    lesson = LessonFactory(title="Inputs/outputs")
    xml = moodle_export(lesson=lesson).xml
    assert f"<text>$course$/{lesson.course.title}/Inputs//outputs</text>" in xml


def test_a_pinned_choice_is_reported_as_not_kept(capsys):
    lesson = LessonFactory()
    moodle_import(source=(FILES / "questions.xml").read_bytes(), file_name="q", lesson=lesson)
    question = lesson.questions.get(slug="variance-of-a-dot-product")
    question.choices.filter(text="1").update(pinned=True)
    call_command("export_moodle_xml", lesson.slug)
    err = capsys.readouterr().err
    assert "question variance-of-a-dot-product: its pinned choice is not kept" in err


ORDERED = """<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="multichoice">
    <name><text>Growth of the variance</text></name>
    <questiontext format="html"><text>How does Var(q·k) grow with d_k?</text></questiontext>
    <single>true</single>
    <shuffleanswers>0</shuffleanswers>
    <answer fraction="0"><text>It stays 1</text><feedback><text>It grows.</text></feedback></answer>
    <answer fraction="0"><text>Like the square root of d_k</text><feedback><text>That is the
      standard deviation.</text></feedback></answer>
    <answer fraction="100"><text>Like d_k</text><feedback><text>Yes.</text></feedback></answer>
    <answer fraction="0"><text>None of the above</text><feedback><text>No.</text>
      </feedback></answer>
  </question>
</quiz>
"""


def test_answers_kept_in_order_are_pinned_and_exported_in_order_again():
    lesson = LessonFactory()
    report = moodle_import(source=ORDERED.encode(), file_name="ordered.xml", lesson=lesson)
    (item,) = report.imported
    assert "every choice is pinned" in " ".join(item.plan.notes)
    question = lesson.questions.get()
    assert list(question.choices.values_list("text", "pinned")) == [
        ("It stays 1", True),
        ("Like the square root of d_k", True),
        ("Like d_k", True),
        ("None of the above", True),
    ]
    exported = moodle_export(lesson=lesson)
    assert "<shuffleanswers>false</shuffleanswers>" in exported.xml
    assert exported.left_out == []
    again = LessonFactory()
    moodle_import(source=exported.xml.encode(), file_name="export", lesson=again)
    assert list(again.questions.get().choices.values_list("pinned", flat=True)) == [True] * 4


def test_shuffled_answers_stay_unpinned():
    lesson = LessonFactory()
    moodle_import(source=(FILES / "questions.xml").read_bytes(), file_name="q", lesson=lesson)
    assert not Choice.objects.filter(question__lesson=lesson, pinned=True).exists()
    assert "<shuffleanswers>false</shuffleanswers>" not in moodle_export(lesson=lesson).xml


def test_a_mistake_with_its_own_feedback_is_exported_with_that_feedback():
    lesson = LessonFactory()
    ProblemFactory(
        lesson=lesson,
        slug="fixed-with-feedback",
        title="Fixed",
        family="formula",
        params={
            "variables": {},
            "answer": "64",
            "mistakes": {"halved": {"formula": "32", "feedback": "You halved the variance."}},
            "prompt": "How much?",
        },
        atol=0.5,
        rtol=0.0,
    )
    export = moodle_export(lesson=lesson)
    assert export.left_out == []
    assert "<text>32</text>" in export.xml
    assert "You halved the variance." in export.xml
