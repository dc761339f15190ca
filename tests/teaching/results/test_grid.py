"""The results grid's sort, status filter and mean row (teaching/results/grid.py), over the
learners of tests/teaching/results/test_reads.py, whose numbers are worked out by hand there:

- Ann: attempts 0, 3.5 (question 2 of 2, problem overridden to 1.5 of 3), 0; best is #2.
- Ben: #1 5 (2 + 3); #2 in progress, 2 so far (2 + 0).
- Cai: #1 in progress, 5 so far (2 + 3). No submitted attempt.
- Dan: sent by the LMS, no attempt.

Times are set by hand: Ann's #2 ran from t to t + 10 min, Ben's #1 from t + 10 min to t + 14 min.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from grading.models import Attempt
from teaching.results.grid import (
    Sort,
    SortColumn,
    SortError,
    Status,
    averages,
    rows_filter,
    sort_check,
    sort_parse,
)
from teaching.results.pages import grid_rows, results_page
from teaching.results.reads import AttemptRule

pytestmark = pytest.mark.django_db

T = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def timed(learners):
    ann_best = learners["attempts"]["ann"][1]
    ben_first = learners["attempts"]["ben"][0]
    Attempt.objects.filter(pk=ann_best.pk).update(
        started_at=T, submitted_at=T + timedelta(minutes=10)
    )
    Attempt.objects.filter(pk=ben_first.pk).update(
        started_at=T + timedelta(minutes=10), submitted_at=T + timedelta(minutes=14)
    )
    return learners


def order(exam, *, rule=AttemptRule.BEST, sort="", status=None, grouped=False):
    """(first name, attempt number or None) of each row, in the grid's order."""
    _, rows = grid_rows(
        quiz=exam.quiz,
        rule=rule,
        grouped=grouped,
        search="",
        sort=sort_parse(sort),
        status=status,
    )
    return [
        (row.learner.name.split()[0], row.attempt.number if row.attempt else None) for row in rows
    ]


NONE_LAST = [("Cai", None), ("Dan", None)]


@pytest.mark.parametrize(
    ("sort", "expected"),
    [
        ("", [("Ann", 2), ("Ben", 1), *NONE_LAST]),
        ("learner", [("Ann", 2), ("Ben", 1), *NONE_LAST]),
        ("-learner", [("Dan", None), ("Cai", None), ("Ben", 1), ("Ann", 2)]),
        ("total", [("Ann", 2), ("Ben", 1), *NONE_LAST]),  # 3.5, 5
        ("-total", [("Ben", 1), ("Ann", 2), *NONE_LAST]),
        ("time", [("Ben", 1), ("Ann", 2), *NONE_LAST]),  # 4 min, 10 min
        ("-time", [("Ann", 2), ("Ben", 1), *NONE_LAST]),
        ("submitted", [("Ann", 2), ("Ben", 1), *NONE_LAST]),  # t + 10, t + 14
        ("-submitted", [("Ben", 1), ("Ann", 2), *NONE_LAST]),
    ],
)
def test_each_column_sorts_both_ways_with_empty_cells_last(exam, timed, sort, expected):
    assert order(exam, sort=sort) == expected


def test_an_item_column_sorts_by_its_points(exam, timed):
    problem = f"item-{exam.problem_item.pk}"  # Ann 1.5 (overridden), Ben 3
    assert order(exam, sort=problem) == [("Ann", 2), ("Ben", 1), *NONE_LAST]
    assert order(exam, sort="-" + problem) == [("Ben", 1), ("Ann", 2), *NONE_LAST]
    # The question: 2 and 2, a tie, then by name either way.
    question = f"item-{exam.question_item.pk}"
    assert order(exam, sort="-" + question) == [("Ann", 2), ("Ben", 1), *NONE_LAST]


def test_every_attempt_places_a_learner_by_their_first_row_in_the_sort_s_direction(exam, timed):
    every = AttemptRule.ALL
    # Highest: Ben 5 (#1) and Cai 5 (in progress, so far), by name; Ann 3.5; a learner's rows
    # stay together, by attempt number.
    assert order(exam, rule=every, sort="-total") == [
        ("Ben", 1),
        ("Ben", 2),
        ("Cai", 1),
        ("Ann", 1),
        ("Ann", 2),
        ("Ann", 3),
        ("Dan", None),
    ]
    # Lowest: Ann 0, Ben 2, Cai 5.
    assert [name for name, _ in order(exam, rule=every, sort="total")] == [
        "Ann",
        "Ann",
        "Ann",
        "Ben",
        "Ben",
        "Cai",
        "Dan",
    ]


def test_grouped_the_sort_applies_within_each_lms_course(exam, timed):
    # Ben and Dan came from "ML 101"; Ann and Cai from no LMS (listed last).
    assert order(exam, sort="-total", grouped=True) == [
        ("Ben", 1),
        ("Dan", None),
        ("Ann", 2),
        ("Cai", None),
    ]


