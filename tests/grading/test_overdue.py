"""Attempts whose time ran out are closed on the server (grading/services/overdue.py): with only
the answers saved before the deadline, as the quiz chooses, scored and passed back once, by the
task queued at the start, by the sweep, or by whichever read comes first."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.tasks import default_task_backend
from django.utils import timezone

from courses.models import Quiz
from grading import accommodations, policy, quiz_rules, scores, tasks
from grading.models import Attempt, Response
from grading.services.accommodations import (
    AccommodationTerms,
    accommodation_remove,
    accommodation_set,
)
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_rescore, attempt_submit
from grading.services.errors import AttemptClosed
from grading.services.overdue import attempt_close_when_due, overdue_attempts_close
from grading.services.responses import SheetAnswer, attempt_answers_save, response_submit
from grading.tasks import attempt_close
from tests.factories import UserFactory
from tests.grading.exam_records import Exam, exam_build, instructor_of

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 12, 5, 9, 0, tzinfo=UTC)
DEADLINE = NOW + timedelta(minutes=60)


def minutes(n: float) -> datetime:
    return NOW + timedelta(minutes=n)


@pytest.fixture
def exam() -> Exam:
    built = exam_build()
    quiz_sets(built, time_limit_minutes=60)
    return built


@pytest.fixture(autouse=True)
def _empty_task_queue():
    default_task_backend.clear()
    yield
    default_task_backend.clear()


def quiz_sets(exam: Exam, **fields) -> None:
    Quiz.objects.filter(pk=exam.quiz.pk).update(**fields)
    exam.quiz.refresh_from_db()


def started(exam: Exam, user=None) -> Attempt:
    return attempt_start(user=user or UserFactory(), quiz=exam.quiz, now=NOW)


def picks(exam: Exam, attempt: Attempt, label: str, *, at: datetime) -> Response:
    """The learner saves choice `label` (A is right: 2 points) of the exam's question."""
    return response_submit(
        attempt=attempt, item=exam.question_item, choice_ids=[exam.choices[label].pk], now=at
    )


def fresh(attempt: Attempt) -> Attempt:
    return Attempt.objects.get(pk=attempt.pk)


# --- submit what was saved (the default) --------------------------------------------------------


def test_an_attempt_left_open_is_submitted_with_what_was_saved_and_passed_back_once(
    exam, hook_calls, django_capture_on_commit_callbacks
):
    assert exam.quiz.overdue_handling == Quiz.OverdueHandling.SUBMIT
    attempt = started(exam)
    picks(exam, attempt, "A", at=minutes(10))
    assert overdue_attempts_close(now=minutes(59)) == 0
    assert fresh(attempt).status == Attempt.Status.IN_PROGRESS

    with django_capture_on_commit_callbacks(execute=True):
        assert overdue_attempts_close(now=minutes(60)) == 1
    closed = fresh(attempt)
    assert (closed.status, closed.late, closed.submitted_at) == (
        Attempt.Status.SUBMITTED,
        True,
        DEADLINE,
    )
    assert closed.score == 2.0
    assert hook_calls == [attempt.pk]
    assert scores.best_attempt(user=attempt.user, quiz=exam.quiz) == closed

    # Closed once: a second sweep finds nothing, and the LMS hears of it once.
    with django_capture_on_commit_callbacks(execute=True):
        assert overdue_attempts_close(now=minutes(70)) == 0
    assert hook_calls == [attempt.pk]


def test_an_answer_after_the_deadline_is_refused_in_the_grace_period_and_never_counts(exam):
    quiz_sets(exam, grace_minutes=5)
    attempt = started(exam)
    picks(exam, attempt, "B", at=minutes(10))
    with pytest.raises(AttemptClosed, match="Submit the attempt now"):
        picks(exam, attempt, "A", at=minutes(62))
    sheet = {exam.question_item.pk: SheetAnswer(choice_ids=(exam.choices["A"].pk,))}
    with pytest.raises(AttemptClosed, match="Submit the attempt now"):
        attempt_answers_save(attempt=attempt, answers=sheet, now=minutes(60))
    assert Response.objects.filter(attempt=attempt).count() == 1

    # The grace period is for the learner to submit: the server waits it out.
    assert overdue_attempts_close(now=minutes(64)) == 0
    assert fresh(attempt).status == Attempt.Status.IN_PROGRESS
    assert overdue_attempts_close(now=minutes(65)) == 1
    closed = fresh(attempt)
    assert (closed.status, closed.submitted_at, closed.score) == (
        Attempt.Status.SUBMITTED,
        DEADLINE,
        0.0,
    )
    # Closed, an answer is refused as arriving after the deadline, the saved ones graded.
    with pytest.raises(AttemptClosed, match="saved answers have been graded"):
        picks(exam, closed, "A", at=minutes(66))


