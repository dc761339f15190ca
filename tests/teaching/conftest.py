"""Two courses, each with its instructor or teaching assistant, and a small exam in course A
whose numbers can be checked by hand (tests/grading/exam_records.py: a 2-point question and a
3-point problem)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.contrib.auth.models import AbstractBaseUser

from courses.models import Course
from grading.overrides import item_score_override
from integrations.models import Integration
from integrations.services import learner_provision
from teaching.models import CourseRole
from tests.factories import (
    CourseFactory,
    InstructorFactory,
    LessonFactory,
    QuizFactory,
    UserFactory,
)
from tests.grading.exam_records import Exam, exam_build, sit


@dataclass
class People:
    instructor: AbstractBaseUser  # instructor of course A
    assistant: AbstractBaseUser  # teaching assistant of course A
    other_assistant: AbstractBaseUser  # teaching assistant of course B only
    learner: AbstractBaseUser
    superuser: AbstractBaseUser
    staff: AbstractBaseUser  # staff (authoring) without a course role


@pytest.fixture
def exam(db) -> Exam:
    """The exam, in course A."""
    return exam_build()


@pytest.fixture
def course_a(exam) -> Course:
    return exam.quiz.lesson.course


@pytest.fixture
def course_b(db) -> Course:
    """Another course, with a quiz of its own."""
    course = CourseFactory(title="Course B")
    QuizFactory(lesson=LessonFactory(course=course))
    return course


@pytest.fixture
def people(course_a, course_b) -> People:
    def role(course, kind, **user_fields):
        user = UserFactory(**user_fields)
        CourseRole.objects.create(course=course, user=user, role=kind)
        return user

    return People(
        instructor=role(course_a, CourseRole.Role.INSTRUCTOR, first_name="Ines"),
        assistant=role(course_a, CourseRole.Role.TEACHING_ASSISTANT, first_name="Tao"),
        other_assistant=role(course_b, CourseRole.Role.TEACHING_ASSISTANT),
        learner=UserFactory(),
        superuser=InstructorFactory(),
        staff=UserFactory(is_staff=True),
    )


# What the test's stand-in for the LTI app answers (SOFTGRADE_LEARNER_LMS_CONTEXTS).
launched: dict[int, str] = {}


def contexts_for_test(*, quiz) -> dict[int, str]:
    return dict(launched)


@pytest.fixture
def lms_contexts(settings):
    settings.SOFTGRADE_LEARNER_LMS_CONTEXTS = ["tests.teaching.conftest.contexts_for_test"]
    launched.clear()
    yield launched
    launched.clear()


@pytest.fixture
def learners(exam, people, lms_contexts):
    """Ann, Ben, Cai and Dan and their attempts (tests/teaching/results/test_reads.py tells the
    numbers)."""
    ann = UserFactory(first_name="Ann", last_name="Archer")
    integration = Integration.objects.create(name="Campus LMS")
    ben = learner_provision(
        integration=integration, external_id="ben-1", name="Ben Okafor", email="ben@example.edu"
    )[0].user
    cai = UserFactory(first_name="Cai")
    dan = UserFactory(first_name="Dan")
    attempts = {
        "ann": [
            sit(exam, ann, choice="B", factor=1.05),
            sit(exam, ann, choice="A", factor=1.05),
            sit(exam, ann, choice="B", factor=1.05),
        ],
        "ben": [
            sit(exam, ben, choice="A", factor=1.0),
            sit(exam, ben, choice="A", factor=1.05, submit=False),
        ],
        "cai": [sit(exam, cai, choice="A", factor=1.0, submit=False)],
    }
    item_score_override(
        attempt=attempts["ann"][1],
        item=exam.problem_item,
        score=1.5,
        reason="The prompt's tolerance was unclear.",
        by=people.superuser,
    )
    lms_contexts.update({ben.pk: "ML 101", dan.pk: "ML 101", people.instructor.pk: "ML 101"})
    return {"ann": ann, "ben": ben, "cai": cai, "dan": dan, "attempts": attempts}


@pytest.fixture
def hook_calls(settings):
    """The attempts grading tells the LMS of after a score change (the submitted-attempt hooks
    stand in for the LTI passback), in order."""
    from tests.grading import exam_records

    settings.SOFTGRADE_ATTEMPT_SUBMITTED_HOOKS = [
        "tests.grading.exam_records.record_submitted_hook"
    ]
    exam_records.submitted_hook_calls.clear()
    return exam_records.submitted_hook_calls
