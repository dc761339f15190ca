"""The waiting room: the quiz page before the quiz opens for the learner shows its rules, a
countdown to the opening and the start, inactive until then (static/js/waiting-room.js makes it
active at the instant; a page loaded from the instant on has it active already)."""

from __future__ import annotations

import re
from datetime import UTC, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from grading.accommodations import LearnerRules, time_until_open
from grading.models import Attempt, QuizAccommodation
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.templatetags.countdowns import countdown_ms
from tests.grading.exam_records import exam_build, instructor_of

pytestmark = pytest.mark.django_db

START_DISABLED = re.compile(r"<button[^>]*disabled[^>]*data-start-button")


@pytest.fixture
def exam():
    built = exam_build()
    built.quiz.time_limit_minutes = 30
    built.quiz.opens_at = timezone.now() + timedelta(minutes=5)
    built.quiz.save()
    return built


def page(client, quiz) -> str:
    response = client.get(reverse("quiz-detail", kwargs={"slug": quiz.slug}))
    assert response.status_code == 200
    return response.content.decode()


def test_before_the_opening_the_page_is_a_waiting_room(learner_client, learner, exam):
    html = page(learner_client, exam.quiz)
    assert "Waiting room" in html
    assert 'role="timer"' in html
    assert 'aria-label="Time until the quiz opens"' in html
    assert 'aria-live="assertive"' in html
    assert START_DISABLED.search(html)
    # The server's time until the opening, for the script: about five minutes.
    left = int(re.search(r'data-opens-in-ms="(\d+)"', html).group(1))
    assert 290_000 < left <= 300_000
    assert re.search(r"<strong data-countdown-display>[45]:\d\d</strong>", html)
    # The opening in the learner's own time (the local_times tag), and the rules above it.
    opens = exam.quiz.opens_at.astimezone(UTC)
    assert f'<time datetime="{opens:%Y-%m-%dT%H:%M:%SZ}" title="UTC">' in html
    assert "30 minutes" in html
    assert "your clock starts only when you press it" in html
    # Scripts are files of the site's own (the content security policy allows no inline one).
    assert '<script src="/static/js/waiting-room.js" defer></script>' in html
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html)
    # Opening the page prepared the attempt.
    assert Attempt.prepared.filter(user=learner, quiz=exam.quiz).exists()


def test_from_the_opening_instant_a_reload_shows_the_start_active(
    learner_client, learner, exam, monkeypatch
):
    page(learner_client, exam.quiz)
    opens_at = exam.quiz.opens_at
    monkeypatch.setattr(timezone, "now", lambda: opens_at)  # the server's clock at the instant
    html = page(learner_client, exam.quiz)
    assert "Waiting room" not in html
    assert "data-opens-in-ms" not in html
    assert "waiting-room.js" not in html
    assert not START_DISABLED.search(html)
    assert "Start attempt 1" in html
    prepared = Attempt.prepared.get(user=learner)
    response = learner_client.post(reverse("attempt-start", kwargs={"slug": exam.quiz.slug}))
    assert response.url == reverse("attempt-take", kwargs={"pk": prepared.pk})


def test_a_start_posted_in_the_waiting_room_is_refused_with_the_opening_time(
    learner_client, learner, exam
):
    page(learner_client, exam.quiz)
    response = learner_client.post(
        reverse("attempt-start", kwargs={"slug": exam.quiz.slug}), follow=True
    )
    opens = exam.quiz.opens_at.astimezone(UTC)
    assert f"This quiz opens at {opens:%-d %b %Y, %H:%M} UTC." in response.content.decode()
    assert not Attempt.objects.exists()
    assert Attempt.prepared.count() == 1


def test_an_accommodated_learner_waits_for_the_same_opening(learner_client, learner, exam):
    QuizAccommodation.objects.create(quiz=exam.quiz, learner=learner, extra_minutes=10)
    html = page(learner_client, exam.quiz)
    assert START_DISABLED.search(html)
    assert "40 minutes" in html


def test_an_instructor_sees_the_preview_not_the_waiting_room(client, exam):
    client.force_login(instructor_of(exam))
    html = page(client, exam.quiz)
    assert "Waiting room" not in html
    assert "Preview as a learner" in html
    assert not Attempt.prepared.exists()


def test_a_learner_with_no_attempt_left_has_no_waiting_room(learner_client, learner, exam):
    exam.quiz.attempts_allowed = 1
    exam.quiz.opens_at = None
    exam.quiz.save()
    attempt_submit(attempt=attempt_start(user=learner, quiz=exam.quiz))
    exam.quiz.opens_at = timezone.now() + timedelta(minutes=5)
    exam.quiz.closes_at = timezone.now() + timedelta(hours=1)
    exam.quiz.save()
    html = page(learner_client, exam.quiz)
    assert "Waiting room" not in html
    assert "You have used all 1 attempt" in html


def test_a_quiz_without_an_opening_time_prepares_and_offers_the_start(learner_client, learner):
    quiz = exam_build().quiz
    html = page(learner_client, quiz)
    assert "Waiting room" not in html
    assert "Start attempt 1" in html
    assert not START_DISABLED.search(html)
    assert Attempt.prepared.filter(user=learner).count() == 1


def test_the_waiting_room_page_reads_few_statements(
    learner_client, learner, exam, django_assert_max_num_queries
):
    page(learner_client, exam.quiz)  # prepares
    # The quiz page's own and two for the prepared attempt (it, and the items it fits).
    with django_assert_max_num_queries(10):
        page(learner_client, exam.quiz)


def test_time_until_open():
    now = timezone.now()
    rules = LearnerRules(
        time_limit_minutes=None,
        attempts_allowed=None,
        opens_at=now + timedelta(seconds=90),
        closes_at=None,
    )
    assert time_until_open(rules=rules, now=now) == timedelta(seconds=90)
    assert time_until_open(rules=rules, now=now + timedelta(seconds=90)) is None
    no_opening = LearnerRules(
        time_limit_minutes=None, attempts_allowed=None, opens_at=None, closes_at=None
    )
    assert time_until_open(rules=no_opening, now=now) is None


@pytest.mark.parametrize(
    ("milliseconds", "shown"),
    [(0, "0:00"), (1, "0:01"), (4_000, "0:04"), (65_001, "1:06"), (3_725_000, "1:02:05")],
)
def test_countdown_ms_rounds_up_to_the_second(milliseconds, shown):
    assert countdown_ms(milliseconds) == shown
