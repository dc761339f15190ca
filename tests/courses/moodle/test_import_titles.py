"""An import keeps each Moodle question's name as its title (the slug is still made from it), and
the placeholder misconceptions it makes are marked as imported."""

from pathlib import Path

import pytest

from courses.models import Misconception, Question
from courses.moodle_xml.importer import UNNAMED_EXPLANATION, moodle_import
from tests.courses.moodle.test_files import question, quiz
from tests.factories import LessonFactory, QuestionFactory

pytestmark = pytest.mark.django_db

FILES = Path(__file__).parent


def test_a_question_s_name_becomes_its_title_and_its_slug_is_kept():
    lesson = LessonFactory()
    moodle_import(source=(FILES / "questions.xml").read_bytes(), file_name="q.xml", lesson=lesson)
    imported = Question.objects.get(slug="variance-of-a-dot-product")
    assert imported.title == "Variance of a dot product"
    assert str(imported) == "Variance of a dot product · variance-of-a-dot-product (Single choice)"
    problem = lesson.problems.get()
    assert (problem.title, problem.slug) == ("Scaled score", "scaled-score")


def test_a_taken_slug_gets_a_suffix_but_the_title_stays_the_name():
    QuestionFactory(slug="is-it-softmax")
    lesson = LessonFactory()
    moodle_import(source=quiz(question("Is it softmax?")), file_name="q.xml", lesson=lesson)
    imported = lesson.questions.get()
    assert (imported.slug, imported.title) == ("is-it-softmax-2", "Is it softmax?")


def test_the_placeholders_an_import_makes_are_marked_imported():
    lesson = LessonFactory()
    moodle_import(source=(FILES / "questions.xml").read_bytes(), file_name="q.xml", lesson=lesson)
    made = Misconception.objects.filter(lesson=lesson)
    assert made.exists()
    assert all(m.imported for m in made)
    wrong = made.get(code="variance-of-a-dot-product-wrong")
    assert wrong.explanation == UNNAMED_EXPLANATION


def test_a_question_made_by_hand_has_no_title_and_reads_as_before():
    made = QuestionFactory(slug="by-hand")
    assert made.title == ""
    assert str(made).startswith("by-hand (")
