"""The service functions pages and the API share: practice, attempts, tries, deadlines, policy."""

from __future__ import annotations

import contextlib
from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from courses.models import Problem, Question, Quiz
from grading import engine, policy
from grading.accommodations import answers_release_at
from grading.models import Attempt, PracticeStreak, Response, Variant
from grading.scores import item_scores
from grading.services.attempts import attempt_start, attempt_start_or_resume
from grading.services.closing import attempt_submit
from grading.services.errors import (
    AttemptClosed,
    AttemptLimitReached,
    IdempotencyConflict,
    NoTriesLeft,
    QuizNotOpen,
    ServiceError,
)
from grading.services.practice import practice_answer_submit, practice_variant_new
from grading.services.responses import response_submit, tries_used
from grading.services.verdicts import question_grade, variant_grade
from tests.factories import QuizFactory, QuizItemFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def learner():
    return UserFactory()


def answer_of(variant: Variant) -> str:
    family = engine.get_family(variant.family)
    return engine.format_answer(family.solve(variant.givens).answer)


def mistake_of(variant: Variant, code: str) -> str | None:
    data = engine.get_family(variant.family).solve(variant.givens)
    value = data.mistakes.get(code)
    return None if value is None else engine.format_answer(value)


# --- practice ---------------------------------------------------------------------------------


def test_practice_variants_are_fresh_and_reproducible(shipped_bank, learner):
    problem = Problem.objects.get(slug="dot-variance")
    first = practice_variant_new(user=learner, problem=problem)
    second = practice_variant_new(user=learner, problem=problem)
    assert (first.counter, second.counter) == (1, 2)
    assert first.seed != second.seed
    again = engine.make_variant(
        engine.get_family("dot-variance"),
        engine.validate_params(engine.get_family("dot-variance"), {}),
        first.seed,
    )
    assert again.givens == first.givens


def test_seeds_differ_between_learners(shipped_bank):
    problem = Problem.objects.get(slug="dot-variance")
    a = practice_variant_new(user=UserFactory(), problem=problem)
    b = practice_variant_new(user=UserFactory(), problem=problem)
    assert a.seed != b.seed


def test_practice_names_the_misconception_then_builds_a_streak(shipped_bank, learner):
    problem = Problem.objects.get(slug="dot-variance")
    variant = practice_variant_new(user=learner, problem=problem)
    while mistake_of(variant, "std-for-variance") is None:
        variant = practice_variant_new(user=learner, problem=problem)
    wrong = practice_answer_submit(
        user=learner, variant=variant, text=mistake_of(variant, "std-for-variance")
    )
    assert wrong.status == "incorrect"
    assert wrong.misconception == "std-for-variance"
    assert PracticeStreak.objects.get(user=learner, problem=problem).current == 0
    for expected in (1, 2, 3):
        variant = practice_variant_new(user=learner, problem=problem)
        right = practice_answer_submit(user=learner, variant=variant, text=answer_of(variant))
        assert right.status == "correct"
        streak = PracticeStreak.objects.get(user=learner, problem=problem)
        assert streak.current == expected
    assert streak.mastered


def test_correct_after_a_wrong_try_on_the_same_variant_does_not_grow_the_streak(
    shipped_bank, learner
):
    problem = Problem.objects.get(slug="dot-variance")
    variant = practice_variant_new(user=learner, problem=problem)
    practice_answer_submit(user=learner, variant=variant, text="0")
    practice_answer_submit(user=learner, variant=variant, text=answer_of(variant))
    assert PracticeStreak.objects.get(user=learner, problem=problem).current == 0


def test_invalid_practice_input_costs_nothing(shipped_bank, learner):
    problem = Problem.objects.get(slug="dot-variance")
    variant = practice_variant_new(user=learner, problem=problem)
    response = practice_answer_submit(user=learner, variant=variant, text="9^9^9")
    assert response.status == "invalid"
    assert not response.counts_as_try
    assert response.feedback
    assert not PracticeStreak.objects.filter(user=learner).exists()
    right = practice_answer_submit(user=learner, variant=variant, text=answer_of(variant))
    assert PracticeStreak.objects.get(user=learner, problem=problem).current == 1
    assert right.status == "correct"


def test_a_double_click_records_one_try(shipped_bank, learner):
    problem = Problem.objects.get(slug="dot-variance")
    variant = practice_variant_new(user=learner, problem=problem)
    first = practice_answer_submit(user=learner, variant=variant, text="1")
    second = practice_answer_submit(user=learner, variant=variant, text="1")
    assert first.pk == second.pk
    assert (first.replayed, second.replayed) == (False, True)
    assert Response.objects.filter(variant=variant).count() == 1