def test_within_the_grace_period_the_learner_may_still_submit(exam, hook_calls):
    quiz_sets(exam, grace_minutes=5)
    attempt = started(exam)
    picks(exam, attempt, "A", at=minutes(10))
    attempt_submit(attempt=attempt, now=minutes(63))
    submitted = fresh(attempt)
    assert (submitted.status, submitted.late, submitted.submitted_at, submitted.score) == (
        Attempt.Status.SUBMITTED,
        False,
        minutes(63),
        2.0,
    )
    assert overdue_attempts_close(now=minutes(70)) == 0


def test_a_submit_after_the_grace_period_is_refused_and_closes_the_attempt_once(
    exam, hook_calls, django_capture_on_commit_callbacks
):
    quiz_sets(exam, grace_minutes=5)
    attempt = started(exam)
    picks(exam, attempt, "A", at=minutes(10))
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(AttemptClosed, match="arrived after the deadline"):
            attempt_submit(attempt=attempt, now=minutes(66))
        assert overdue_attempts_close(now=minutes(67)) == 0
        with pytest.raises(AttemptClosed):
            attempt_submit(attempt=fresh(attempt), now=minutes(68))
    closed = fresh(attempt)
    assert (closed.status, closed.late, closed.score) == (Attempt.Status.SUBMITTED, True, 2.0)
    assert hook_calls == [attempt.pk]


def test_a_learner_with_extra_minutes_is_closed_at_their_own_deadline(exam):
    plain, helped = UserFactory(), UserFactory()
    accommodation_set(
        quiz=exam.quiz,
        learner=helped,
        terms=AccommodationTerms(extra_minutes=30),
        by=instructor_of(exam),
        now=NOW,
    )
    plain_attempt, helped_attempt = started(exam, plain), started(exam, helped)
    assert overdue_attempts_close(now=minutes(61)) == 1
    assert fresh(plain_attempt).status == Attempt.Status.SUBMITTED
    assert fresh(helped_attempt).status == Attempt.Status.IN_PROGRESS
    assert overdue_attempts_close(now=minutes(90)) == 1
    assert fresh(helped_attempt).submitted_at == minutes(90)


def test_the_sweep_closes_only_the_attempts_it_is_given(exam):
    one, other = started(exam), started(exam)
    assert overdue_attempts_close(user=one.user, now=minutes(61)) == 1
    assert fresh(other).status == Attempt.Status.IN_PROGRESS
    assert overdue_attempts_close(quiz=exam.quiz, now=minutes(61)) == 1
    assert fresh(other).status == Attempt.Status.SUBMITTED


def test_an_attempt_without_a_deadline_is_never_closed(exam):
    quiz_sets(exam, time_limit_minutes=None)
    attempt = started(exam)
    assert attempt.deadline is None
    assert overdue_attempts_close(now=NOW + timedelta(days=400)) == 0
    assert fresh(attempt).status == Attempt.Status.IN_PROGRESS


# --- never submitted: no score ------------------------------------------------------------------


def test_an_attempt_left_open_at_a_no_score_quiz_is_closed_unsubmitted_with_no_score(
    exam, hook_calls, django_capture_on_commit_callbacks
):
    quiz_sets(exam, overdue_handling=Quiz.OverdueHandling.NO_SCORE)
    attempt = started(exam)
    picks(exam, attempt, "A", at=minutes(10))
    with django_capture_on_commit_callbacks(execute=True):
        assert overdue_attempts_close(now=minutes(60)) == 1
    closed = fresh(attempt)
    assert (closed.status, closed.late, closed.score, closed.submitted_at) == (
        Attempt.Status.NEVER_SUBMITTED,
        True,
        0.0,
        DEADLINE,
    )
    # Counted nowhere as a score: no best attempt, nothing for the LMS, nothing shown.
    assert hook_calls == []
    assert scores.best_attempt(user=attempt.user, quiz=exam.quiz) is None
    shown = policy.attempt_visibility(attempt=closed, now=minutes(61), answers_release_at=None)
    assert shown == policy.NOTHING
    with pytest.raises(AttemptClosed, match="no score"):
        attempt_submit(attempt=closed, now=minutes(61))
    with pytest.raises(AttemptClosed, match="no score"):
        picks(exam, closed, "A", at=minutes(61))


