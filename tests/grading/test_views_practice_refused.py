"""Practice is no oracle for exams: during a learner's exam its problems cannot be practised, and
an exam-only problem never can; the pages say why and until when, and record nothing."""

from __future__ import annotations

from datetime import UTC, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from courses.models import Problem, Quiz
from grading.models import Attempt, PracticeStreak, Response, Variant
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.practice import practice_variant_current
from grading.services.responses import response_submit
from tests.factories import ProblemFactory, QuizFactory, QuizItemFactory, UserFactory
from tests.grading.test_views import practice_url, token_in

pytestmark = pytest.mark.django_db

EXAM = "attention-exam"
IN_EXAM = "dot-std"  # an item of the shipped exam
NOT_IN_EXAM = "dot-variance"


def exam_started(learner, **changes) -> Attempt:
    exam = Quiz.objects.get(slug=EXAM)
    attempt = attempt_start(user=learner, quiz=exam)
    if changes:
        Attempt.objects.filter(pk=attempt.pk).update(**changes)
        attempt.refresh_from_db()
    return attempt


def records(learner) -> tuple[int, int, int]:
    problem = Problem.objects.get(slug=IN_EXAM)
    practice = Variant.objects.filter(user=learner, problem=problem, attempt__isnull=True)
    return (
        practice.count(),
        Response.objects.filter(variant__in=practice).count(),
        PracticeStreak.objects.filter(user=learner, problem=problem).count(),
    )


def test_the_practice_page_says_why_and_until_the_exams_deadline(
    learner_client, learner, shipped_bank
):
    attempt = exam_started(learner)
    page = learner_client.get(practice_url(IN_EXAM))
    assert page.status_code == 403
    html = page.content.decode()
    exam = Quiz.objects.get(slug=EXAM)
    assert "paused while your exam “Check: why we divide by <math" in html
    assert "</math>” is in progress" in html
    assert exam.title not in html  # its formula is shown as math, not as source
    # The deadline is a <time> in the learner's zone (UTC until their browser has said its
    # own); the words around it stay as they are.
    utc = attempt.deadline.astimezone(UTC)
    assert (
        f'until <time datetime="{utc:%Y-%m-%dT%H:%M:%SZ}" title="UTC">'
        f"{utc:%-d %b %Y, %H:%M} UTC</time> (your exam's deadline), or until you submit it."
    ) in html
    assert 'name="answer"' not in html
    assert records(learner) == (0, 0, 0)
    # A problem the exam does not use stays open.
    assert learner_client.get(practice_url(NOT_IN_EXAM)).status_code == 200


def test_an_exam_without_time_limit_pauses_practice_until_it_is_submitted(
    learner_client, learner, shipped_bank
):
    attempt = exam_started(learner, deadline=None)
    html = learner_client.get(practice_url(IN_EXAM)).content.decode()
    assert "until you submit the exam." in html
    attempt_submit(attempt=attempt)
    assert learner_client.get(practice_url(IN_EXAM)).status_code == 200


def test_answers_and_new_variants_are_refused_and_record_nothing(
    learner_client, learner, shipped_bank
):
    problem = Problem.objects.get(slug=IN_EXAM)
    # A variant made (and its page opened) before the exam started.
    variant = practice_variant_current(user=learner, problem=problem)
    token = token_in(learner_client.get(practice_url(IN_EXAM)).content.decode())
    exam_started(learner)
    before = records(learner)
    answered = learner_client.post(
        practice_url(IN_EXAM), {"variant": variant.pk, "answer": "1", "token": token}
    )
    assert answered.status_code == 302
    refused = learner_client.get(answered.url)
    assert refused.status_code == 403
    assert "is paused while your exam" in refused.content.decode()
    renewed = learner_client.post(
        reverse("practice-new", kwargs={"slug": IN_EXAM}), {"replaces": variant.pk}
    )
    assert renewed.status_code == 302
    assert records(learner) == before == (1, 0, 0)


def test_practice_reopens_when_the_deadline_has_passed(learner_client, learner, shipped_bank):
    exam_started(learner, deadline=timezone.now() - timedelta(seconds=1))
    assert learner_client.get(practice_url(IN_EXAM)).status_code == 200


def test_only_the_learners_own_running_exam_counts(learner_client, learner, shipped_bank):
    exam_started(UserFactory())
    assert learner_client.get(practice_url(IN_EXAM)).status_code == 200
    # A practice quiz in progress is no exam: its verdicts are meant to be seen.
    practice_quiz = Quiz.objects.get(slug="attention-practice")
    attempt_start(user=learner, quiz=practice_quiz)
    used = practice_quiz.items.filter(problem__isnull=False).first().problem
    assert learner_client.get(practice_url(used.slug)).status_code == 200


# --- exam-only problems ------------------------------------------------------------------------


def test_an_exam_only_problem_is_refused_and_listed_nowhere(learner_client, learner, shipped_bank):
    problem = Problem.objects.get(slug=NOT_IN_EXAM)
    Problem.objects.filter(pk=problem.pk).update(exam_only=True)
    page = learner_client.get(practice_url(NOT_IN_EXAM))
    assert page.status_code == 403
    assert "is an exam-only problem: it cannot be practised." in page.content.decode()
    learner_client.post(reverse("practice-new", kwargs={"slug": NOT_IN_EXAM}), {"replaces": "1"})
    assert not Variant.objects.filter(problem=problem, attempt__isnull=True).exists()
    url = practice_url(NOT_IN_EXAM)
    lesson = problem.lesson
    listing = learner_client.get(reverse("practice-lesson", kwargs={"slug": lesson.slug}))
    assert url not in listing.content.decode()
    assert url not in learner_client.get(lesson.get_absolute_url()).content.decode()
    home = learner_client.get(reverse("home")).content.decode()
    practised = Problem.objects.filter(lesson=lesson, exam_only=False).count()
    assert f"0 of {practised} problems mastered" in home


def test_an_exam_only_problem_still_works_in_a_quiz(learner, db):
    problem = ProblemFactory(exam_only=True)
    quiz = QuizFactory(lesson=problem.lesson)
    item = QuizItemFactory(quiz=quiz, question=None, problem=problem)
    attempt = attempt_start(user=learner, quiz=quiz)
    response = response_submit(attempt=attempt, item=item, text="1")
    assert response.status in {"correct", "incorrect"}
