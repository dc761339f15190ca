"""Deleting an attempt: its own permission (not implied by being staff), and a log that stays."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission

from grading.deletions import AttemptDeletionNotAllowed, attempt_delete
from grading.models import Attempt, AttemptDeletion, Response, ScoreChange, Variant
from grading.overrides import item_score_override
from tests.factories import InstructorFactory, UserFactory
from tests.grading.exam_records import exam_build, sit

pytestmark = pytest.mark.django_db


def granted(user, *codenames: str):
    user.user_permissions.add(
        *Permission.objects.filter(content_type__app_label="grading", codename__in=codenames)
    )
    return type(user).objects.get(pk=user.pk)  # a fresh instance: permissions are cached


def test_staff_with_every_ordinary_permission_still_cannot_delete_an_attempt():
    exam = exam_build()
    attempt = sit(exam, UserFactory(), choice="A", factor=1.0)
    staff = granted(UserFactory(is_staff=True), "delete_attempt", "change_attempt", "view_attempt")
    with pytest.raises(AttemptDeletionNotAllowed, match=r"grading\.delete_attempt_record"):
        attempt_delete(attempt=attempt, by=staff, reason="Test attempt.")
    assert Attempt.objects.filter(pk=attempt.pk).exists()
    assert Response.objects.filter(attempt=attempt).count() == 2
    assert not AttemptDeletion.objects.exists()


def test_a_deletion_is_logged_and_the_log_and_audit_trail_outlive_the_attempt(
    hook_calls, django_capture_on_commit_callbacks
):
    exam = exam_build()
    learner = UserFactory(username="eve")
    first = sit(exam, learner, choice="B", factor=1.0)  # 0 + 3 = 3
    best = sit(exam, learner, choice="A", factor=1.0)  # 2 + 3 = 5
    item_score_override(
        attempt=best, item=exam.problem_item, score=2, reason="Copied.", by=InstructorFactory()
    )  # 2 + 2 = 4
    deleter = granted(UserFactory(is_staff=True), "delete_attempt_record")
    hook_calls.clear()
    with django_capture_on_commit_callbacks(execute=True):
        log = attempt_delete(attempt=best, by=deleter, reason="  Sat by the wrong account.  ")

    assert not Attempt.objects.filter(pk=best.pk).exists()
    assert not Response.objects.filter(attempt_id=best.pk).exists()
    assert not Variant.objects.filter(attempt_id=best.pk).exists()
    assert AttemptDeletion.objects.get() == log
    assert (log.attempt_id, log.learner, log.learner_username) == (best.pk, learner, "eve")
    assert (log.quiz, log.quiz_slug, log.number, log.status) == (
        exam.quiz,
        exam.quiz.slug,
        2,
        "submitted",
    )
    assert (log.score, log.max_score, log.responses) == (4.0, 5.0, 2)
    assert (log.started_at, log.submitted_at) == (best.started_at, best.submitted_at)
    assert log.reason == "Sat by the wrong account."
    assert (log.by, log.by_username) == (deleter, deleter.username)
    assert log.deleted_at is not None
    # The override's audit row stays, with the learner it concerned.
    override = ScoreChange.objects.get()
    assert (override.attempt, override.learner, override.new_score) == (None, learner, 2.0)
    # The LMS is told the best remaining score (the first attempt's 3).
    assert hook_calls == [first.pk]


def test_superusers_hold_the_permission_and_an_open_attempt_tells_the_lms_nothing(
    hook_calls, django_capture_on_commit_callbacks
):
    exam = exam_build()
    attempt = sit(exam, UserFactory(), choice="A", factor=1.0, submit=False)
    hook_calls.clear()
    with django_capture_on_commit_callbacks(execute=True):
        log = attempt_delete(attempt=attempt, by=InstructorFactory())
    assert (log.status, log.score, log.reason) == ("in_progress", 5.0, "")
    assert not Attempt.objects.exists()
    assert hook_calls == []


def test_a_deletion_log_row_cannot_be_deleted():
    exam = exam_build()
    log = attempt_delete(
        attempt=sit(exam, UserFactory(), choice="A", factor=1.0), by=InstructorFactory()
    )
    with pytest.raises(TypeError, match="never deleted"):
        log.delete()
    assert AttemptDeletion.objects.count() == 1
