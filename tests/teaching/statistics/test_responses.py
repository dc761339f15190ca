"""Response analysis: counts, shares and learners per choice, misconception, diagnosis and status,
on hand-made rows whose every figure is counted by hand."""

from __future__ import annotations

import pytest

from grading.models import Response
from teaching.statistics.responses import (
    ItemSpec,
    ResponseGroup,
    ResponseRow,
    analyse_responses,
    count_responses,
    counts_of,
)

QUESTION = ItemSpec(item=1, choices=(11, 12, 13, 14))
PROBLEM = ItemSpec(item=2)


def row(response, learner, item, status, misconception="", diagnosis=None, choices=()):
    return ResponseRow(response, learner, item, status, misconception, diagnosis, choices)


QUESTION_ROWS = [
    row(1, 101, 1, "correct", choices=(12,)),
    row(2, 102, 1, "incorrect", "mean-for-sum", choices=(11,)),
    row(3, 103, 1, "incorrect", "mean-for-sum", choices=(11,)),
    row(4, 102, 1, "correct", choices=(12,)),  # learner 102's second try
    row(5, 104, 1, "incorrect", "variance-for-sd", choices=(13,)),
]
PROBLEM_ROWS = [
    row(6, 101, 2, "correct"),
    row(7, 102, 2, "invalid"),
    row(8, 102, 2, "incorrect", "std-for-variance"),
    row(9, 103, 2, "incorrect", diagnosis="sign-flipped"),
    row(10, 104, 2, "incorrect"),
    row(11, 105, 2, "incorrect"),
    row(12, 105, 2, "incorrect", "std-for-variance"),
    row(13, 106, 2, "correct"),
]


def test_a_questions_choices_in_order_with_the_unpicked_one():
    (question,) = analyse_responses([QUESTION], QUESTION_ROWS)
    assert question.responses == 5
    assert [(t.key, t.count, t.share) for t in question.choices] == [
        (11, 2, 2 / 5),
        (12, 2, 2 / 5),
        (13, 1, 1 / 5),
        (14, 0, 0.0),
    ]
    picked_12 = question.choices[1]
    assert (picked_12.learners, picked_12.responses) == ((101, 102), (1, 4))
    assert question.choices[3].learners == ()
    assert [(t.key, t.count, t.share, t.learners) for t in question.misconceptions] == [
        ("mean-for-sum", 2, 2 / 5, (102, 103)),
        ("variance-for-sd", 1, 1 / 5, (104,)),
    ]
    assert (question.correct.count, question.incorrect.count, question.invalid.count) == (2, 3, 0)
    assert question.unexplained.count == 0
    assert question.diagnoses == ()


def test_a_problems_outcomes():
    (problem,) = analyse_responses([PROBLEM], PROBLEM_ROWS)
    assert problem.responses == 8
    assert (problem.correct.count, problem.correct.share) == (2, 2 / 8)
    assert (problem.invalid.count, problem.invalid.learners) == (1, (102,))
    assert (problem.incorrect.count, problem.incorrect.share) == (5, 5 / 8)
    assert [(t.key, t.count, t.learners) for t in problem.misconceptions] == [
        ("std-for-variance", 2, (102, 105))
    ]
    assert [(t.key, t.count, t.responses) for t in problem.diagnoses] == [("sign-flipped", 1, (9,))]
    # Wrong with neither a misconception nor a diagnosis: responses 10 and 11.
    unexplained = problem.unexplained
    assert (unexplained.count, unexplained.share, unexplained.responses) == (2, 2 / 8, (10, 11))
    assert unexplained.learners == (104, 105)
    assert problem.choices == ()


def test_items_come_back_in_the_order_asked_whatever_the_rows_order():
    rows = [*PROBLEM_ROWS, *QUESTION_ROWS][::-1]
    assert [item.item for item in analyse_responses([QUESTION, PROBLEM], rows)] == [1, 2]


