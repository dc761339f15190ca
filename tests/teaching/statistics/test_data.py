"""The data layer behind the statistics: docs/statistics.md's worked example, made through the
services (answers, submissions, overrides), read back as the matrix, totals and responses the
computations take, and its figures checked against the ones worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from courses.models import Question
from grading.deletions import attempt_delete
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from teaching.results.reads import AttemptRule
from teaching.statistics.data import (
    NO_ITEMS,
    counted_attempts,
    item_data,
    item_guess,
    quiz_data,
)
from teaching.statistics.responses import counts_of
from tests.factories import (
    ChoiceFactory,
    InstructorFactory,
    QuestionFactory,
    QuizFactory,
    QuizItemFactory,
    UserFactory,
)
from tests.teaching.statistics.test_figures import HAND_ITEMS, HAND_QUIZ, SCORES, TOTALS
from tests.teaching.statistics_example import example_build

pytestmark = pytest.mark.django_db

FIRST_ROWS = dict(zip(("Ann", "Ben", "Cai", "Dan", "Eve"), SCORES, strict=True))


@pytest.fixture
def worked(db):
    return example_build(by=InstructorFactory())


def by_learner(data) -> dict[str, list[float]]:
    return {
        attempt.user.first_name: data.scores[row].tolist()
        for row, attempt in enumerate(data.attempts)
    }


def test_first_attempts_give_the_worked_example_s_matrix_and_totals(worked):
    data = quiz_data(quiz=worked.quiz)
    assert data.rule is AttemptRule.FIRST
    assert [attempt.pk for attempt in data.attempts] == [a.pk for a in worked.first.values()]
    found = by_learner(data)
    assert set(found) == set(FIRST_ROWS)
    for name, expected in FIRST_ROWS.items():
        # NaN: Eve sent no answer to the problem (and no override stands in for one).
        np.testing.assert_array_equal(found[name], expected, err_msg=name)
    assert data.totals == TOTALS
    assert data.max_marks == [1.0, 2.0, 2.0]
    assert data.random_guess_scores() == [0.5, 0.25, 0.0]


def test_the_records_give_the_hand_computed_figures(worked):
    report = quiz_data(quiz=worked.quiz).report()
    assert report.quiz.n == 5
    for name, value in HAND_QUIZ.items():
        assert getattr(report.quiz, name) == pytest.approx(value, abs=1e-12), name
    assert [item.answered for item in report.items] == [5, 5, 4]
    for item, hand in zip(report.items, HAND_ITEMS, strict=True):
        for name, value in hand.items():
            assert getattr(item, name) == pytest.approx(value, abs=1e-12), (item.position, name)


def test_every_submitted_attempt_counts_when_asked(worked):
    """Ann's second attempt (0 points) joins; attempts in progress never count."""
    data = quiz_data(quiz=worked.quiz, rule=AttemptRule.ALL)
    assert sorted(a.pk for a in data.attempts) == sorted(
        [*(a.pk for a in worked.first.values()), worked.ann_second.pk]
    )
    rows = {attempt.pk: data.scores[row].tolist() for row, attempt in enumerate(data.attempts)}
    assert rows[worked.ann_second.pk] == [0, 0, 0]
    report = data.report()
    assert report.quiz.n == 6
    assert report.quiz.mean == pytest.approx((5 + 4 + 2 + 2 + 2 + 0) / 6 / 5)
    assert report.quiz.median == pytest.approx(2 / 5)
    assert [item.facility for item in report.items] == pytest.approx(
        [(1 + 1 + 0 + 1 + 0 + 0) / 6, (1 + 1 + 0.5 + 0 + 1 + 0) / 6, (1 + 0.5 + 0.5 + 0.5) / 6]
    )


def counts(analysis) -> dict:
    return {
        "responses": analysis.responses,
        "correct": analysis.correct.count,
        "incorrect": analysis.incorrect.count,
        "invalid": analysis.invalid.count,
        "unexplained": analysis.unexplained.count,
        "choices": [tally.count for tally in analysis.choices],
        "misconceptions": {tally.key: tally.count for tally in analysis.misconceptions},
        "diagnoses": {tally.key: tally.count for tally in analysis.diagnoses},
    }


FIRST_COUNTS = [
    # True: Ann, Ben, Dan; False: Cai, Eve.
    {"responses": 5, "correct": 3, "incorrect": 2, "invalid": 0, "unexplained": 0,
     "choices": [3, 2], "misconceptions": {"tf-wrong": 2}, "diagnoses": {}},
    # A: Ann, Ben, Eve; B: Cai; C: Dan; D: nobody.
    {"responses": 5, "correct": 3, "incorrect": 2, "invalid": 0, "unexplained": 0,
     "choices": [3, 1, 1, 0], "misconceptions": {"picked-b": 1, "picked-c-or-d": 1},
     "diagnoses": {}},
    # Ann right; Ben width-ignored; Cai "abc" then −answer; Dan × 1.37; Eve nothing.
    {"responses": 5, "correct": 1, "incorrect": 3, "invalid": 1, "unexplained": 1,
     "choices": [], "misconceptions": {"width-ignored": 1}, "diagnoses": {"sign-flipped": 1}},
]  # fmt: skip


def test_every_response_of_the_first_attempts_is_counted(worked):
    analyses = quiz_data(quiz=worked.quiz).item_responses()
    assert [counts(analysis) for analysis in analyses] == FIRST_COUNTS
    question = analyses[0]
    assert question.choices[0].key == worked.choices["True"].pk
    learners = worked.learners
    assert question.choices[1].learners == tuple(sorted([learners["Cai"].pk, learners["Eve"].pk]))