def test_another_learners_variant_is_refused(shipped_bank, learner):
    problem = Problem.objects.get(slug="dot-variance")
    variant = practice_variant_new(user=UserFactory(), problem=problem)
    with pytest.raises(ServiceError):
        practice_answer_submit(user=learner, variant=variant, text="1")
    assert not Response.objects.exists()


def test_idempotency_key_replays_and_conflicts(shipped_bank, learner):
    problem = Problem.objects.get(slug="dot-variance")
    variant = practice_variant_new(user=learner, problem=problem)
    first = practice_answer_submit(user=learner, variant=variant, text="2", idempotency_key="k1")
    replay = practice_answer_submit(user=learner, variant=variant, text="2", idempotency_key="k1")
    assert replay.pk == first.pk
    assert (first.replayed, replay.replayed) == (False, True)
    with pytest.raises(IdempotencyConflict):
        practice_answer_submit(user=learner, variant=variant, text="3", idempotency_key="k1")
    assert Response.objects.count() == 1


def test_regrade_reads_the_stored_givens(shipped_bank, learner, monkeypatch):
    """A generator change (a version bump) must not change the verdict on a stored variant."""
    problem = Problem.objects.get(slug="dot-variance")
    variant = practice_variant_new(user=learner, problem=problem)
    typed = answer_of(variant)
    family = engine.get_family("dot-variance")
    monkeypatch.setattr(type(family), "version", family.version + 1, raising=False)
    monkeypatch.setattr(
        type(family), "generate", lambda self, rng, params: {"d_k": 1, "sigma_q": 9, "sigma_k": 9}
    )
    assert variant_grade(variant=variant, text=typed).status == "correct"


# --- quizzes ----------------------------------------------------------------------------------


def test_a_start_says_whether_it_created_the_attempt_or_resumed_it(shipped_bank, learner):
    quiz = Quiz.objects.get(slug="attention-practice")
    started = attempt_start_or_resume(user=learner, quiz=quiz)
    resumed = attempt_start_or_resume(user=learner, quiz=quiz)
    assert started.created
    assert not resumed.created
    assert resumed.attempt.pk == started.attempt.pk
    attempt_submit(attempt=started.attempt)
    again = attempt_start_or_resume(user=learner, quiz=quiz)
    assert again.created
    assert again.attempt.number == 2


def test_a_start_after_the_deadline_closes_the_overdue_attempt_and_creates_one(
    shipped_bank, learner
):
    quiz = Quiz.objects.get(slug="attention-exam")
    quiz.time_limit_minutes, quiz.attempts_allowed = 10, 2
    quiz.save()
    first = attempt_start(user=learner, quiz=quiz)
    later = attempt_start_or_resume(
        user=learner, quiz=quiz, now=timezone.now() + timedelta(minutes=11)
    )
    first.refresh_from_db()
    assert (first.status, first.late) == (Attempt.Status.SUBMITTED, True)
    assert later.created
    assert later.attempt.pk != first.pk


def test_the_database_refuses_a_second_attempt_in_progress(shipped_bank, learner):
    """The constraint behind simultaneous starts: a writer that skipped the service's lock
    still cannot open two attempts at one quiz for one learner."""
    quiz = Quiz.objects.get(slug="attention-practice")
    first = attempt_start(user=learner, quiz=quiz)
    with pytest.raises(IntegrityError), transaction.atomic():
        Attempt.objects.create(user=learner, quiz=quiz, number=first.number + 1)
    assert Attempt.objects.filter(user=learner, quiz=quiz).count() == 1


def test_exam_attempt_limit_and_resume(shipped_bank, learner):
    exam = Quiz.objects.get(mode=Quiz.Mode.EXAM)
    first = attempt_start(user=learner, quiz=exam)
    assert attempt_start(user=learner, quiz=exam).pk == first.pk
    problem_items = exam.items.filter(problem__isnull=False).count()
    assert Variant.objects.filter(attempt=first).count() == problem_items
    for _ in range(exam.attempts_allowed):
        attempt = attempt_start(user=learner, quiz=exam)
        attempt_submit(attempt=attempt)
    with pytest.raises(AttemptLimitReached, match="used all"):
        attempt_start(user=learner, quiz=exam)
    assert Attempt.objects.filter(user=learner, quiz=exam).count() == exam.attempts_allowed


