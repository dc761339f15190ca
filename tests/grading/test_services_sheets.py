"""attempt_answers_save: a whole page of exam answers saved at once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import OperationalError, connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from courses.models import Problem, Question, Quiz, QuizItem
from grading import engine, scores
from grading.models import Attempt, Response, Variant
from grading.services.attempts import attempt_start
from grading.services.errors import AttemptClosed, IdempotencyConflict, NoTriesLeft, ServiceError
from grading.services.responses import SheetAnswer, attempt_answers_save, response_submit
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam_attempt(learner, shipped_bank):
    return attempt_start(user=learner, quiz=Quiz.objects.get(slug="attention-exam"))


def _items(attempt):
    items = list(attempt.quiz.items.order_by("order"))
    problem = next(i for i in items if i.problem_id)
    question = next(i for i in items if i.question_id)
    return problem, question


def _two_answers(attempt, text: str) -> dict[int, SheetAnswer]:
    """The typed `text` for the attempt's first problem, the right choice for its first question."""
    problem, question = _items(attempt)
    right = question.question.choices.get(is_correct=True)
    return {problem.pk: SheetAnswer(text=text), question.pk: SheetAnswer(choice_ids=(right.pk,))}


def test_saves_changed_answers_and_skips_blank_and_unchanged_ones(exam_attempt):
    problem, question = _items(exam_attempt)
    recorded = attempt_answers_save(attempt=exam_attempt, answers=_two_answers(exam_attempt, "4"))
    assert set(recorded) == {problem.pk, question.pk}
    again = attempt_answers_save(attempt=exam_attempt, answers=_two_answers(exam_attempt, "4"))
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


def test_an_item_of_another_quiz_is_left_out_when_the_caller_says_so(exam_attempt):
    # The attempt page's form: a page older than an edit of the quiz still has the old item.
    problem, _ = _items(exam_attempt)
    foreign = Quiz.objects.get(slug="attention-practice").items.first()
    recorded = attempt_answers_save(
        attempt=exam_attempt,
        answers={problem.pk: SheetAnswer(text="4"), foreign.pk: SheetAnswer(text="1")},
        others_ignored=True,
    )
    assert set(recorded) == {problem.pk}
    assert list(Response.objects.values_list("quiz_item", flat=True)) == [problem.pk]


def test_an_answer_saved_without_a_fingerprint_is_compared_by_its_text_and_choices(exam_attempt):
    # Rows stored before fingerprints (or by another way in) still count as the saved answer.
    problem, question = _items(exam_attempt)
    attempt_answers_save(attempt=exam_attempt, answers=_two_answers(exam_attempt, "4"))
    Response.objects.update(request_fingerprint="")
    again = attempt_answers_save(attempt=exam_attempt, answers=_two_answers(exam_attempt, "4"))
    assert again == {}
    wrong = question.question.choices.filter(is_correct=False).first()
    changed = attempt_answers_save(
        attempt=exam_attempt,
        answers={
            problem.pk: SheetAnswer(text="4"),
            question.pk: SheetAnswer(choice_ids=(wrong.pk,)),
        },
    )
    assert set(changed) == {question.pk}


def test_an_answer_is_unchanged_only_with_the_same_text_and_choices(exam_attempt):
    problem, question = _items(exam_attempt)
    attempt_answers_save(attempt=exam_attempt, answers=_two_answers(exam_attempt, "4"))
    saved = {r.quiz_item_id: r for r in Response.objects.filter(attempt=exam_attempt)}
    right = question.question.choices.get(is_correct=True)
    assert SheetAnswer(text="4").saved_as(saved[problem.pk])
    assert not SheetAnswer(text="4.0").saved_as(saved[problem.pk])
    assert SheetAnswer(choice_ids=(right.pk,)).saved_as(saved[question.pk])
    assert not SheetAnswer(choice_ids=(right.pk, right.pk + 1)).saved_as(saved[question.pk])


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


class FailsAtSecondInsert:
    """An execute wrapper: the sheet's second insert (the choices, after the answers) fails as
    when the database restarts."""

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
    sheet = _two_answers(exam_attempt, "4")
    outage = FailsAtSecondInsert()
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


