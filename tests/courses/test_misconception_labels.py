"""Placeholder misconceptions an import made are listed after the lesson's own named ideas in
every picker, and marked "(imported)": the question's choices, the formula form's mistakes, the
regrade fix and the admin's list (with a filter)."""

import re

import pytest
from django.urls import reverse

from courses.admin_questions import misconception_options
from courses.misconception_labels import misconception_label
from courses.models import Misconception, Problem
from grading.formula_form import FormulaEditor
from grading.regrade_fixes import misconception_choices
from tests.factories import InstructorFactory, LessonFactory, MisconceptionFactory, QuestionFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def lesson():
    """A lesson whose imported placeholder's code sorts before its own misconceptions' codes."""
    lesson = LessonFactory(title="Softmax")
    MisconceptionFactory(
        lesson=lesson, code="a-q1-wrong", title="A wrong answer to Q1", imported=True
    )
    MisconceptionFactory(lesson=lesson, code="m-linear", title="Softmax is $linear$")
    MisconceptionFactory(lesson=lesson, code="z-sums", title="It sums to one")
    return lesson


def test_the_label_is_plain_text_and_marks_an_import_s_placeholder(lesson):
    own = Misconception.objects.get(code="m-linear")
    placeholder = Misconception.objects.get(code="a-q1-wrong")
    assert misconception_label(own) == "m-linear: Softmax is linear"
    assert misconception_label(placeholder) == "a-q1-wrong: A wrong answer to Q1 (imported)"


def test_the_question_choice_picker_lists_placeholders_last(lesson):
    other = LessonFactory(course=lesson.course, title="Other")
    MisconceptionFactory(lesson=other, code="b-other-wrong", imported=True)
    MisconceptionFactory(lesson=other, code="c-other-own")
    groups = dict(misconception_options(lesson.pk))
    this = next(options for label, options in groups.items() if label.startswith("This lesson"))
    assert [label for _, label in this] == [
        "m-linear: Softmax is linear",
        "z-sums: It sums to one",
        "a-q1-wrong: A wrong answer to Q1 (imported)",
    ]
    others = next(options for label, options in groups.items() if label.startswith("Other"))
    assert [label.split(":")[0] for _, label in others] == ["c-other-own", "b-other-wrong"]


def test_the_picker_without_a_lesson_also_lists_placeholders_last(lesson):
    (_, options), *_ = misconception_options(None)
    assert [label.split(":")[0] for _, label in options] == ["m-linear", "z-sums", "a-q1-wrong"]


def test_the_formula_form_s_misconception_picker_lists_placeholders_last(lesson):
    problem = Problem.objects.create(
        lesson=lesson, title="P", slug="p", family="formula", params={"answer": "1"}
    )
    MisconceptionFactory(code="0-elsewhere")  # another lesson's: after this lesson's
    editor = FormulaEditor.build(problem)
    html = str(editor.mistakes.forms[0]["misconception"])
    labels = re.findall(r'<option value="[^"]+">([^<]*)</option>', html)
    assert labels == [
        "m-linear: Softmax is linear",
        "z-sums: It sums to one",
        "a-q1-wrong: A wrong answer to Q1 (imported)",
        "0-elsewhere: A wrong idea",
    ]


def test_the_regrade_fix_lists_placeholders_last(lesson):
    # By title there ("It sums…" before "Softmax…"), the placeholder after both.
    codes = [m.code for m in misconception_choices(QuestionFactory(lesson=lesson))]
    assert codes == ["z-sums", "m-linear", "a-q1-wrong"]


def test_the_admin_list_marks_filters_and_sorts_placeholders_last(client, lesson):
    client.force_login(InstructorFactory())
    url = reverse("admin:courses_misconception_changelist")
    page = client.get(url)
    codes = [m.code for m in page.context["cl"].result_list]
    assert codes == ["m-linear", "z-sums", "a-q1-wrong"]
    assert "imported__exact=1" in page.content.decode()
    only = client.get(url, {"imported__exact": "1"})
    assert [m.code for m in only.context["cl"].result_list] == ["a-q1-wrong"]
