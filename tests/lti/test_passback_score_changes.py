"""An override, a regrade or a deletion after submission reaches the LMS gradebook: the
learner's new best score is queued for the link they launched from."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from grading.deletions import attempt_delete
from grading.models import Attempt
from grading.overrides import item_score_override
from grading.quiz_edits import quiz_item_points_change
from grading.regrades import quiz_item_regrade
from lti.models import ScorePassback
from teaching.models import CourseRole
from tests.factories import UserFactory
from tests.lti.test_passback import learner_submits, submit

pytestmark = pytest.mark.django_db

LINEITEM_URL = "https://lms.example.edu/api/lti/courses/101/line_items/55"


@pytest.fixture
def instructor(quiz):
    """An instructor of the quiz's course: who may override and regrade its scores."""
    user = UserFactory()
    CourseRole.objects.create(course=quiz.lesson.course, user=user, role=CourseRole.Role.INSTRUCTOR)
    return user


def scores_queued() -> list[tuple[float, float]]:
    return list(
        ScorePassback.objects.filter(status=ScorePassback.Status.QUEUED).values_list(
            "score_given", "score_maximum"
        )
    )


def submitted_attempt(client, platform, quiz, capture) -> Attempt:
    attempt = submit(learner_submits(client, platform, quiz, lineitem=LINEITEM_URL), capture)
    assert scores_queued() == [(attempt.score, attempt.max_score)]
    return attempt


def answered_question_item(attempt: Attempt):
    return attempt.quiz.items.filter(question__isnull=False).order_by("order", "id").first()


def test_an_override_queues_the_new_score(
    client, platform, quiz, instructor, django_capture_on_commit_callbacks
):
    attempt = submitted_attempt(client, platform, quiz, django_capture_on_commit_callbacks)
    item = answered_question_item(attempt)
    before = attempt.score
    with django_capture_on_commit_callbacks(execute=True):
        item_score_override(attempt=attempt, item=item, score=0, reason="Collusion.", by=instructor)
    # The earlier score, still waiting, is replaced by the one with the item's points taken off.
    assert scores_queued() == [(before - item.points, attempt.max_score)]
    assert attempt.score == before - item.points
    assert ScorePassback.objects.filter(status=ScorePassback.Status.SUPERSEDED).count() == 1


def test_an_applied_regrade_queues_the_new_score_and_a_preview_does_not(
    client, platform, quiz, instructor, django_capture_on_commit_callbacks
):
    attempt = submitted_attempt(client, platform, quiz, django_capture_on_commit_callbacks)
    item = answered_question_item(attempt)
    # The instructor finds the keyed answer wrong: the right choice is now a wrong one.
    right = item.question.choices.filter(is_correct=True).first()
    right.is_correct = False
    right.misconception = item.question.lesson.misconceptions.first()
    right.save()
    with django_capture_on_commit_callbacks(execute=True):
        quiz_item_regrade(item=item, by=instructor, apply=False)
    assert scores_queued() == [(attempt.score, attempt.max_score)]
    with django_capture_on_commit_callbacks(execute=True):
        quiz_item_regrade(item=item, by=instructor, apply=True)
    assert scores_queued() == [(attempt.score - item.points, attempt.max_score)]


def test_an_override_on_the_instructor_pages_queues_the_new_score(
    client, platform, quiz, instructor, django_capture_on_commit_callbacks
):
    attempt = submitted_attempt(client, platform, quiz, django_capture_on_commit_callbacks)
    item = answered_question_item(attempt)
    before = attempt.score
    teacher = Client()
    teacher.force_login(instructor)
    url = reverse("teaching:item-override", args=[attempt.pk, item.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = teacher.post(url, {"score": "0", "reason": "Collusion."})
    assert response.status_code == 302
    assert scores_queued() == [(before - item.points, attempt.max_score)]


def test_a_regrade_applied_on_the_instructor_pages_queues_the_new_score(
    client, platform, quiz, instructor, django_capture_on_commit_callbacks
):
    attempt = submitted_attempt(client, platform, quiz, django_capture_on_commit_callbacks)
    item = answered_question_item(attempt)
    # The keyed choice becomes wrong (for the lesson's first misconception), another right.
    choices = list(item.question.choices.order_by("order", "pk"))
    right = next(c for c in choices if c.is_correct)
    other = next(c for c in choices if not c.is_correct)
    mistaken = item.question.lesson.misconceptions.first()
    fix = {"fix": "1", "correct": str(other.pk)}
    fix.update({f"misconception_{c.pk}": str(c.misconception_id or mistaken.pk) for c in choices})
    teacher = Client()
    teacher.force_login(instructor)
    url = reverse("teaching:item-regrade", args=[item.pk])
    page = teacher.get(url, fix).content.decode()
    marker = 'name="digest" value="'
    fix["digest"] = page[page.index(marker) + len(marker) :].split('"', 1)[0]
    with django_capture_on_commit_callbacks(execute=True):
        assert teacher.post(url, fix).status_code == 302
    assert not item.question.choices.get(pk=right.pk).is_correct
    assert scores_queued() == [(attempt.score - item.points, attempt.max_score)]


def test_deleting_the_best_attempt_queues_the_best_remaining_one(
    client, platform, quiz, django_capture_on_commit_callbacks
):
    best = submitted_attempt(client, platform, quiz, django_capture_on_commit_callbacks)
    # A second, blank attempt by the same learner: the LMS keeps the best score.
    weaker = Attempt.objects.get(
        pk=submit(
            learner_submits(client, platform, quiz, answer_all=False, lineitem=LINEITEM_URL),
            django_capture_on_commit_callbacks,
        ).pk
    )
    assert weaker.score < best.score
    assert scores_queued() == [(best.score, best.max_score)]
    deleter = UserFactory(is_staff=True)
    deleter.user_permissions.add(Permission.objects.get(codename="delete_attempt_record"))
    deleter = type(deleter).objects.get(pk=deleter.pk)
    with django_capture_on_commit_callbacks(execute=True):
        attempt_delete(attempt=best, by=deleter, reason="Sat by someone else.")
    assert scores_queued() == [(weaker.score, weaker.max_score)]


def test_a_points_change_queues_the_new_score_and_maximum_once(
    client, platform, quiz, instructor, django_capture_on_commit_callbacks
):
    attempt = submitted_attempt(client, platform, quiz, django_capture_on_commit_callbacks)
    item = answered_question_item(attempt)
    earned, maximum = attempt.score, attempt.max_score
    with django_capture_on_commit_callbacks(execute=True):
        quiz_item_points_change(item=item, points=item.points + 2, by=instructor)
    attempt.refresh_from_db()
    assert attempt.max_score == maximum + 2
    # The LMS gets the regraded score out of the new maximum, in one passback.
    assert scores_queued() == [(attempt.score, attempt.max_score)]
    assert attempt.score == earned + 2  # every question was answered right