def test_practice_quiz_tries_per_item_and_best_try_counts(shipped_bank, learner):
    quiz = Quiz.objects.get(slug="attention-practice")
    attempt = attempt_start(user=learner, quiz=quiz)
    item = quiz.items.filter(problem__isnull=False).first()
    variant = Variant.objects.get(attempt=attempt, quiz_item=item)
    wrong = response_submit(attempt=attempt, item=item, text="0")
    assert wrong.status == "incorrect"
    invalid = response_submit(attempt=attempt, item=item, text="[[")
    assert invalid.status == "invalid"
    assert tries_used(attempt=attempt, item=item) == 1
    right = response_submit(attempt=attempt, item=item, text=answer_of(variant))
    assert right.status == "correct"
    attempt.refresh_from_db()
    assert attempt.score == item.points
    with pytest.raises(NoTriesLeft, match="already answered"):
        response_submit(attempt=attempt, item=item, text="1")


def test_tries_run_out(shipped_bank, learner):
    quiz = Quiz.objects.get(slug="attention-practice")
    attempt = attempt_start(user=learner, quiz=quiz)
    item = quiz.items.filter(problem__isnull=False).first()
    for n in range(quiz.tries_per_item):
        # Wrong and nowhere near the answer: no near miss, whose try could be given back.
        response_submit(attempt=attempt, item=item, text=f"{123457 + n}.7")
    with pytest.raises(NoTriesLeft, match="No tries left"):
        response_submit(attempt=attempt, item=item, text="5")
    assert tries_used(attempt=attempt, item=item) == quiz.tries_per_item


def test_question_items_name_the_misconception_of_the_choice(shipped_bank, learner):
    quiz = Quiz.objects.get(slug="attention-practice")
    attempt = attempt_start(user=learner, quiz=quiz)
    item = quiz.items.filter(question__isnull=False).first()
    wrong_choice = item.question.choices.filter(is_correct=False).first()
    response = response_submit(attempt=attempt, item=item, choice_ids=[wrong_choice.pk])
    assert response.status == "incorrect"
    assert response.misconception == wrong_choice.misconception.code
    nothing = response_submit(attempt=attempt, item=item, choice_ids=[])
    assert nothing.status == "invalid"
    assert not nothing.counts_as_try


def test_multiple_choice_needs_every_correct_choice(shipped_bank, learner):
    question = Question.objects.filter(kind=Question.Kind.MULTIPLE).first()
    correct = list(question.choices.filter(is_correct=True).values_list("pk", flat=True))
    graded = question_grade(question=question, choice_ids=correct)
    assert graded.status == "correct"
    if len(correct) > 1:
        partial = question_grade(question=question, choice_ids=correct[:1])
        assert partial.status == "incorrect"
        assert "right too" in partial.feedback


def test_exam_saves_latest_answer_and_grades_on_submission(shipped_bank, learner):
    exam = Quiz.objects.get(mode=Quiz.Mode.EXAM)
    attempt = attempt_start(user=learner, quiz=exam)
    item = exam.items.filter(problem__isnull=False).first()
    variant = Variant.objects.get(attempt=attempt, quiz_item=item)
    response_submit(attempt=attempt, item=item, text=answer_of(variant))
    response_submit(attempt=attempt, item=item, text="12345")
    shown = policy.attempt_visibility(attempt=attempt, now=timezone.now(), answers_release_at=None)
    assert not shown.verdicts
    assert not shown.correct_answers
    attempt_submit(attempt=attempt)
    attempt.refresh_from_db()
    assert attempt.status == Attempt.Status.SUBMITTED
    assert attempt.score == 0  # the latest saved answer counts, and it was wrong
    shown = policy.attempt_visibility(attempt=attempt, now=timezone.now(), answers_release_at=None)
    assert shown.verdicts
    assert shown.correct_answers


def test_a_submission_closes_and_scores_in_one_update_and_reads_nothing_back(
    shipped_bank, learner, django_assert_num_queries
):
    exam = Quiz.objects.get(mode=Quiz.Mode.EXAM)
    attempt = attempt_start(user=learner, quiz=exam)
    item = exam.items.filter(problem__isnull=False).first()
    variant = Variant.objects.get(attempt=attempt, quiz_item=item)
    response_submit(attempt=attempt, item=item, text=answer_of(variant))
    attempt = Attempt.objects.select_related("quiz").get(pk=attempt.pk)
    # The locked attempt, the quiz's items, the overrides, the responses, one update, inside a
    # savepoint (the test's transaction): the quiz is the caller's, the row is not read back.
    with django_assert_num_queries(7):
        submitted = attempt_submit(attempt=attempt)
    stored = Attempt.objects.get(pk=attempt.pk)
    assert submitted is attempt
    assert (submitted.status, submitted.score, submitted.max_score) == (
        Attempt.Status.SUBMITTED,
        item.points,
        stored.max_score,
    )
    assert (submitted.submitted_at, submitted.updated_at, submitted.late) == (
        stored.submitted_at,
        stored.updated_at,
        False,
    )
    assert stored.score == item.points


