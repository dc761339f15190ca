"""The migration that marks import placeholders marks those an import made and nobody has
renamed or explained since, and nothing an instructor wrote."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from courses.models import Misconception
from courses.moodle_xml.importer import UNNAMED_EXPLANATION
from tests.migration_steps import migrate

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("courses", "0011_formula_placeholders")
AFTER = ("courses", "0012_imported_misconceptions_question_titles")


@pytest.fixture
def old_apps():
    executor = migrate([BEFORE])
    yield executor.loader.project_state(BEFORE).apps
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


def test_only_untouched_placeholders_are_marked_imported(old_apps):
    course = old_apps.get_model("courses", "Course").objects.create(slug="c", title="C")
    lesson = old_apps.get_model("courses", "Lesson").objects.create(
        course=course, slug="l", title="L", body="Body."
    )
    made = old_apps.get_model("courses", "Misconception").objects

    def add(code, title, explanation=UNNAMED_EXPLANATION):
        made.create(lesson=lesson, code=code, title=title, explanation=explanation)

    add("q1-wrong", "A wrong answer to Q1")
    add("q2-wrong", "Adds instead of multiplies")  # renamed by an instructor
    add("q3-wrong", "A wrong answer to Q3", "Explained since.")
    add("p1-mistake-1", "A common wrong answer: 0.25", "Halved it.")
    add("std-for-variance", "A common wrong answer: 4", "Own.")  # not a placeholder's code
    migrate([AFTER])
    marked = set(Misconception.objects.filter(imported=True).values_list("code", flat=True))
    assert marked == {"q1-wrong", "p1-mistake-1"}