def test_a_multiple_choice_pick_counts_for_each_choice():
    rows = [
        row(1, 101, 1, "correct", choices=(11, 13)),
        row(2, 102, 1, "incorrect", "overlooked-third", choices=(11,)),
    ]
    (question,) = analyse_responses([QUESTION], rows)
    assert [(t.key, t.count, t.share) for t in question.choices] == [
        (11, 2, 1.0),
        (12, 0, 0.0),
        (13, 1, 0.5),
        (14, 0, 0.0),
    ]


def test_equally_frequent_codes_are_listed_alphabetically():
    rows = [
        row(1, 1, 2, "incorrect", "zeta"),
        row(2, 2, 2, "incorrect", "alpha"),
        row(3, 3, 2, "incorrect", "zeta"),
        row(4, 4, 2, "incorrect", "beta"),
    ]
    (problem,) = analyse_responses([PROBLEM], rows)
    assert [t.key for t in problem.misconceptions] == ["zeta", "alpha", "beta"]


def test_an_item_nobody_answered_has_counts_of_0_and_no_shares():
    (question,) = analyse_responses([QUESTION], [])
    assert question.responses == 0
    assert (question.correct.count, question.correct.share) == (0, None)
    assert [t.share for t in question.choices] == [None] * 4


@pytest.mark.parametrize(
    ("items", "rows", "message"),
    [
        ([QUESTION], [row(1, 1, 2, "correct")], "answers item 2, not analysed"),
        ([PROBLEM], [row(1, 1, 2, "recorded")], "has status 'recorded'"),
        ([QUESTION], [row(1, 1, 1, "correct", choices=(99,))], r"picked \[99\], not a choice"),
        ([QUESTION, QUESTION], [], "listed twice"),
    ],
)
def test_rows_that_do_not_fit_are_refused(items, rows, message):
    with pytest.raises(ValueError, match=message):
        analyse_responses(items, rows)


def test_rows_name_the_fields_of_a_stored_response():
    """The row is the Response, field for field; a status added to Response must be counted."""
    for name in ("id", "user", "quiz_item", "status", "misconception", "detail", "choices"):
        Response._meta.get_field(name)
    shown_only = {Response.Status.RECORDED}
    assert set(Response.Status.values) - shown_only == {"correct", "incorrect", "invalid"}


def group_of(rows):
    """The rows as the database groups them, and each choice's picks."""
    groups: dict = {}
    picks: dict = {}
    for found in rows:
        key = (found.item, found.status, found.misconception, found.diagnosis)
        groups[key] = groups.get(key, 0) + 1
        for choice in found.choices:
            picks[(found.item, choice)] = picks.get((found.item, choice), 0) + 1
    return [ResponseGroup(*key, count) for key, count in groups.items()], picks


def test_grouped_responses_count_as_the_rows_do():
    rows = [*QUESTION_ROWS, *PROBLEM_ROWS]
    groups, picks = group_of(rows)
    counted = count_responses([QUESTION, PROBLEM], groups, picks)
    assert counted == tuple(counts_of(a) for a in analyse_responses([QUESTION, PROBLEM], rows))
    question, problem = counted
    assert question.choices == ((11, 2), (12, 2), (13, 1), (14, 0))
    assert question.misconceptions == (("mean-for-sum", 2), ("variance-for-sd", 1))
    assert (problem.responses, problem.correct, problem.incorrect) == (8, 2, 5)
    assert (problem.invalid, problem.unexplained, problem.choices) == (1, 2, ())
    assert problem.diagnoses == (("sign-flipped", 1),)


@pytest.mark.parametrize(
    ("group", "message"),
    [
        (ResponseGroup(2, "correct", "", None, 3), "3 responses answers item 2, not analysed"),
        (ResponseGroup(1, "recorded", "", None, 1), "has status 'recorded'"),
    ],
)
def test_groups_that_do_not_fit_are_refused(group, message):
    with pytest.raises(ValueError, match=message):
        count_responses([QUESTION], [group], {})
