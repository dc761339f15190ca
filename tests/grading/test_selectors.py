"""Reads behind the learner's pages: what they return and how many queries they cost."""

from __future__ import annotations

import pytest
from django.utils import timezone

from courses import selectors as course_selectors
from courses.models import Problem, Quiz
from grading import selectors
from grading.models import Attempt, PracticeStreak, Response
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.practice import practice_answer_submit, practice_variant_new
from grading.services.responses import response_submit
from tests.factories import UserFactory
from tests.grading.test_services import answer_of

pytestmark = pytest.mark.django_db


def test_lesson_progress_counts_mastery_attempts_and_best_scores(
    learner, shipped_bank, django_assert_num_queries
):
    problem = Problem.objects.get(slug="dot-variance")
    for _ in range(PracticeStreak.MASTERY):
        variant = practice_variant_new(user=learner, problem=problem)
        practice_answer_submit(user=learner, variant=variant, text=answer_of(variant))
    quiz = Quiz.objects.get(slug="attention-practice")
    first = attempt_start(user=learner, quiz=quiz)
    item = quiz.items.filter(problem__isnull=False).first()
    variant = first.variants.get(quiz_item=item)
    response_submit(attempt=first, item=item, text=answer_of(variant))
    attempt_submit(attempt=first)
    second = attempt_start(user=learner, quiz=quiz)
    # Someone else's work never counts.
    attempt_submit(attempt=attempt_start(user=UserFactory(), quiz=quiz))

    courses = list(course_selectors.course_list())
    lessons = [lesson for course in courses for lesson in course.lessons.all()]
    with django_assert_num_queries(2):
        progress = selectors.lesson_progress(user=learner, lessons=lessons, now=timezone.now())
    (lesson_progress,) = progress.values()
    assert lesson_progress.problems_total == Problem.objects.count()
    assert lesson_progress.problems_mastered == 1
    by_slug = {row.quiz.slug: row for row in lesson_progress.quizzes}
    assert by_slug["attention-practice"].attempts == 2
    assert by_slug["attention-practice"].best_score == item.points
    assert by_slug["attention-practice"].in_progress_id == second.pk
    assert by_slug["attention-exam"].attempts == 0
    assert by_slug["attention-exam"].best_score is None


def test_attempt_sheet_has_every_item_in_order_with_its_responses(
    learner, shipped_bank, django_assert_num_queries
):
    quiz = Quiz.objects.get(slug="attention-exam")
    attempt = attempt_start(user=learner, quiz=quiz)
    item = quiz.items.filter(problem__isnull=False).order_by("order").first()
    response_submit(attempt=attempt, item=item, text="5")
    response_submit(attempt=attempt, item=item, text="[[")
    with django_assert_num_queries(5):
        rows = selectors.attempt_sheet(attempt=attempt)
        row = next(r for r in rows if r.item.pk == item.pk)
        assert row.latest.status == Response.Status.INVALID
        assert row.latest_counted.text == "5"
        assert row.tries_used == 1
        assert not row.solved
        for r in rows:
            if r.item.question:
                assert list(r.item.question.choices.all())
            assert r.choice_ids == set()
    assert [r.number for r in rows] == list(range(1, quiz.items.count() + 1))
    assert all((r.variant is None) == (r.item.problem_id is None) for r in rows)


def test_attempt_of_learner_refuses_someone_elses(learner, shipped_bank):
    quiz = Quiz.objects.get(slug="attention-exam")
    theirs = attempt_start(user=UserFactory(), quiz=quiz)
    with pytest.raises(Attempt.DoesNotExist):
        selectors.attempt_of_learner(user=learner, attempt_id=theirs.pk)
    mine = attempt_start(user=learner, quiz=quiz)
    assert selectors.attempt_of_learner(user=learner, attempt_id=mine.pk) == mine


def test_attempt_item_refuses_an_item_of_another_quiz(learner, shipped_bank):
    attempt = attempt_start(user=learner, quiz=Quiz.objects.get(slug="attention-exam"))
    foreign = Quiz.objects.get(slug="attention-practice").items.first()
    with pytest.raises(foreign.DoesNotExist):
        selectors.attempt_item(attempt=attempt, item_id=foreign.pk)


def test_misconceptions_by_code_skips_blanks_and_unknown_codes(
    shipped_bank, django_assert_num_queries
):
    with django_assert_num_queries(0):
        assert selectors.misconceptions_by_code(["", ""]) == {}
    with django_assert_num_queries(1):
        found = selectors.misconceptions_by_code(["std-for-variance", "no-such-code", ""])
    assert list(found) == ["std-for-variance"]
    assert found["std-for-variance"].title == "Standard deviation given for a variance"


def test_history_reads_cost_one_query_each(learner, shipped_bank, django_assert_num_queries):
    quiz = Quiz.objects.get(slug="attention-practice")
    for _ in range(3):
        attempt_submit(attempt=attempt_start(user=learner, quiz=quiz))
    for problem in Problem.objects.all()[:4]:
        variant = practice_variant_new(user=learner, problem=problem)
        practice_answer_submit(user=learner, variant=variant, text="1")
    with django_assert_num_queries(2):
        attempts = selectors.learner_attempts(user=learner)
        streaks = selectors.learner_streaks(user=learner)
        assert {a.quiz.lesson.slug for a in attempts} == {"scaled-dot-product-attention"}
        assert all(s.problem.lesson.slug for s in streaks)
    assert [a.number for a in attempts] == [3, 2, 1]
    assert len(streaks) == 4


def test_practice_variant_of_learner_is_only_their_practice_variant(learner, shipped_bank):
    problem = Problem.objects.get(slug="dot-variance")
    mine = practice_variant_new(user=learner, problem=problem)
    theirs = practice_variant_new(user=UserFactory(), problem=problem)
    found = selectors.practice_variant_of_learner(user=learner, problem=problem, variant_id=mine.pk)
    assert found == mine
    with pytest.raises(type(mine).DoesNotExist):
        selectors.practice_variant_of_learner(user=learner, problem=problem, variant_id=theirs.pk)
    other_problem = Problem.objects.get(slug="dot-std")
    with pytest.raises(type(mine).DoesNotExist):
        selectors.practice_variant_of_learner(
            user=learner, problem=other_problem, variant_id=mine.pk
        )
