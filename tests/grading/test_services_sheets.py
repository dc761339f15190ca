"""attempt_answers_save: a whole page of exam answers saved at once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import OperationalError, connection

from courses.models import Quiz
from grading.models import Response
from grading.services.attempts import attempt_start
from grading.services.errors import AttemptClosed, ServiceError
from grading.services.responses import SheetAnswer, attempt_answers_save

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam_attempt(learner, shipped_bank):
    return attempt_start(user=learner, quiz=Quiz.objects.get(slug="attention-exam"))


def _items(attempt):
    items = list(attempt.quiz.items.order_by("order"))
    problem = next(i for i in items if i.problem_id)
    question = next(i for i in items if i.question_id)
    return problem, question


def test_saves_changed_answers_and_skips_blank_and_unchanged_ones(exam_attempt):
    problem, question = _items(exam_attempt)
    right = question.question.choices.get(is_correct=True)
    recorded = attempt_answers_save(
        attempt=exam_attempt,
        answers={
            problem.pk: SheetAnswer(text="4"),
            question.pk: SheetAnswer(choice_ids=(right.pk,)),
        },
    )
    assert set(recorded) == {problem.pk, question.pk}
    again = attempt_answers_save(
        attempt=exam_attempt,
        answers={
            problem.pk: SheetAnswer(text="4"),
            question.pk: SheetAnswer(choice_ids=(right.pk,)),
        },
    )
    assert again == {}
    blank = attempt_answers_save(
        attempt=exam_attempt, answers={problem.pk: SheetAnswer(text="   ")}
    )
    assert blank == {}
    changed = attempt_answers_save(
        attempt=exam_attempt, answers={problem.pk: SheetAnswer(text="5")}
    )
    assert changed[problem.pk].text == "5"
    assert Response.objects.filter(attempt=exam_attempt).count() == 3


def test_an_item_of_another_quiz_saves_nothing(exam_attempt):
    problem, _ = _items(exam_attempt)
    foreign = Quiz.objects.get(slug="attention-practice").items.first()
    with pytest.raises(ServiceError, match="not part of this quiz"):
        attempt_answers_save(
            attempt=exam_attempt,
            answers={problem.pk: SheetAnswer(text="4"), foreign.pk: SheetAnswer(text="1")},
        )
    assert not Response.objects.exists()


def test_the_same_key_twice_saves_each_answer_once(exam_attempt):
    problem, _ = _items(exam_attempt)
    for _ in range(2):
        attempt_answers_save(
            attempt=exam_attempt,
            answers={problem.pk: SheetAnswer(text="7")},
            idempotency_key="page-token",
        )
    (response,) = Response.objects.filter(attempt=exam_attempt)
    assert response.idempotency_key == f"page-token:{problem.pk}"


def test_after_the_deadline_nothing_is_saved_and_the_attempt_is_graded(exam_attempt):
    problem, _ = _items(exam_attempt)
    late = exam_attempt.deadline + timedelta(seconds=1)
    with pytest.raises(AttemptClosed, match="Time is up"):
        attempt_answers_save(
            attempt=exam_attempt, answers={problem.pk: SheetAnswer(text="7")}, now=late
        )
    exam_attempt.refresh_from_db()
    assert exam_attempt.late
    assert not Response.objects.exists()
    assert exam_attempt.status == exam_attempt.Status.SUBMITTED


class FailsAtSecondAnswer:
    """An execute wrapper: the second answer written fails as when the database restarts."""

    def __init__(self):
        self.inserts = 0

    def __call__(self, execute, sql, params, many, context):
        if sql.lstrip().upper().startswith(("INSERT", "WITH")) and "grading_response" in sql:
            self.inserts += 1
            if self.inserts == 2:
                raise OperationalError("terminating connection due to administrator command")
        return execute(sql, params, many, context)


def test_a_database_failing_half_way_saves_none_of_the_sheet(exam_attempt):
    problem, question = _items(exam_attempt)
    right = question.question.choices.get(is_correct=True)
    sheet = {
        problem.pk: SheetAnswer(text="4"),
        question.pk: SheetAnswer(choice_ids=(right.pk,)),
    }
    outage = FailsAtSecondAnswer()
    with connection.execute_wrapper(outage), pytest.raises(OperationalError):
        attempt_answers_save(attempt=exam_attempt, answers=sheet, idempotency_key="t")
    assert outage.inserts == 2
    assert not Response.objects.exists()
    exam_attempt.refresh_from_db()
    assert exam_attempt.score == 0

    # Sent again once the database is back (the same token): the whole sheet, once.
    recorded = attempt_answers_save(attempt=exam_attempt, answers=sheet, idempotency_key="t")
    assert set(recorded) == {problem.pk, question.pk}
    assert Response.objects.filter(attempt=exam_attempt).count() == 2
