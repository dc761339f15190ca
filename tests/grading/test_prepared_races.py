"""Prepared attempts under simultaneous requests on PostgreSQL: page loads at the same moment
prepare one attempt, and starts at the same moment start it once (the others resume it).

Each call runs in its own thread with its own connection, released together by a barrier, in
tests without a wrapping transaction; SQLite serialises writers, so these run on PostgreSQL only.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from grading.models import Attempt, Variant
from grading.services.attempts import attempt_start_or_resume
from grading.services.closing import attempt_submit
from grading.services.prepared import attempt_prepare, prepared_attempts_sweep
from tests.api.test_concurrency import simultaneously
from tests.factories import UserFactory
from tests.grading.exam_records import exam_build
from tests.grading.pools import quiz_with_pool

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="needs PostgreSQL (DATABASE_URL=postgres://…): SQLite serialises writers and "
        "the test database is in memory, so requests cannot race",
    ),
]

ROUNDS = 6
STARTS = 4


def test_page_loads_at_the_same_moment_prepare_one_attempt():
    quiz, _ = quiz_with_pool(draw=2, questions=4, problems=2)
    for _ in range(ROUNDS):
        user = UserFactory()
        found = simultaneously(*[lambda user=user: attempt_prepare(user=user, quiz=quiz)] * 3)
        prepared = Attempt.prepared.get(user=user)
        assert {attempt.pk for attempt in found} == {prepared.pk}
        assert prepared.draws.count() == 2


def test_starts_at_the_same_moment_start_the_prepared_attempt_once():
    exam = exam_build()
    exam.quiz.time_limit_minutes = 20
    exam.quiz.attempts_allowed = 1
    exam.quiz.save()
    for _ in range(ROUNDS):
        user = UserFactory()
        prepared = attempt_prepare(user=user, quiz=exam.quiz)
        variants = list(prepared.variants.values_list("pk", "seed"))
        starts = simultaneously(
            *[lambda user=user: attempt_start_or_resume(user=user, quiz=exam.quiz)] * STARTS
        )
        assert {started.attempt.pk for started in starts} == {prepared.pk}
        assert sorted(started.created for started in starts) == [False] * (STARTS - 1) + [True]
        attempt = Attempt.objects.get(user=user)
        assert (attempt.pk, attempt.status, attempt.number) == (
            prepared.pk,
            Attempt.Status.IN_PROGRESS,
            1,
        )
        assert attempt.deadline is not None
        assert list(attempt.variants.values_list("pk", "seed")) == variants
        assert not Attempt.prepared.filter(user=user).exists()
        assert Variant.objects.filter(attempt__user=user).count() == 1


def test_a_page_load_and_starts_at_the_same_moment_leave_one_attempt_in_progress():
    exam = exam_build()
    exam.quiz.attempts_allowed = 2
    exam.quiz.save()
    for _ in range(ROUNDS):
        user = UserFactory()
        calls = [lambda user=user: attempt_prepare(user=user, quiz=exam.quiz)] + [
            lambda user=user: attempt_start_or_resume(user=user, quiz=exam.quiz).attempt
        ] * 2
        _, first, second = simultaneously(*calls)
        assert first.pk == second.pk
        assert Attempt.objects.filter(user=user).count() == 1
        assert Attempt.objects.get(user=user).status == Attempt.Status.IN_PROGRESS
        # Whatever the page load found or made, it is not a second attempt that counts.
        assert Attempt.prepared.filter(user=user).count() <= 1
        attempt_submit(attempt=first)


def test_a_sweep_at_the_moment_of_a_start_never_deletes_the_started_attempt():
    exam = exam_build()
    for _ in range(ROUNDS):
        user = UserFactory()
        prepared = attempt_prepare(user=user, quiz=exam.quiz)
        # Old enough for the sweep (its started_at is when it was prepared).
        Attempt.prepared.filter(pk=prepared.pk).update(
            started_at=timezone.now() - timedelta(days=30)
        )
        _, started = simultaneously(
            prepared_attempts_sweep,
            lambda user=user: attempt_start_or_resume(user=user, quiz=exam.quiz).attempt,
        )
        attempt = Attempt.objects.get(user=user)
        assert (attempt.pk, attempt.status) == (started.pk, Attempt.Status.IN_PROGRESS)
        assert attempt.variants.count() == 1
        assert not Attempt.prepared.filter(user=user).exists()
