"""grading.scores: the one definition of solved, tries left, an item's score, a learner's best
score and mastered problems, which pages, the API and LTI passback all ask."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from courses.models import Quiz
from grading import scores
from grading.models import Attempt, PracticeStreak, Response, ScoreChange
from tests.factories import ProblemFactory, QuizFactory, QuizItemFactory, UserFactory


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
    with_feedback, without = scores.ScoringRule(immediate=True), scores.ScoringRule(immediate=False)
    assert scores.counting_try(rule=with_feedback, tries=[first, best, last]) is best
    assert scores.counting_try(rule=without, tries=[first, best, last]) is last
    assert scores.counting_try(rule=with_feedback, tries=[]) is None
    assert scores.item_score(rule=with_feedback, tries=[first, best, last]) == 1.0
    assert scores.item_score(rule=without, tries=[first, best, last]) == 0.5
    assert scores.item_score(rule=without, tries=[]) == 0.0


THIRD = scores.ScoringRule(immediate=True, extra_try_penalty=1 / 3)


@pytest.mark.parametrize(
    ("tries", "expected"),
    [
        # Right at once: no penalty.
        ([tried("correct", 1.0)], 1.0),
        # Right at the second try: 1 - 1/3.
        ([tried("incorrect"), tried("correct", 1.0)], 2 / 3),
        # Right at the third: 1 - 2/3.
        ([tried("incorrect"), tried("incorrect"), tried("correct", 1.0)], 1 / 3),
        # Right at the fourth: 1 - 3/3 = 0, and never below 0 at the fifth.
        ([tried("incorrect")] * 3 + [tried("correct", 1.0)], 0.0),
        ([tried("incorrect")] * 4 + [tried("correct", 1.0)], 0.0),
        # Half right at once (0.5) beats right at the third (1/3): the best after the penalty.
        ([tried("incorrect", 0.5), tried("incorrect"), tried("correct", 1.0)], 0.5),
        # 0.9 at the second try is 0.9 - 1/3 = 0.5667, below 0.6 at the first.
        ([tried("incorrect", 0.6), tried("incorrect", 0.9)], 0.6),
    ],
)
def test_each_extra_try_costs_the_penalty_and_the_item_scores_its_best_try(tries, expected):
    assert scores.item_score(rule=THIRD, tries=tries) == pytest.approx(expected)
    counting = scores.counting_try(rule=THIRD, tries=tries)
    index = tries.index(counting)
    assert scores.try_score(rule=THIRD, score=counting.score, earlier_tries=index) == pytest.approx(
        expected
    )


def test_the_first_of_equal_tries_after_the_penalty_counts():
    first, second = tried("incorrect", 0.5), tried("correct", 1.0)
    rule = scores.ScoringRule(immediate=True, extra_try_penalty=0.5)
    assert scores.counting_try(rule=rule, tries=[first, second]) is first


def test_only_a_quiz_that_counts_tries_penalises_them():
    quiz = practice()
    quiz.extra_try_penalty = 0.25
    assert scores.scoring_rule(quiz) == scores.ScoringRule(immediate=True, extra_try_penalty=0.25)
    exam = Quiz(mode=Quiz.Mode.EXAM, show_feedback=Quiz.Feedback.AFTER_SUBMISSION)
    exam.extra_try_penalty = 0.25  # refused by the quiz's constraints; ignored here regardless
    assert scores.scoring_rule(exam) == scores.ScoringRule(immediate=False)
    saved = [tried("incorrect"), tried("incorrect"), tried("correct", 1.0)]
    assert scores.item_score(rule=scores.scoring_rule(exam), tries=saved) == 1.0


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
    # best_of picks the same one from attempts already read (the instructor pages' way).
    assert scores.best_of(Attempt.objects.filter(quiz=quiz)) == tie_later
    assert scores.best_of(Attempt.objects.filter(quiz=quiz, number=4)) is None


def test_best_of_breaks_a_tie_in_score_and_time_by_the_later_attempt():
    now = timezone.now()
    earlier, later = (
        Attempt(pk=pk, score=3.0, status=Attempt.Status.SUBMITTED, submitted_at=now)
        for pk in (1, 2)
    )
    assert scores.best_of([later, earlier]) is later
    assert scores.best_of([]) is None


@pytest.mark.django_db
def test_quiz_item_overrides_give_each_attempt_its_latest_override():
    item = QuizItemFactory(points=4)
    user = UserFactory()
    attempts = [
        Attempt.objects.create(
            user=user,
            quiz=item.quiz,
            number=number,
            status=Attempt.Status.SUBMITTED,
            submitted_at=timezone.now(),
        )
        for number in (1, 2, 3)
    ]
    for attempt, new_score in ((attempts[0], 1.0), (attempts[0], 3.0), (attempts[1], 2.0)):
        ScoreChange.objects.create(
            kind=ScoreChange.Kind.OVERRIDE,
            attempt=attempt,
            learner=user,
            quiz_item=item,
            points=4,
            old_score=0.0,
            new_score=new_score,
            old_attempt_score=0.0,
            new_attempt_score=new_score,
            reason="Checked by hand.",
            by_username="instructor",
        )
    found = scores.quiz_item_overrides(quiz=item.quiz)
    assert found == {attempts[0].pk: {item.pk: 0.75}, attempts[1].pk: {item.pk: 0.5}}
    assert scores.item_overrides(attempt=attempts[0]) == {item.pk: 0.75}
    assert scores.item_overrides(attempt=attempts[2]) == {}


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


def _verdict(status: str, *, costs_try: bool = True):
    from grading import engine

    return engine.Verdict(status, 0.0, None, "", {}, costs_try=costs_try)


def test_an_unreadable_answer_never_uses_a_try():
    assert not scores.try_counts(verdict=_verdict("invalid"), quiz=practice())
    assert not scores.try_counts(verdict=_verdict("invalid"), quiz=None)


def test_a_readable_answer_uses_a_try_unless_the_engine_gives_it_back():
    for quiz in (practice(), None):
        assert scores.try_counts(verdict=_verdict("incorrect"), quiz=quiz)
        assert scores.try_counts(verdict=_verdict("correct"), quiz=quiz)


def test_a_near_miss_is_free_in_practice_and_where_the_quiz_gives_rounding_retries():
    near_miss = _verdict("incorrect", costs_try=False)
    assert not scores.try_counts(verdict=near_miss, quiz=None)
    assert not scores.try_counts(verdict=near_miss, quiz=practice())


def test_a_quiz_may_make_every_near_miss_cost_its_try():
    quiz = practice()
    quiz.rounding_retries = False
    assert scores.try_counts(verdict=_verdict("incorrect", costs_try=False), quiz=quiz)


def test_without_feedback_per_item_a_near_miss_counts_as_the_saved_answer():
    # Such a quiz scores the latest saved answer: a free near miss would leave an older one
    # counting in its place.
    exam = Quiz(mode=Quiz.Mode.EXAM, show_feedback=Quiz.Feedback.AFTER_SUBMISSION)
    assert exam.rounding_retries
    assert scores.try_counts(verdict=_verdict("incorrect", costs_try=False), quiz=exam)
