"""A fixed-answer problem (a numerical question imported from Moodle XML) has no generated
parameters: the instructor's pages about its parameters and its unexplained wrong answers still
render, with nothing to bin."""

from pathlib import Path

import pytest
from django.urls import reverse

from courses.moodle_xml.importer import moodle_import
from grading.services.practice import practice_answer_submit, practice_variant_new
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

FILE = Path(__file__).parent.parent / "courses" / "moodle" / "questions.xml"


@pytest.fixture
def answered(course_a):
    lesson = course_a.lessons.first()
    moodle_import(source=FILE.read_bytes(), file_name="questions.xml", lesson=lesson)
    problem = lesson.problems.get(slug="scaled-score")
    for text in ("2", "0.25", "7", "7", "16"):
        learner = UserFactory()
        variant = practice_variant_new(user=learner, problem=problem)
        practice_answer_submit(user=learner, variant=variant, text=text)
    return problem


@pytest.mark.parametrize("page", ["teaching:problem-parameters", "teaching:problem-misconceptions"])
def test_the_problem_pages_render(client, people, course_a, answered, page):
    client.force_login(people.instructor)
    response = client.get(reverse(page, args=[course_a.slug, answered.slug]))
    assert response.status_code == 200
    assert "Scaled score" in response.content.decode()