def test_every_attempt_adds_ann_s_second_answers(worked):
    """False, D and × 1.37 once more; Ben's and Fay's attempts in progress add nothing."""
    analyses = quiz_data(quiz=worked.quiz, rule=AttemptRule.ALL).item_responses()
    found = [counts(analysis) for analysis in analyses]
    assert found[0]["choices"] == [3, 3]
    assert found[1]["choices"] == [3, 1, 1, 1]
    assert found[1]["misconceptions"] == {"picked-c-or-d": 2, "picked-b": 1}
    assert (found[2]["responses"], found[2]["unexplained"]) == (6, 2)


def test_a_first_attempt_is_the_earliest_submitted_one_left(worked):
    """With Ann's first attempt gone (deleted by an administrator), her second is her first
    submitted one: its answers, not nobody's, are counted (the database reads by the rule)."""
    attempt_delete(attempt=worked.first["Ann"], by=InstructorFactory(), reason="a test sitting")

    data = quiz_data(quiz=worked.quiz)
    ann = next(attempt for attempt in data.attempts if attempt.user.first_name == "Ann")
    assert ann.pk == worked.ann_second.pk
    assert {row.attempt_id for row in data.answers} == {attempt.pk for attempt in data.attempts}
    problem = item_data(quiz=worked.quiz, rule=AttemptRule.FIRST, item_id=worked.items[2].pk)
    assert worked.ann_second.pk in set(problem.attempt_of_response.values())


def test_one_item_s_responses_and_their_attempts(worked):
    problem = worked.items[2]
    data = item_data(quiz=worked.quiz, rule=AttemptRule.FIRST, item_id=problem.pk)
    assert (data.item, data.position, data.choices) == (problem, 3, [])
    assert counts(data.analysis) == FIRST_COUNTS[2]
    invalid = data.analysis.invalid.responses
    assert [data.attempt_of_response[r] for r in invalid] == [worked.first["Cai"].pk]
    assert item_data(quiz=worked.quiz, rule=AttemptRule.FIRST, item_id=problem.pk + 999) is None


def test_an_item_of_another_quiz_is_not_found(worked):
    other = QuizItemFactory()
    assert item_data(quiz=worked.quiz, rule=AttemptRule.ALL, item_id=other.pk) is None


def test_statistics_count_first_or_all_attempts_only(worked):
    for rule in (AttemptRule.BEST, AttemptRule.LAST):
        with pytest.raises(ValueError, match="first or all"):
            counted_attempts(quiz=worked.quiz, rule=rule)


@pytest.mark.parametrize(
    ("kind", "correct", "choices", "expected"),
    [
        (Question.Kind.SINGLE, 1, 5, 0.2),
        (Question.Kind.SINGLE, 2, 4, 0.5),
        (Question.Kind.TRUE_FALSE, 1, 2, 0.5),
        (Question.Kind.MULTIPLE, 2, 4, None),
        (Question.Kind.SINGLE, 0, 0, None),  # no choices authored yet
    ],
)
def test_a_question_s_random_guess_score(kind, correct, choices, expected):
    question = QuestionFactory.build(kind=kind)
    item = QuizItemFactory.build(question=question, quiz=None)
    made = [ChoiceFactory.build(question=question, is_correct=n < correct) for n in range(choices)]
    assert item_guess(item, made) == expected


def test_a_problem_s_random_guess_score_is_0():
    assert item_guess(QuizItemFactory.build(question=None, problem_id=1, quiz=None), []) == 0


def test_a_quiz_without_attempts_has_an_empty_matrix(db):
    data = quiz_data(quiz=QuizItemFactory().quiz)
    assert data.scores.shape == (0, 1)
    assert data.report().quiz.n == 0
    assert not math.isnan(data.report().items[0].intended_weight)


def test_the_data_costs_five_queries_and_the_analysis_one_more(worked, django_assert_num_queries):
    """Items, choices, attempts, responses, overrides; then the choices the responses picked."""
    with django_assert_num_queries(5):
        data = quiz_data(quiz=worked.quiz, rule=AttemptRule.ALL)
    with django_assert_num_queries(1):
        data.item_responses()


def test_a_quiz_without_items_has_attempts_and_no_figure(db):
    quiz = QuizFactory()
    attempt_submit(attempt=attempt_start(user=UserFactory(), quiz=quiz))
    report = quiz_data(quiz=quiz).report()
    assert (report.quiz.n, report.quiz.mean, report.items) == (1, None, ())
    assert set(report.quiz.undefined.values()) == {NO_ITEMS}


@pytest.mark.parametrize("rule", [AttemptRule.FIRST, AttemptRule.ALL])
def test_the_database_s_counts_are_the_analysis_counts(worked, rule):
    """The API's counts (grouped by the database) and the pages' analysis (response by
    response) count the same responses the same way."""
    data = quiz_data(quiz=worked.quiz, rule=rule)
    assert data.response_counts() == tuple(counts_of(a) for a in data.item_responses())


def test_the_counts_cost_one_query(worked, django_assert_num_queries):
    data = quiz_data(quiz=worked.quiz, rule=AttemptRule.ALL)
    with django_assert_num_queries(1):
        found = data.response_counts()
    assert [counts.responses for counts in found] == [6, 6, 6]