def test_late_submission_is_refused_and_saved_answers_graded(shipped_bank, learner):
    exam = Quiz.objects.get(mode=Quiz.Mode.EXAM)
    start = timezone.now()
    attempt = attempt_start(user=learner, quiz=exam, now=start)
    item = exam.items.filter(problem__isnull=False).first()
    variant = Variant.objects.get(attempt=attempt, quiz_item=item)
    response_submit(attempt=attempt, item=item, text=answer_of(variant), now=start)
    late = start + timedelta(minutes=exam.time_limit_minutes, seconds=1)
    with pytest.raises(AttemptClosed, match="Time is up"):
        response_submit(attempt=attempt, item=item, text="1", now=late)
    with pytest.raises(AttemptClosed):
        attempt_submit(attempt=attempt, now=late)
    attempt.refresh_from_db()
    assert attempt.late
    assert attempt.status == Attempt.Status.SUBMITTED
    assert attempt.score == item.points
    assert Response.objects.filter(attempt=attempt).count() == 1


def test_quiz_not_open_yet_or_closed(learner, db):
    now = timezone.now()
    later = QuizFactory(opens_at=now + timedelta(days=1))
    QuizItemFactory(quiz=later)
    with pytest.raises(QuizNotOpen, match="opens at"):
        attempt_start(user=learner, quiz=later, now=now)
    closed = QuizFactory(closes_at=now - timedelta(days=1))
    with pytest.raises(QuizNotOpen, match="closed at"):
        attempt_start(user=learner, quiz=closed, now=now)
    assert not Attempt.objects.exists()


def test_answers_after_close_wait_for_the_close(learner, db):
    now = timezone.now()
    quiz = QuizFactory(
        release_answers=Quiz.AnswerRelease.AFTER_CLOSE, closes_at=now + timedelta(hours=1)
    )
    QuizItemFactory(quiz=quiz)
    attempt = attempt_start(user=learner, quiz=quiz, now=now)
    attempt_submit(attempt=attempt, now=now)
    release_at = answers_release_at(quiz)
    assert release_at == quiz.closes_at
    shown = policy.attempt_visibility(attempt=attempt, now=now, answers_release_at=release_at)
    assert not shown.correct_answers
    later = now + timedelta(hours=2)
    shown = policy.attempt_visibility(attempt=attempt, now=later, answers_release_at=release_at)
    assert shown.correct_answers


# --- the running score ------------------------------------------------------------------------


def _full_rescore(attempt: Attempt) -> float:
    points = {item.pk: item.points for item in attempt.quiz.items.all()}
    scores = item_scores(attempt=attempt, responses=attempt.responses.all())
    return sum(points[item_id] * score for item_id, score in scores.items())


@pytest.mark.parametrize("mode", [Quiz.Mode.PRACTICE, Quiz.Mode.EXAM])
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    moves=st.lists(
        st.tuples(st.integers(0, 3), st.sampled_from(["right", "wrong", "other", "invalid"])),
        max_size=14,
    )
)
def test_the_running_score_is_what_a_full_rescore_gives(shipped_bank, learner, mode, moves):
    """Each answer moves the attempt's score by its item's change (best try, or latest saved
    answer in an exam); after any sequence of answers it equals the score recomputed from
    every response, and submission keeps it."""
    with transaction.atomic():
        quiz = Quiz.objects.filter(mode=mode).first()
        attempt = attempt_start(user=learner, quiz=quiz)
        items = list(quiz.items.order_by("order"))[:4]
        for index, kind in moves:
            item = items[index % len(items)]
            if item.problem_id:
                variant = Variant.objects.get(attempt=attempt, quiz_item=item)
                text = {"right": answer_of(variant), "wrong": "123457", "other": "-98.5"}.get(
                    kind, "[["
                )
                answer = {"text": text}
            else:
                choices = item.question.choices
                picked = {
                    "right": choices.filter(is_correct=True),
                    "wrong": choices.filter(is_correct=False)[:1],
                    "other": choices.filter(is_correct=False)[1:2] or choices.all()[:1],
                }.get(kind, choices.none())
                answer = {"choice_ids": [choice.pk for choice in picked]}
            with contextlib.suppress(NoTriesLeft):
                response_submit(attempt=attempt, item=item, **answer)
            attempt.refresh_from_db()
            assert attempt.score == pytest.approx(_full_rescore(attempt), abs=1e-9)
        running = attempt.score
        attempt_submit(attempt=attempt)
        attempt.refresh_from_db()
        assert attempt.score == pytest.approx(running, abs=1e-9)
        transaction.set_rollback(True)
