"""The instructor reports benchmark at a tiny size, so it cannot rot: its data set is what it
says, every report it times answers 200 with a body, and its table judges against the goals."""

import pytest

from bench.reports_data import QUESTIONS, reports_find, reports_make
from bench.reports_pages import GRADEBOOK_GOAL, PAGE_GOAL, Request, Timing, measure, percentile
from bench.reports_pages import table as timings_table
from grading.models import Attempt, Response

pytestmark = pytest.mark.django_db


@pytest.fixture
def data():
    return reports_make(learners=4, attempts=2)


def test_the_data_set_is_learners_times_attempts_submitted_with_an_answer_per_item(data):
    attempts = Attempt.objects.filter(quiz=data.quiz)
    assert attempts.count() == data.attempts == 8
    assert set(attempts.values_list("status", flat=True)) == {Attempt.Status.SUBMITTED}
    assert len(data.items) == 10
    responses = Response.objects.filter(attempt__quiz=data.quiz)
    assert responses.count() == data.responses == 80
    # Each question answer picked its choices; each problem answer has its variant.
    assert responses.filter(question__isnull=False, choices__isnull=True).count() == 0
    assert responses.filter(question__isnull=False).count() == QUESTIONS * 8
    assert responses.filter(variant__isnull=False).count() == (10 - QUESTIONS) * 8
    # An attempt's score is the sum of its answers' scores (one point per item).
    for attempt in attempts:
        answered = Response.objects.filter(attempt=attempt).values_list("score", flat=True)
        assert attempt.score == pytest.approx(sum(answered))


def test_a_second_run_finds_the_data_set_only_at_the_same_size(data):
    again = reports_find(learners=4, attempts=2)

    assert again is not None
    assert again.quiz == data.quiz
    assert again.responses == 80
    assert again.token != data.token  # a fresh key; the first one's secret is not stored
    assert reports_find(learners=5, attempts=2) is None
    assert reports_find(learners=4, attempts=3) is None


def test_every_report_answers_and_is_judged_against_its_goal(data):
    timings = measure(data, repeats=1)

    names = [timing.request.name for timing in timings]
    assert len(names) == len(set(names)) == 27
    for expected in ("results grid, all attempts", "statistics CSV, all", "gradebook CSV (best)"):
        assert expected in names
    assert all(timing.size > 0 for timing in timings)
    goals = {timing.request.name: timing.request.goal for timing in timings}
    assert goals["gradebook CSV (best)"] == goals["grades API CSV"] == GRADEBOOK_GOAL
    assert goals["statistics API, first"] == PAGE_GOAL
    assert measure(data, repeats=1, only="statistics CSV")[0].request.name.startswith(
        "statistics CSV"
    )


def test_the_table_says_miss_when_the_p95_reaches_the_goal():
    request = Request("slow page", "/teach/", goal=1.0)
    fast, slow = Timing(request, 0.5, 0.9, 0.4, 2048), Timing(request, 0.8, 1.0, 0.7, 2048)

    assert fast.passed
    assert not slow.passed
    lines = timings_table([fast, slow]).splitlines()
    assert lines[1].endswith("PASS")
    assert lines[2].endswith("MISS")


def test_the_95th_percentile_is_the_nearest_rank():
    assert percentile([3.0, 1.0, 2.0], 0.95) == 3.0
    assert percentile([float(n) for n in range(1, 21)], 0.95) == 19.0
    assert percentile([0.4], 0.95) == 0.4
