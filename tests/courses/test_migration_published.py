"""The migration that adds the published state publishes everything that existed before it, so
existing courses keep working for their learners, while content made afterwards starts
unpublished."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from courses.models import Problem, Question, Quiz
from tests.migration_steps import migrate

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("courses", "0007_learner_facing_help_texts")


@pytest.fixture
def old_apps():
    executor = migrate([BEFORE])
    yield executor.loader.project_state(BEFORE).apps
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


def test_content_from_before_the_migration_is_published_and_new_content_is_not(old_apps):
    course = old_apps.get_model("courses", "Course").objects.create(slug="c", title="C")
    lesson = old_apps.get_model("courses", "Lesson").objects.create(
        course=course, slug="l", title="L", body="Body."
    )
    old_apps.get_model("courses", "Question").objects.create(lesson=lesson, slug="q", prompt="?")
    old_apps.get_model("courses", "Problem").objects.create(
        lesson=lesson, slug="p", title="P", family="dot-variance"
    )
    old_apps.get_model("courses", "Quiz").objects.create(lesson=lesson, slug="z", title="Z")
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
    for model in (Question, Problem, Quiz):
        assert list(model.objects.values_list("published", flat=True)) == [True]
    assert not Question.objects.create(lesson_id=lesson.pk, slug="q-new", prompt="?").published
