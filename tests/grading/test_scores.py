"""grading.scores: the one definition of solved, tries left, an item's score, a learner's best
score and mastered problems, which pages, the API and LTI passback all ask."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from courses.models import Quiz
from grading import scores
from grading.models import Attempt, PracticeStreak, Response
from tests.factories import ProblemFactory, QuizFactory, UserFactory


def tried(status: str, score: float = 0.0, *, counts: bool = True) -> Response:
    return Response(status=status, score=score, counts_as_try=counts)


def practice(tries_per_item: int = 3) -> Quiz:
    return Quiz(
        mode=Quiz.Mode.PRACTICE,
        show_feedback=Quiz.Feedback.IMMEDIATELY,
        tries_per_item=tries_per_item,
    )


def test_solved_needs_a_counted_correct_try():
    assert not scores.solved([])
    assert not scores.solved([tried("incorrect"), tried("invalid", counts=False)])
    assert not scores.solved([tried("correct", 1.0, counts=False)])
    assert scores.solved([tried("incorrect"), tried("correct", 1.0)])


@pytest.mark.parametrize(
    ("tries", "left"),
    [
        ([], 3),
        ([tried("incorrect")], 2),
        ([tried("incorrect"), tried("invalid", counts=False)], 2),  # invalid input is free
        ([tried("incorrect")] * 3, 0),
        ([tried("incorrect")] * 4, 0),  # never negative
        ([tried("correct", 1.0)], 0),  # solved: nothing left to try
    ],
)
def test_tries_left_counts_counted_tries_until_solved(tries, left):
    assert scores.tries_left(quiz=practice(), tries=tries) == left


def test_an_exam_counts_no_tries():
    exam = Quiz(mode=Quiz.Mode.EXAM, show_feedback=Quiz.Feedback.IMMEDIATELY, tries_per_item=1)
    assert scores.tries_left(quiz=exam, tries=[tried("incorrect")] * 5) is None


def test_the_counting_try_is_the_best_with_feedback_and_the_latest_without():
    first, best, last = tried("incorrect", 0.2), tried("correct", 1.0), tried("incorrect", 0.5)
    assert scores.counting_try(immediate=True, tries=[first, best, last]) is best
    assert scores.counting_try(immediate=False, tries=[first, best, last]) is last
    assert scores.counting_try(immediate=True, tries=[]) is None
    assert scores.item_score(immediate=True, tries=[first, best, last]) == 1.0
    assert scores.item_score(immediate=False, tries=[first, best, last]) == 0.5
    assert scores.item_score(immediate=False, tries=[]) == 0.0


@pytest.mark.django_db
def test_best_attempt_and_best_score_agree_and_ignore_attempts_in_progress():
    user, quiz = UserFactory(), QuizFactory()
    now = timezone.now()

    def attempt(number, score, status=Attempt.Status.SUBMITTED, minutes=0):
        return Attempt.objects.create(
            user=user,
            quiz=quiz,
            number=number,
            score=score,
            max_score=10,
            status=status,
            submitted_at=now + timedelta(minutes=minutes) if status != "in_progress" else None,
        )

    assert scores.best_attempt(user=user, quiz=quiz) is None
    attempt(1, 6)
    tie_later = attempt(2, 8, minutes=5)
    attempt(3, 8)
    attempt(4, 10, status=Attempt.Status.IN_PROGRESS)  # a running score is no grade
    assert scores.best_attempt(user=user, quiz=quiz) == tie_later
    best = Attempt.objects.filter(user=user, quiz=quiz).aggregate(best=scores.best_score())
    assert best["best"] == tie_later.score


@pytest.mark.django_db
def test_a_mastered_streak_counts_unless_its_problem_became_exam_only():
    user = UserFactory()
    kept, exam_only = ProblemFactory(), ProblemFactory(exam_only=True)
    for problem in (kept, exam_only):
        PracticeStreak.objects.create(user=user, problem=problem, mastered_at=timezone.now())
    PracticeStreak.objects.create(user=user, problem=ProblemFactory())  # not mastered
    assert list(
        PracticeStreak.objects.filter(scores.MASTERED).values_list("problem", flat=True)
    ) == [kept.pk]