def test_a_rescore_never_gives_an_attempt_never_submitted_a_score(exam):
    """Regrades and point changes rescore every attempt through attempt_rescore."""
    quiz_sets(exam, overdue_handling=Quiz.OverdueHandling.NO_SCORE)
    attempt = started(exam)
    picks(exam, attempt, "A", at=minutes(10))
    overdue_attempts_close(now=minutes(60))
    closed = fresh(attempt)
    attempt_rescore(attempt=closed)
    assert (fresh(attempt).score, fresh(attempt).max_score) == (0.0, 5.0)


def test_at_a_no_score_quiz_a_submission_in_time_counts_as_ever(exam, hook_calls):
    quiz_sets(exam, overdue_handling=Quiz.OverdueHandling.NO_SCORE, grace_minutes=5)
    on_time, in_grace = started(exam), started(exam)
    picks(exam, on_time, "A", at=minutes(10))
    picks(exam, in_grace, "A", at=minutes(10))
    attempt_submit(attempt=on_time, now=minutes(30))
    attempt_submit(attempt=in_grace, now=minutes(64))
    assert [fresh(a).status for a in (on_time, in_grace)] == [Attempt.Status.SUBMITTED] * 2
    assert [fresh(a).score for a in (on_time, in_grace)] == [2.0, 2.0]


# --- the task queued at the start, and the sweep command ----------------------------------------


def test_a_start_queues_the_closing_for_the_deadline_plus_grace(
    exam, django_capture_on_commit_callbacks
):
    quiz_sets(exam, grace_minutes=5)
    with django_capture_on_commit_callbacks(execute=True):
        attempt = started(exam)
    (queued,) = default_task_backend.results
    assert queued.task.module_path == attempt_close.module_path
    assert (queued.task.run_after, queued.args) == (minutes(65), [attempt.pk])


def test_a_start_without_a_deadline_queues_nothing(exam, django_capture_on_commit_callbacks):
    quiz_sets(exam, time_limit_minutes=None)
    with django_capture_on_commit_callbacks(execute=True):
        started(exam)
    assert default_task_backend.results == []


def test_the_task_closes_when_due_and_waits_for_a_deadline_moved_later(exam):
    attempt = started(exam)
    # An accommodation moved the deadline after the task was queued: the new moment comes back.
    Attempt.objects.filter(pk=attempt.pk).update(deadline=minutes(90))
    assert attempt_close_when_due(attempt_id=attempt.pk, now=minutes(60)) == (
        "rescheduled",
        minutes(90),
    )
    assert fresh(attempt).status == Attempt.Status.IN_PROGRESS

    assert attempt_close_when_due(attempt_id=attempt.pk, now=minutes(90)) == ("closed", None)
    assert fresh(attempt).status == Attempt.Status.SUBMITTED
    assert attempt_close_when_due(attempt_id=attempt.pk, now=minutes(91)) == ("not open", None)
    missing = attempt_close_when_due(attempt_id=attempt.pk + 1000, now=minutes(91))
    assert missing == ("missing", None)


def test_the_task_queues_itself_again_for_a_close_moment_moved_later(exam):
    attempt = started(exam)
    later = timezone.now() + timedelta(hours=2)
    Attempt.objects.filter(pk=attempt.pk).update(deadline=later)
    default_task_backend.clear()
    assert attempt_close.call(attempt.pk) == "rescheduled"
    (queued,) = default_task_backend.results
    assert queued.task.module_path == attempt_close.module_path
    assert (queued.task.run_after, queued.args) == (later, [attempt.pk])
    assert fresh(attempt).status == Attempt.Status.IN_PROGRESS


def test_an_accommodation_moving_the_close_earlier_queues_the_closing_again(
    exam, django_capture_on_commit_callbacks
):
    quiz_sets(exam, grace_minutes=5)
    learner, instructor = UserFactory(), instructor_of(exam)
    helped = accommodation_set(
        quiz=exam.quiz,
        learner=learner,
        terms=AccommodationTerms(extra_minutes=30),
        by=instructor,
        now=NOW,
    )
    with django_capture_on_commit_callbacks(execute=True):
        attempt = started(exam, learner)
    # The row's start is the clock's (auto_now_add): put it where this test's clock stands.
    Attempt.objects.filter(pk=attempt.pk).update(started_at=NOW)
    assert [q.task.run_after for q in default_task_backend.results] == [minutes(95)]
    default_task_backend.clear()

    # Taken away ten minutes in: the task queued for minute 95 would close it 30 minutes late.
    with django_capture_on_commit_callbacks(execute=True):
        accommodation_remove(accommodation=helped, by=instructor, now=minutes(10))
    (queued,) = default_task_backend.results
    assert queued.task.module_path == attempt_close.module_path
    assert (queued.task.run_after, queued.args) == (minutes(65), [attempt.pk])
    assert attempt_close_when_due(attempt_id=attempt.pk, now=minutes(65)) == ("closed", None)


