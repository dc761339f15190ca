"""An instructor's previews count in no instructor report: each report reads the same before and
after the course's instructor previews the exam (a right preview, a wrong one with a mistake no
misconception names, and one in progress), and never names the instructor as a learner. The
same holds for what they and the course's teaching assistant start the learner's way, from
"Open as a learner sees it" and the quiz page's own button: that is a preview too.

The learners and their numbers are the results grid's (tests/teaching/conftest.py); the
instructor was sent by the LMS too, so without the one filter (Attempt.objects.counted()) the
grid, the gradebook and the grades API would take them for a learner.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlencode

import pytest
from django.test import Client
from django.utils import timezone

from grading.models import Attempt
from teaching import selectors
from teaching.discovery import data as discovery_data
from teaching.discovery import problems as course_problems
from teaching.discovery.problems import Source
from teaching.models import CourseRole
from teaching.profiles import data as profile_data
from teaching.results.pages import results_page
from teaching.results.reads import AttemptRule, quiz_learners, quiz_results
from teaching.statistics.data import counted_attempts, quiz_data
from tests.grading.exam_records import Exam, sit, sit_preview
from tests.teaching.results.test_gradebook import gradebook
from tests.teaching.test_grades_api import campus, grades, registration  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db


@dataclass
class Setting:
    exam: Exam
    people: object
    learners: dict
    client: Client
    api: object
    since: datetime  # after every attempt of the learners (and the instructor's own)


def _statistics(s: Setting, rule: AttemptRule):
    data = quiz_data(quiz=s.exam.quiz, rule=rule)
    report = data.report()
    return (
        sorted(a.pk for a in data.attempts),
        report.quiz.n,
        report.quiz.mean,
        [item.facility for item in report.items],
        [
            (analysis.responses, [tally.count for tally in analysis.choices])
            for analysis in data.item_responses()
        ],
    )


def _grid(s: Setting, rule: AttemptRule):
    found = quiz_results(quiz=s.exam.quiz, rule=rule)
    return [
        (row.learner.user_id, row.attempts_made, row.attempt and row.attempt.pk)
        for row in found.rows
    ]


def _grid_page(s: Setting):
    page = results_page(quiz=s.exam.quiz, rule=AttemptRule.ALL, grouped=True, search="", number=1)
    return page.learners, [(g.label, g.learners, len(g.rows)) for g in page.groups]


def _discovery(s: Setting):
    rows, sources = discovery_data.wrong_answers(
        course=s.exam.quiz.lesson.course, problem=s.exam.problem, with_diagnosis=True
    )
    return sorted((row.learner, row.variant, row.value) for row in rows), sorted(sources)


REPORTS: dict[str, Callable[[Setting], object]] = {
    "statistics, first attempts": lambda s: _statistics(s, AttemptRule.FIRST),
    "statistics, every attempt": lambda s: _statistics(s, AttemptRule.ALL),
    "statistics' counted attempts": lambda s: sorted(
        a.pk for a in counted_attempts(quiz=s.exam.quiz, rule=AttemptRule.ALL)
    ),
    "results grid, every attempt": lambda s: _grid(s, AttemptRule.ALL),
    "results grid, best attempt": lambda s: _grid(s, AttemptRule.BEST),
    "results grid's learners": lambda s: [
        learner.user_id for learner in quiz_learners(quiz=s.exam.quiz)
    ],
    "results grid's page by LMS course": _grid_page,
    "gradebook csv": lambda s: gradebook(s.client, s.exam.quiz),
    "grades api": lambda s: grades(s.api),
    # A preview changes no learner's row: an LMS that syncs what changed since is sent nothing.
    "grades api, changed since": lambda s: grades(
        s.api, "?" + urlencode({"updated_since": s.since.isoformat()})
    ),
    "course page's counts": lambda s: [
        [(c.learners, c.attempts, c.submitted, c.in_progress) for c in counts]
        for _, counts in selectors.course_lessons(course=s.exam.quiz.lesson.course)
    ],
    "problems' counts": lambda s: [
        (c.problem.pk, c.answers, c.correct, c.unnamed, c.learners)
        for c in course_problems.problem_counts(course=s.exam.quiz.lesson.course)
    ],
    "facility by parameter": lambda s: sorted(
        (v.variant, v.learner, v.score)
        for v in course_problems.variant_scores(
            course=s.exam.quiz.lesson.course, problem=s.exam.problem, source=Source.QUIZZES
        )
    ),
    "misconception profiles' tries": lambda s: profile_data.course_tries(
        course=s.exam.quiz.lesson.course
    ),
    "new misconceptions' wrong answers": _discovery,
    "the instructor's learner profile": lambda s: profile_data.learner_attempts(
        course=s.exam.quiz.lesson.course, user=s.people.instructor
    ),
}


@pytest.fixture(params=[False, True], ids=["previews only", "instructor sat it too"])
def setting(request, exam, people, learners, client, campus):  # noqa: F811 (imported fixture)
    """The instructor has only previews, or sat the exam once too (0 points), as a learner
    before they taught the course: then they are one of its learners, with that one attempt
    and nothing of their previews."""
    if request.param:
        role = CourseRole.objects.get(user=people.instructor)
        role.delete()
        sit(exam, people.instructor, choice="B", factor=1.05)
        CourseRole.objects.create(course=role.course, user=role.user, role=role.role)
    client.force_login(people.instructor)
    return Setting(exam, people, learners, client, campus, timezone.now())


def previews_made(setting: Setting) -> list[Attempt]:
    instructor = setting.people.instructor
    made = [
        # The learner's start on the quiz page ("Open as a learner sees it", then its button).
        sit(setting.exam, instructor, choice="A", factor=1.0),
        sit(setting.exam, setting.people.assistant, choice="A", factor=1.0),
        sit_preview(setting.exam, instructor, choice="A", factor=1.0),
        sit_preview(setting.exam, instructor, choice="C", factor=1.37),
        sit_preview(setting.exam, instructor, choice="B", factor=1.37, submit=False),
    ]
    assert [a.preview for a in made] == [True] * 5
    assert made[3].score < made[2].score == made[2].max_score  # a best score of 5, to tempt
    return made


@pytest.mark.parametrize("report", list(REPORTS))
def test_previews_change_no_report(setting, report):
    read = REPORTS[report]
    before = read(setting)
    previews_made(setting)
    assert read(setting) == before


def test_the_instructor_is_a_learner_only_by_their_own_attempt(setting):
    """Previews alone make no learner; an instructor who sat the exam is one with that one
    attempt, whatever they previewed."""
    instructor = setting.people.instructor
    sat = Attempt.objects.counted().filter(user=instructor).exists()
    previews_made(setting)
    name = instructor.get_full_name()
    grid = {
        row.learner.user_id: row.attempts_made
        for row in quiz_results(quiz=setting.exam.quiz, rule=AttemptRule.ALL).rows
    }
    book = {row["name"]: row["attempts"] for row in gradebook(setting.client, setting.exam.quiz)}
    api = {learner: row["attempts"] for learner, row in grades(setting.api).items()}
    if sat:
        assert (grid[instructor.pk], book[name], api[name]) == (1, "1", 1)
    else:
        assert instructor.pk not in grid
        assert name not in book
        assert name not in api
