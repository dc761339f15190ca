"""An attempt the server closes when time ran out reaches the LMS like a learner's own submit,
once; one closed unsubmitted at a "never submitted: no score" quiz sends nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.tasks import default_task_backend
from django.urls import reverse
from django.utils import timezone

from courses.models import Quiz
from grading.models import Attempt
from grading.services.attempts import attempt_start
from grading.services.overdue import overdue_attempts_close
from lti.models import LinkTarget, ScorePassback
from tests.lti.fake_lms import INSTRUCTOR, launch_as
from tests.lti.test_course_roles import quiz_custom
from tests.lti.test_passback import LINEITEM_URL
from tests.lti.test_passback_previews import answered_right

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _empty_task_queue():
    default_task_backend.clear()
    yield
    default_task_backend.clear()


def left_open(client, platform, quiz: Quiz, handling: str) -> Attempt:
    """A learner the LMS launched answers every question right and leaves; their hour is over."""
    Quiz.objects.filter(pk=quiz.pk).update(time_limit_minutes=60, overdue_handling=handling)
    quiz.refresh_from_db()
    response = launch_as(
        client, platform, custom={"softgrade_quiz": quiz.slug}, lineitem=LINEITEM_URL
    )
    attempt = answered_right(attempt_start(user=response.wsgi_request.user, quiz=quiz))
    # An hour passes: the deadline is a minute ago.
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    return attempt


def test_an_attempt_closed_when_time_ran_out_is_passed_back_once(
    client, platform, quiz, django_capture_on_commit_callbacks
):
    attempt = left_open(client, platform, quiz, Quiz.OverdueHandling.SUBMIT)
    with django_capture_on_commit_callbacks(execute=True):
        assert overdue_attempts_close(quiz=quiz) == 1
        assert overdue_attempts_close(quiz=quiz) == 0
    attempt.refresh_from_db()
    assert attempt.score > 0
    passback = ScorePassback.objects.get()
    assert (passback.attempt_id, passback.score_given) == (attempt.pk, attempt.score)


def test_an_attempt_never_submitted_sends_the_lms_nothing(
    client, platform, quiz, django_capture_on_commit_callbacks
):
    attempt = left_open(client, platform, quiz, Quiz.OverdueHandling.NO_SCORE)
    with django_capture_on_commit_callbacks(execute=True):
        assert overdue_attempts_close(quiz=quiz) == 1
    attempt.refresh_from_db()
    assert attempt.status == Attempt.Status.NEVER_SUBMITTED
    assert not ScorePassback.objects.exists()


def test_the_lms_link_s_instructor_view_closes_overdue_attempts_first(client, platform, quiz):
    attempt = left_open(client, platform, quiz, Quiz.OverdueHandling.SUBMIT)
    launch_as(client, platform, sub="teacher-1", roles=(INSTRUCTOR,), custom=quiz_custom(quiz))
    target = LinkTarget.objects.get()
    page = client.get(reverse("lti:link-instructor", args=[target.pk]))
    assert page.status_code == 200
    attempt.refresh_from_db()
    assert (attempt.status, attempt.late) == (Attempt.Status.SUBMITTED, True)