def test_an_accommodation_moving_the_close_later_queues_nothing_more(
    exam, django_capture_on_commit_callbacks
):
    learner = UserFactory()
    with django_capture_on_commit_callbacks(execute=True):
        attempt = started(exam, learner)
    Attempt.objects.filter(pk=attempt.pk).update(started_at=NOW)
    default_task_backend.clear()
    with django_capture_on_commit_callbacks(execute=True):
        accommodation_set(
            quiz=exam.quiz,
            learner=learner,
            terms=AccommodationTerms(extra_minutes=30),
            by=instructor_of(exam),
            now=minutes(10),
        )
    # The task queued for minute 60 queues itself again for minute 90 when it runs.
    assert default_task_backend.results == []
    assert fresh(attempt).deadline == minutes(90)


def test_the_task_runs_the_closing(exam):
    # Started a day ago by the clock: the task reads the clock, as the worker runs it.
    yesterday = timezone.now() - timedelta(days=1)
    attempt = attempt_start(user=UserFactory(), quiz=exam.quiz, now=yesterday)
    assert attempt_close.call(attempt.pk) == "closed"
    assert fresh(attempt).status == Attempt.Status.SUBMITTED


def test_the_sweep_command_closes_every_overdue_attempt(exam):
    long_ago = timezone.now() - timedelta(days=1)
    overdue = [attempt_start(user=UserFactory(), quiz=exam.quiz, now=long_ago) for _ in "ab"]
    out = StringIO()
    call_command("close_overdue_attempts", stdout=out)
    assert out.getvalue() == "Closed 2 overdue attempts.\n"
    assert {fresh(a).status for a in overdue} == {Attempt.Status.SUBMITTED}


# --- what the quiz page says ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("handling", "grace", "said"),
    [
        (
            Quiz.OverdueHandling.SUBMIT,
            0,
            "If you have not submitted, the answers you saved are submitted.",
        ),
        (
            Quiz.OverdueHandling.NO_SCORE,
            0,
            "If you have not submitted, the attempt is closed unsubmitted, with no score.",
        ),
        (
            Quiz.OverdueHandling.SUBMIT,
            1,
            "You may still submit for 1 minute (no answer is saved "
            "after the deadline); then, if you have not, the answers you saved are submitted.",
        ),
        (
            Quiz.OverdueHandling.NO_SCORE,
            5,
            "You may still submit for 5 minutes (no answer is "
            "saved after the deadline); then, if you have not, the attempt is closed unsubmitted, "
            "with no score.",
        ),
    ],
)
def test_the_quiz_rules_say_what_happens_when_time_runs_out(exam, handling, grace, said):
    quiz_sets(exam, overdue_handling=handling, grace_minutes=grace)
    rules = accommodations.learner_rules(quiz=exam.quiz, user=UserFactory())
    assert quiz_rules.overdue_rule(quiz=exam.quiz, rules=rules) == said


def test_without_a_time_limit_or_a_close_the_rules_say_nothing_of_it(exam):
    quiz_sets(exam, time_limit_minutes=None)
    rules = accommodations.learner_rules(quiz=exam.quiz, user=UserFactory())
    assert quiz_rules.overdue_rule(quiz=exam.quiz, rules=rules) == ""
    quiz_sets(exam, closes_at=NOW)
    rules = accommodations.learner_rules(quiz=exam.quiz, user=UserFactory())
    assert quiz_rules.overdue_rule(quiz=exam.quiz, rules=rules).startswith("If you have not")


def test_a_queue_that_fails_loses_nothing_and_says_so(
    exam, monkeypatch, caplog, django_capture_on_commit_callbacks
):
    class Refusing:
        def using(self, **options):
            raise ConnectionError("the task table is unreachable")

    monkeypatch.setattr(tasks, "attempt_close", Refusing())
    with django_capture_on_commit_callbacks(execute=True):
        attempt = started(exam)
    assert fresh(attempt).status == Attempt.Status.IN_PROGRESS
    assert f"Closing attempt {attempt.pk} could not be queued; the sweep will" in caplog.text
    # The sweep closes it all the same.
    assert overdue_attempts_close(now=minutes(60)) == 1
