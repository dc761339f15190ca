"""The migration that ties registrations to courses: each existing registration is granted
exactly the courses its links were already placed in, for every deployment, and nothing else."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.factories import CourseFactory, LessonFactory, QuizFactory
from tests.migration_steps import migrate

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("lti", "0006_registration_links")
GRANTING = ("lti", "0008_registration_courses_from_links")


@pytest.fixture
def before_grants():
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    executor = migrate([BEFORE])
    yield executor.loader.project_state(BEFORE).apps
    migrate(leaves)  # leave the schema as every other test expects it


class OldLms:
    """A registration with one deployment and one LMS course, in the schema before grants."""

    def __init__(self, apps, name: str):
        self.apps = apps
        self.registration = apps.get_model("lti_tool", "LtiRegistration").objects.create(
            name=name,
            uuid=uuid.uuid4(),
            issuer=f"https://{name}.example.edu",
            client_id=f"{name}-client",
            auth_url=f"https://{name}.example.edu/auth",
            token_url=f"https://{name}.example.edu/token",
            keyset_url=f"https://{name}.example.edu/jwks",
        )
        deployment = apps.get_model("lti_tool", "LtiDeployment").objects.create(
            registration=self.registration, deployment_id=f"{name}-deployment", is_active=True
        )
        self.context = apps.get_model("lti_tool", "LtiContext").objects.create(
            deployment=deployment, id_on_platform=f"{name}-course"
        )
        self.links = 0

    def place(self, *, quiz=None, lesson=None) -> None:
        self.links += 1
        link = self.apps.get_model("lti_tool", "LtiResourceLink").objects.create(
            context=self.context, id_on_platform=f"link-{self.links}"
        )
        self.apps.get_model("lti", "LinkTarget").objects.create(
            resource_link=link,
            kind="quiz" if quiz else "practice",
            quiz_id=quiz.pk if quiz else None,
            lesson_id=lesson.pk if lesson else None,
        )


def test_each_registration_keeps_exactly_the_courses_its_links_were_placed_in(before_grants):
    attention, optimisation, algebra, unplaced = (CourseFactory() for _ in range(4))
    attention_quiz = QuizFactory(lesson=LessonFactory(course=attention))
    second_attention_quiz = QuizFactory(lesson=LessonFactory(course=attention))
    optimisation_lesson = LessonFactory(course=optimisation)
    algebra_quiz = QuizFactory(lesson=LessonFactory(course=algebra))
    QuizFactory(lesson=LessonFactory(course=unplaced))

    school = OldLms(before_grants, "school")
    school.place(quiz=attention_quiz)
    school.place(quiz=second_attention_quiz)
    school.place(lesson=optimisation_lesson)
    college = OldLms(before_grants, "college")
    college.place(quiz=algebra_quiz)
    OldLms(before_grants, "unused")

    new_apps = migrate([GRANTING]).loader.project_state(GRANTING).apps
    grants = new_apps.get_model("lti", "CourseGrant").objects.values_list(
        "registration__name", "course_id", "deployment_id"
    )
    assert sorted(grants) == sorted(
        [
            ("college", algebra.pk, None),
            ("school", attention.pk, None),
            ("school", optimisation.pk, None),
        ]
    )
