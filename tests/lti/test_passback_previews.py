"""An instructor's preview is never passed back to the LMS, and the LMS's own pages in softgrade
(the link's learners) count none, however the instructor started it: the LMS gets learners'
attempts only."""

from __future__ import annotations

import pytest
from django.tasks import default_task_backend

from grading.models import Attempt
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.previews import preview_start
from grading.services.responses import response_submit
from lti.models import LinkLaunch, LinkTarget, ScorePassback
from lti.passback import attempt_passback_enqueue
from lti.selectors import link_learners
from teaching.models import CourseRole
from tests.lti.fake_lms import launch_as
from tests.lti.test_passback import LINEITEM_URL

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _empty_task_queue():
    default_task_backend.clear()
    yield
    default_task_backend.clear()


def answered_right(attempt: Attempt) -> Attempt:
    for item in attempt.quiz.items.select_related("question"):
        if item.question_id:
            right = [c.pk for c in item.question.choices.all() if c.is_correct]
            response_submit(attempt=attempt, item=item, choice_ids=right)
    return attempt


def test_a_preview_is_never_passed_back(client, platform, quiz, django_capture_on_commit_callbacks):
    response = launch_as(
        client, platform, custom={"softgrade_quiz": quiz.slug}, lineitem=LINEITEM_URL
    )
    user = response.wsgi_request.user
    # The account the LMS launched teaches the course in softgrade too, and previews the quiz.
    CourseRole.objects.create(course=quiz.lesson.course, user=user, role=CourseRole.Role.INSTRUCTOR)
    preview = answered_right(preview_start(user=user, quiz=quiz))
    with django_capture_on_commit_callbacks(execute=True):
        preview = attempt_submit(attempt=preview)
    assert preview.score > 0
    assert not ScorePassback.objects.exists()
    assert not default_task_backend.results
    assert attempt_passback_enqueue(attempt=preview) == []

    # Starting the quiz the learner's way ("Open as a learner sees it") is a preview as well.
    same_way = answered_right(attempt_start(user=user, quiz=quiz))
    with django_capture_on_commit_callbacks(execute=True):
        same_way = attempt_submit(attempt=same_way)
    assert same_way.preview
    assert not ScorePassback.objects.exists()

    # A learner's attempt, with nothing answered: its 0 is what the LMS gets.
    custom = {"softgrade_quiz": quiz.slug}
    launch_as(client, platform, sub="learner-2", custom=custom, lineitem=LINEITEM_URL)
    learner = LinkLaunch.objects.exclude(user=user).get().user
    own = attempt_start(user=learner, quiz=quiz)
    with django_capture_on_commit_callbacks(execute=True):
        own = attempt_submit(attempt=own)
    passback = ScorePassback.objects.get()
    assert (passback.attempt_id, passback.score_given) == (own.pk, 0.0)

    rows = {row.sub: row for row in link_learners(target=LinkTarget.objects.get(quiz=quiz))}
    assert (rows["learner-2"].attempts, rows["learner-2"].best_score) == (1, 0.0)
    teacher = rows[next(sub for sub in rows if sub != "learner-2")]
    assert (teacher.attempts, teacher.best_score) == (0, None)
