"""Time on an item, from the answers' timestamps (teaching.results.reads.item_times), checked
against times worked out by hand: the rule alone, then the results grid and the staff view of an
attempt with every timestamp fixed.

The rule: each save's time since the previous save in the attempt (or its start) goes to the
item saved; answers saved together share it equally; the time after the last save goes nowhere.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from django.urls import reverse
from django.utils.html import escape

from grading.models import Attempt, Response
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.responses import response_submit
from teaching.results.reads import ITEM_TIME_DEFINITION, AttemptRule, item_times, quiz_results
from tests.factories import UserFactory

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return START + timedelta(seconds=seconds)


def saved(item: int, seconds: float) -> SimpleNamespace:
    return SimpleNamespace(quiz_item_id=item, created_at=at(seconds))


def test_each_save_takes_the_time_since_the_previous_one():
    # Item 1 at 1:30 (90 s); item 2 at 2:00 (30 s) and again at 3:00 (60 s); item 1 at 3:20.
    answers = [saved(1, 90), saved(2, 120), saved(2, 180), saved(1, 200)]
    assert item_times(started_at=START, answers=answers) == {
        1: timedelta(seconds=90 + 20),
        2: timedelta(seconds=30 + 60),
    }


def test_answers_saved_together_share_the_time_since_the_previous_save():
    # Item 1 at 1:00; then one click saves items 2, 3 and 4 (a sheet: written within a second,
    # at 2:30.0, 2:30.3 and 2:30.6), sharing the 90.6 s since 1:00; item 3 again at 3:00.
    answers = [saved(1, 60), saved(2, 150), saved(3, 150.3), saved(4, 150.6), saved(3, 180)]
    times = item_times(started_at=START, answers=answers)
    assert times == {
        1: timedelta(seconds=60),
        2: timedelta(seconds=30.2),
        3: timedelta(seconds=30.2 + 29.4),
        4: timedelta(seconds=30.2),
    }
    assert sum(times.values(), timedelta()) == timedelta(seconds=180)  # to the last save


def test_saves_more_than_a_second_apart_are_not_shared():
    answers = [saved(1, 60), saved(2, 61.5)]
    assert item_times(started_at=START, answers=answers) == {
        1: timedelta(seconds=60),
        2: timedelta(seconds=1.5),
    }


def test_the_order_given_does_not_matter_and_no_answer_means_no_time():
    answers = [saved(2, 100), saved(1, 40)]
    assert item_times(started_at=START, answers=answers) == {
        1: timedelta(seconds=40),
        2: timedelta(seconds=60),
    }
    assert item_times(started_at=START, answers=[]) == {}


@pytest.fixture
def timed(exam, people):
    """A learner's submitted attempt at the exam with its clock fixed: started 9:00:00; the
    problem answered unreadably at 9:00:30 (no try, but time on it), the question answered at
    9:01:10, the problem answered at 9:01:40; submitted at 9:02:10. Problem 30 + 30 = 60 s,
    question 40 s (counting only tries, the question would take 70 s and the problem 30 s);
    the attempt 2 min 10 s."""
    attempt = attempt_start(user=UserFactory(first_name="Eve"), quiz=exam.quiz)
    unreadable = response_submit(attempt=attempt, item=exam.problem_item, text="not a number")
    question = response_submit(
        attempt=attempt, item=exam.question_item, choice_ids=[exam.choices["A"].pk]
    )
    problem = response_submit(attempt=attempt, item=exam.problem_item, text="1")
    attempt_submit(attempt=attempt)
    assert not unreadable.counts_as_try
    for response, seconds in ((unreadable, 30), (question, 70), (problem, 100)):
        Response.objects.filter(pk=response.pk).update(created_at=at(seconds))
    Attempt.objects.filter(pk=attempt.pk).update(started_at=START, submitted_at=at(130))
    return Attempt.objects.get(pk=attempt.pk)


def test_the_grid_gives_each_item_its_time(exam, timed):
    results = quiz_results(quiz=exam.quiz, rule=AttemptRule.BEST)
    (row,) = results.rows
    assert row.time_taken == timedelta(seconds=130)
    assert [(cell.item, cell.time, cell.tries) for cell in row.items] == [
        (exam.question_item, timedelta(seconds=40), 1),
        (exam.problem_item, timedelta(seconds=60), 1),  # the unreadable answer is no try
    ]


def test_an_item_without_an_answer_has_no_time(exam, people):
    attempt = attempt_start(user=UserFactory(), quiz=exam.quiz)
    response_submit(attempt=attempt, item=exam.question_item, choice_ids=[exam.choices["B"].pk])
    attempt_submit(attempt=attempt)
    (row,) = quiz_results(quiz=exam.quiz, rule=AttemptRule.LAST).rows
    assert [cell.time is None for cell in row.items] == [False, True]


def test_the_grid_page_shows_each_item_s_time_and_says_how_it_is_counted(
    client, exam, people, timed
):
    client.force_login(people.assistant)
    page = client.get(reverse("teaching:quiz-results", args=[exam.quiz.slug])).content.decode()
    cells = {int(item): cell for item, cell in re.findall(r'data-item="(\d+)">(.*?)</td>', page)}
    assert cells[exam.question_item.pk].endswith('<span class="meta">40 s</span>')
    assert cells[exam.problem_item.pk].endswith('<span class="meta">1 min 00 s</span>')
    assert "<td>2 min 10 s</td>" in page  # the attempt's time taken
    assert escape(ITEM_TIME_DEFINITION) in page


def test_the_staff_view_shows_each_item_s_time_and_says_how_it_is_counted(
    client, exam, people, timed
):
    client.force_login(people.instructor)
    page = client.get(reverse("teaching:attempt", args=[timed.pk])).content.decode()
    assert escape(ITEM_TIME_DEFINITION) in page
    question = page[page.index(f'id="item-{exam.question_item.pk}"') :]
    problem = page[page.index(f'id="item-{exam.problem_item.pk}"') :]
    # Each item's own section, whichever order the learner saw them in.
    assert re.search(r"data-item-time>([^<]*)<", question).group(1) == "40 s"
    assert re.search(r"data-item-time>([^<]*)<", problem).group(1) == "1 min 00 s"
    assert "<dt>Time taken</dt><dd>2 min 10 s</dd>" in page


def test_the_staff_view_says_when_an_item_has_no_answer(client, exam, people):
    attempt = attempt_start(user=UserFactory(), quiz=exam.quiz)
    response_submit(attempt=attempt, item=exam.question_item, choice_ids=[exam.choices["B"].pk])
    client.force_login(people.instructor)
    page = client.get(reverse("teaching:attempt", args=[attempt.pk])).content.decode()
    assert "<strong data-item-time>none (no answer saved)</strong>" in page