# --- a sheet in a constant number of statements -----------------------------------------------


def _exam_of(size: int) -> Quiz:
    """An exam of `size` items of the shipped lesson: half problems, half questions."""
    lesson = Quiz.objects.get(slug="attention-exam").lesson
    quiz = Quiz.objects.create(
        lesson=lesson,
        slug=f"sheet-of-{size}",
        title=f"{size} items",
        mode=Quiz.Mode.EXAM,
        time_limit_minutes=60,
        show_feedback=Quiz.Feedback.AFTER_SUBMISSION,
        published=True,
    )
    problems = Problem.objects.filter(lesson=lesson).order_by("slug")[: size // 2]
    questions = Question.objects.filter(lesson=lesson).order_by("slug")[: size - size // 2]
    QuizItem.objects.bulk_create(
        [QuizItem(quiz=quiz, problem=p, order=n, points=2) for n, p in enumerate(problems)]
        + [QuizItem(quiz=quiz, question=q, order=size + n) for n, q in enumerate(questions)]
    )
    return quiz


def _whole_sheet(attempt: Attempt, *, right: bool) -> dict[int, SheetAnswer]:
    """An answer to every item: all right, or all wrong (and still readable)."""
    variants = {v.quiz_item_id: v for v in Variant.objects.filter(attempt=attempt)}
    sheet = {}
    for item in attempt.quiz.items.select_related("question"):
        if item.problem_id:
            variant = variants[item.pk]
            answer = engine.get_family(variant.family).solve(variant.givens).answer
            sheet[item.pk] = SheetAnswer(
                text=engine.format_answer(answer if right else 2 * answer + 1)
            )
        else:
            picked = [c.pk for c in item.question.choices.all() if c.is_correct == right]
            sheet[item.pk] = SheetAnswer(choice_ids=tuple(picked if right else picked[:1]))
    return sheet


def _rescored(attempt: Attempt) -> float:
    """The attempt's score recomputed from every response it has, as submission does."""
    points = {item.pk: item.points for item in attempt.quiz.items.all()}
    return scores.attempt_points(
        attempt=attempt, points=points, responses=attempt.responses.all(), overrides={}
    )


# Reads: the items with their questions' choices (2), the saved answers and the answers under
# the sheet's keys (1), the variants (1); writes: the guarded attempt update, the answers, their
# choices (3), between a savepoint and its release (the test's transaction; outside one, BEGIN
# and COMMIT are not statements). Saving again costs no more: whether an answer changed is
# decided by the saved answer's fingerprint, so its choices are no longer read (was 10).
FIRST_SAVE = SAVE_AGAIN = 9


def test_a_sheet_is_saved_in_the_same_statements_whatever_its_size(shipped_bank):
    counts = {}
    for size in (4, 16):
        attempt = attempt_start(user=UserFactory(), quiz=_exam_of(size))
        attempt = Attempt.objects.select_related("quiz").get(pk=attempt.pk)
        right, wrong = _whole_sheet(attempt, right=True), _whole_sheet(attempt, right=False)
        with CaptureQueriesContext(connection) as first:
            recorded = attempt_answers_save(attempt=attempt, answers=right, idempotency_key="a")
        assert len(recorded) == size
        assert all(response.status == "correct" for response in recorded.values())
        assert attempt.score == attempt.max_score == _rescored(attempt)
        with CaptureQueriesContext(connection) as again:
            changed = attempt_answers_save(attempt=attempt, answers=wrong, idempotency_key="b")
        assert len(changed) == size
        assert all(response.status == "incorrect" for response in changed.values())
        assert attempt.score == 0 == _rescored(attempt)
        counts[size] = (len(first), len(again))
    assert counts[4] == counts[16] == (FIRST_SAVE, SAVE_AGAIN)


def test_a_16_item_sheet_save_is_pinned(shipped_bank, django_assert_num_queries):
    attempt = attempt_start(user=UserFactory(), quiz=_exam_of(16))
    attempt = Attempt.objects.select_related("quiz").get(pk=attempt.pk)
    right, wrong = _whole_sheet(attempt, right=True), _whole_sheet(attempt, right=False)
    with django_assert_num_queries(FIRST_SAVE):
        attempt_answers_save(attempt=attempt, answers=right, idempotency_key="a")
    with django_assert_num_queries(SAVE_AGAIN):
        attempt_answers_save(attempt=attempt, answers=wrong, idempotency_key="b")
    # Nothing changed: the reads alone (items, choices, saved answers), no write; the saved
    # answers' choices are no longer read (was 4).
    with django_assert_num_queries(3):
        assert attempt_answers_save(attempt=attempt, answers=wrong, idempotency_key="c") == {}
    assert Response.objects.filter(attempt=attempt).count() == 32


def test_an_unreadable_answer_is_kept_and_costs_nothing_while_the_others_are_saved(exam_attempt):
    problem, question = _items(exam_attempt)
    sheet = _two_answers(exam_attempt, "9^9^9")
    recorded = attempt_answers_save(attempt=exam_attempt, answers=sheet)
    assert recorded[problem.pk].status == "invalid"
    assert not recorded[problem.pk].counts_as_try
    assert [c.pk for c in recorded[question.pk].choices.all()] == [*sheet[question.pk].choice_ids]
    assert exam_attempt.score == question.points == _rescored(exam_attempt)


def test_another_answer_under_a_used_key_refuses_the_whole_sheet(exam_attempt):
    problem, _ = _items(exam_attempt)
    attempt_answers_save(
        attempt=exam_attempt, answers={problem.pk: SheetAnswer(text="7")}, idempotency_key="t"
    )
    with pytest.raises(IdempotencyConflict):
        # The question's answer is new; the problem's differs from the one under its key.
        attempt_answers_save(
            attempt=exam_attempt, answers=_two_answers(exam_attempt, "8"), idempotency_key="t"
        )
    assert list(Response.objects.values_list("text", flat=True)) == ["7"]


def test_with_immediate_feedback_a_sheet_keeps_the_tries_rules(learner, shipped_bank):
    attempt = attempt_start(user=learner, quiz=Quiz.objects.get(slug="attention-practice"))
    problem, question = _items(attempt)
    wrong = question.question.choices.filter(is_correct=False).first()
    for n in range(attempt.quiz.tries_per_item):
        response_submit(attempt=attempt, item=problem, text=f"{123457 + n}.7")  # no near miss
    with pytest.raises(NoTriesLeft):
        attempt_answers_save(
            attempt=attempt,
            answers={
                question.pk: SheetAnswer(choice_ids=(wrong.pk,)),
                problem.pk: SheetAnswer(text="5"),
            },
        )
    assert not Response.objects.filter(quiz_item=question).exists()


class AnotherAnswerFirst:
    """An execute wrapper: just before the sheet's guarded update, the attempt moves on (as when
    another answer is written in between), once."""

    def __init__(self, attempt: Attempt):
        self.attempt = attempt
        self.updates = 0

    def __call__(self, execute, sql, params, many, context):
        if sql.lstrip().upper().startswith("UPDATE") and "grading_attempt" in sql:
            self.updates += 1
            if self.updates == 1:
                Attempt.objects.filter(pk=self.attempt.pk).update(updated_at=timezone.now())
        return execute(sql, params, many, context)


def test_a_sheet_whose_attempt_changed_after_its_read_reads_again_and_saves_once(shipped_bank):
    attempt = attempt_start(user=UserFactory(), quiz=_exam_of(4))
    sheet = _whole_sheet(attempt, right=True)
    moved = AnotherAnswerFirst(attempt)
    with connection.execute_wrapper(moved):
        recorded = attempt_answers_save(attempt=attempt, answers=sheet, idempotency_key="t")
    # The interloper's update, the sheet's update that missed, and the one after reading again.
    assert moved.updates == 3
    assert set(recorded) == set(sheet)
    assert Response.objects.filter(attempt=attempt).count() == 4
    assert attempt.score == attempt.max_score == _rescored(attempt)
