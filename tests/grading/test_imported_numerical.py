"""A numerical question imported from Moodle XML is practised and graded like any formula problem:
its tolerance holds, and its wrong answer is named with the imported feedback."""

from pathlib import Path

import pytest
from django.urls import reverse

from courses.moodle_xml.importer import moodle_import
from courses.publishing import content_publish
from grading.services.practice import practice_answer_submit, practice_variant_new
from tests.factories import LessonFactory, UserFactory

pytestmark = pytest.mark.django_db

FILE = Path(__file__).parent.parent / "courses" / "moodle" / "questions.xml"


@pytest.fixture
def problem():
    lesson = LessonFactory()
    moodle_import(source=FILE.read_bytes(), file_name="questions.xml", lesson=lesson)
    # Imported content starts unpublished; the instructor has checked it and publishes it.
    content_publish(rows=lesson.problems.all(), published=True)
    return lesson.problems.get()


def test_the_tolerance_and_the_named_wrong_answer_hold_in_practice(problem):
    learner = UserFactory()
    variant = practice_variant_new(user=learner, problem=problem)
    right = practice_answer_submit(user=learner, variant=variant, text="2.04")
    assert right.status == "correct"
    wrong = practice_answer_submit(user=learner, variant=variant, text="0.25")
    assert wrong.status == "incorrect"
    assert wrong.misconception == next(iter(problem.params["mistakes"]))


def test_the_practice_page_shows_the_prompt_and_the_imported_feedback(client, problem):
    learner = UserFactory()
    client.force_login(learner)
    variant = practice_variant_new(user=learner, problem=problem)
    practice_answer_submit(user=learner, variant=variant, text="0.25")
    page = client.get(reverse("practice", kwargs={"slug": problem.slug}))
    html = page.content.decode()
    assert "A raw score of 16 with" in html
    assert "You divided by" in html  # the misconception's explanation: the answer's feedback