@pytest.mark.parametrize(
    ("rule", "status", "expected"),
    [
        (AttemptRule.BEST, Status.IN_PROGRESS, [("Cai", None)]),
        (AttemptRule.BEST, Status.SUBMITTED, [("Ann", 2), ("Ben", 1)]),
        (AttemptRule.BEST, Status.CLOSED_AT_DEADLINE, []),
        (AttemptRule.BEST, Status.OVERRIDDEN, [("Ann", 2)]),
        (AttemptRule.ALL, Status.IN_PROGRESS, [("Ben", 2), ("Cai", 1)]),
        (AttemptRule.ALL, Status.SUBMITTED, [("Ann", 1), ("Ann", 2), ("Ann", 3), ("Ben", 1)]),
        (AttemptRule.ALL, Status.OVERRIDDEN, [("Ann", 2)]),
    ],
)
def test_each_status_keeps_its_rows(exam, timed, rule, status, expected):
    assert order(exam, rule=rule, status=status) == expected


def test_closed_at_the_deadline_is_an_attempt_the_server_closed(exam, timed):
    ben_first = timed["attempts"]["ben"][0]
    Attempt.objects.filter(pk=ben_first.pk).update(late=True)  # submitted automatically
    # Cai's attempt in progress was closed with no score when time ran out.
    Attempt.objects.filter(pk=timed["attempts"]["cai"][0].pk).update(
        status=Attempt.Status.NEVER_SUBMITTED, late=True, submitted_at=T
    )
    closed = order(exam, status=Status.CLOSED_AT_DEADLINE)
    assert closed == [("Ben", 1), ("Cai", None)]
    assert order(exam, status=Status.SUBMITTED) == [("Ann", 2)]
    assert order(exam, status=Status.IN_PROGRESS) == []


def test_a_filter_and_a_sort_combine(exam, timed):
    assert order(exam, rule=AttemptRule.ALL, status=Status.IN_PROGRESS, sort="-total") == [
        ("Cai", 1),  # 5 so far
        ("Ben", 2),  # 2 so far
    ]


def test_the_mean_row_is_each_column_s_mean_over_the_cells_with_a_value(exam, timed):
    found, rows = grid_rows(quiz=exam.quiz, rule=AttemptRule.BEST, grouped=False, search="")
    mean = averages(rows, found.items)
    # Ann 3.5 and Ben 5; Cai and Dan have no total.
    assert (mean.total.mean, mean.total.count) == (4.25, 2)
    question, problem = mean.items
    assert (question.mean, question.count, question.maximum) == (2.0, 2, 2)
    assert (problem.mean, problem.count, problem.maximum) == (2.25, 2, 3)  # (1.5 + 3) / 2
    assert mean.time_taken == timedelta(minutes=7)  # (10 + 4) / 2
    assert mean.time.count == 2

    _, all_rows = grid_rows(quiz=exam.quiz, rule=AttemptRule.ALL, grouped=False, search="")
    every = averages(rows_filter(all_rows, None), found.items)
    # 0 + 3.5 + 0 + 5 + 2 + 5 (the two in progress count what they have so far) over 6.
    assert every.total.mean == pytest.approx(15.5 / 6)
    assert every.total.count == 6
    assert every.items[0].mean == pytest.approx(8 / 6)  # B, A, B, A, A, A
    assert every.items[1].mean == pytest.approx(7.5 / 6)  # 0, 1.5, 0, 3, 0, 3
    assert every.time.count == 4  # submitted attempts only


def test_the_mean_row_covers_every_page_and_only_what_the_filter_keeps(exam, timed, monkeypatch):
    from teaching.results import pages

    monkeypatch.setattr(pages, "LEARNERS_PER_PAGE", 1)
    second = results_page(quiz=exam.quiz, rule=AttemptRule.BEST, grouped=False, search="", number=2)
    (group,) = second.groups
    assert [row.learner.name for row in group.rows] == ["Ben Okafor"]
    assert group.averages.total.mean == 4.25  # Ann's 3.5 on page 1 too
    overridden = results_page(
        quiz=exam.quiz,
        rule=AttemptRule.BEST,
        grouped=False,
        search="",
        number=1,
        status=Status.OVERRIDDEN,
    )
    assert overridden.groups[0].averages.total.mean == 3.5
    assert overridden.learners == 1


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", Sort()),
        ("total", Sort(SortColumn.TOTAL)),
        ("-time", Sort(SortColumn.TIME, descending=True)),
        ("-item-17", Sort(SortColumn.ITEM, descending=True, item=17)),
    ],
)
def test_a_sort_parameter_names_a_column_and_a_direction(value, expected):
    assert sort_parse(value) == expected
    assert sort_parse(expected.value) == expected


@pytest.mark.parametrize(
    "value", ["score", "--total", "-", "item-", "item-x", "item--3", "Total", "item"]
)
def test_a_sort_that_names_no_column_is_refused(value):
    with pytest.raises(SortError):
        sort_parse(value)


def test_a_sort_by_an_item_of_another_quiz_is_refused(exam):
    with pytest.raises(SortError, match="no item of this quiz"):
        sort_check(Sort(SortColumn.ITEM, item=10**9), list(exam.quiz.items.all()))
