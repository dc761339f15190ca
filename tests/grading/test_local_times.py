"""Times on learner pages: UTC from the server in a <time> labelled UTC (the fallback without
the script), which static/js/local-time.js rewrites in the learner's zone
(tests/browser/test_local_times.py)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

import pytest
from django.template import Context, Template, TemplateSyntaxError
from django.urls import reverse

from courses.models import Quiz
from grading.services.attempts import attempt_start
from tests.factories import QuizFactory

pytestmark = pytest.mark.django_db

CLOSE = datetime(2027, 1, 20, 12, 0, tzinfo=UTC)


def render(text: str, **context) -> str:
    return Template("{% load local_times %}" + text).render(Context(context))


def test_a_moment_is_written_in_utc_labelled_so_whatever_zone_it_came_in():
    india = timezone(timedelta(hours=5, minutes=30))
    moment = datetime(2027, 1, 20, 17, 30, tzinfo=india)  # 12:00 UTC
    assert render("{% local_time moment %}", moment=moment) == (
        '<time datetime="2027-01-20T12:00:00Z" data-local-time="datetime">'
        "2027-01-20 12:00 UTC</time>"
    )
    assert render('{% local_time moment "time" %}', moment=moment) == (
        '<time datetime="2027-01-20T12:00:00Z" data-local-time="time">12:00 UTC</time>'
    )
    assert render("{% local_time moment %}", moment=None) == ""
    with pytest.raises(TemplateSyntaxError, match="no style 'year'"):
        render('{% local_time moment "year" %}', moment=moment)


def test_quiz_and_attempt_pages_give_times_in_utc_with_the_script_to_localise_them(
    learner_client, learner
):
    quiz = QuizFactory(
        mode=Quiz.Mode.EXAM,
        show_feedback=Quiz.Feedback.AFTER_SUBMISSION,
        time_limit_minutes=30,
        closes_at=CLOSE,
    )
    attempt = attempt_start(user=learner, quiz=quiz)
    detail = learner_client.get(reverse("quiz-detail", kwargs={"slug": quiz.slug}))
    html = detail.content.decode()
    assert (
        '<dd><time datetime="2027-01-20T12:00:00Z" data-local-time="datetime">'
        "2027-01-20 12:00 UTC</time></dd>" in html
    )
    started = attempt.started_at.astimezone(UTC)
    assert f'<time datetime="{started:%Y-%m-%dT%H:%M:%SZ}"' in html  # the attempts table
    assert re.search(r'<script src="/static/js/local-time\.js"[^>]*defer', html)

    take = learner_client.get(reverse("attempt-take", kwargs={"pk": attempt.pk}))
    deadline = attempt.deadline.astimezone(UTC)
    assert (
        f'The attempt closes at <time datetime="{deadline:%Y-%m-%dT%H:%M:%SZ}" '
        f'data-local-time="time">{deadline:%H:%M} UTC</time>'
    ) in take.content.decode()
