"""The exam-day bench's whole-box CPU: the ledger of the processes' counters (ended processes,
reaped workers, reused pids), the CPU per phase and per unit, and which PostgreSQL processes
work for the bench database."""

import pytest

from bench.exam_cpu import (
    Ledger,
    Mark,
    Reading,
    arrival_less_idle,
    in_window,
    phase_counts,
    phase_cpu,
    submit_less_saves,
)
from bench.exam_sampler import database_of


def test_an_ended_backend_keeps_its_last_reading():
    ledger = Ledger()
    ledger.observe([Reading("postgresql", 10, 1.0, 2.0), Reading("postgresql", 11, 1.0, 0.5)])
    ledger.observe([Reading("postgresql", 10, 1.0, 3.0)])  # backend 11 closed

    assert ledger.totals()["postgresql"] == pytest.approx(3.5)


def test_a_reaped_worker_is_counted_once_through_its_masters_children_counters():
    ledger = Ledger()
    master, worker = Reading("gunicorn", 1, 1.0, 0.2), Reading("gunicorn", 2, 1.0, 4.0, True)
    ledger.observe([master, worker])
    assert ledger.totals()["gunicorn"] == pytest.approx(4.2)

    # The worker was killed after 4.5 s of CPU; its master reaped it and counts it now.
    ledger.observe([Reading("gunicorn", 1, 1.0, 0.2 + 4.5), Reading("gunicorn", 3, 9.0, 0.1, True)])

    assert ledger.totals()["gunicorn"] == pytest.approx(4.8)


def test_a_reused_pid_is_another_process():
    ledger = Ledger()
    ledger.observe([Reading("postgresql", 10, 1.0, 2.0)])
    ledger.observe([Reading("postgresql", 10, 5.0, 0.3)])

    assert ledger.totals()["postgresql"] == pytest.approx(2.3)


def test_a_late_count_never_takes_a_process_back():
    ledger = Ledger()
    ledger.observe([Reading("load", 7, 1.0, 9.0)])
    ledger.observe_one(Reading("load", 7, 1.0, 8.5))
    assert ledger.totals() == {"gunicorn": 0.0, "postgresql": 0.0, "redis": 0.0, "load": 9.0}

    ledger.observe_one(Reading("load", 7, 1.0, 9.25))
    assert ledger.totals()["load"] == pytest.approx(9.25)


def mark(name: str, at: float, one_minute: float = 0.5, **totals: float) -> Mark:
    groups = {"gunicorn": 0, "postgresql": 0, "redis": 0, "load": 0, **totals}
    return Mark(name, at, groups, (one_minute, 0, 0))


MARKS = {
    "first arrival": mark("first arrival", 100.0, 0.4),
    "opening": mark("opening", 400.0, 0.6, gunicorn=6.0, postgresql=1.0, load=3.0),
    "last on attempt page": mark(
        "last on attempt page", 410.0, 1.2, gunicorn=21.0, postgresql=4.0, redis=0.5, load=8.0
    ),
    "first submit": mark(
        "first submit", 500.0, 1.0, gunicorn=40.0, postgresql=8.5, redis=0.5, load=8.5
    ),
    "done": mark("done", 800.0, 0.9, gunicorn=101.0, postgresql=19.0, redis=1.0, load=10.0),
}


def test_each_phase_has_its_cpu_by_group_in_all_and_per_unit():
    counts = {"arrival": 1000, "start": 1000, "saves": 2000, "submit": 1000, "late_saves": 1000}
    phases = phase_cpu(MARKS, counts)

    assert list(phases) == ["arrival", "start", "saves", "submit"]
    assert phases["arrival"]["cpu_s"] == {
        "gunicorn": 6.0,
        "postgresql": 1.0,
        "redis": 0,
        "load": 3.0,
    }
    assert phases["arrival"]["ms_per_unit"] == 10.0  # 10 s over 1,000 quiz pages
    start = phases["start"]
    assert (start["seconds"], start["cpu_total_s"], start["unit"]) == (10.0, 23.5, "learner")
    assert start["ms_per_unit"] == 23.5
    assert start["load_average"] == [[0.6, 0, 0], [1.2, 0, 0]]
    assert phases["saves"]["ms_per_unit"] == 12.0  # 24 s over 2,000 saves
    assert phases["submit"]["late_saves"] == 1000
    assert phases["submit"]["cpu_total_s"] == 73.5
    # 73.5 s, less 1,000 saves at 12 ms, over 1,000 submits.
    assert submit_less_saves(phases) == 61.5


def test_the_idle_phase_gives_the_processes_cpu_per_second_at_rest():
    marks = {
        "idle from": mark("idle from", 96.0, 0.3),
        "first arrival": mark(
            "first arrival", 100.0, 0.4, gunicorn=0.04, postgresql=0.02, load=0.1
        ),
    }
    counts = phase_counts({}, marks, 10)
    phases = phase_cpu(marks, counts)

    assert counts == {"start": 10, "idle": 4.0}
    assert (phases["idle"]["unit"], phases["idle"]["cpu_total_s"]) == ("second", 0.16)
    assert phases["idle"]["ms_per_unit"] == 40.0  # 0.16 s of CPU over 4 s


def test_the_arrival_is_also_given_less_the_cpu_at_rest():
    phases = {
        "idle": {"ms_per_unit": 40.0},
        "arrival": {"seconds": 300.0, "cpu_total_s": 32.0, "count": 1000},
    }
    # 32 s less 300 s at 40 ms a second (12 s), over 1,000 quiz pages.
    assert arrival_less_idle(phases) == 20.0
    assert arrival_less_idle({"arrival": phases["arrival"]}) is None


def test_a_phase_without_both_marks_or_without_work_has_no_figure_per_unit():
    marks = {name: MARKS[name] for name in ("first arrival", "opening", "last on attempt page")}
    phases = phase_cpu(marks, {"arrival": 0, "start": 1000})

    assert list(phases) == ["arrival", "start"]
    assert phases["arrival"]["ms_per_unit"] is None
    assert submit_less_saves(phases) is None


def test_a_phase_that_lasted_no_time_is_left_out():
    marks = {**MARKS, "first arrival": mark("first arrival", 400.0, 0.6)}

    assert "arrival" not in phase_cpu(marks, {"arrival": 0, "start": 1000})
    assert "start" in phase_cpu(marks, {"arrival": 0, "start": 1000})


def test_the_work_of_each_phase_is_counted_in_its_window():
    times = {
        "quiz page": [100.5, 399.9, 400.1],
        "save": [409.0, 410.0, 499.9, 500.0, 800.0],
        "submit": [500.0, 799.0, 800.0],
    }

    assert phase_counts(times, MARKS, 3) == {
        "start": 3,
        "arrival": 2,
        "saves": 2,
        "submit": 3,
        "late_saves": 2,
    }
    assert in_window([1.0, 2.0, 3.0], 1.0, 3.0) == 2


@pytest.mark.parametrize(
    ("title", "database"),
    [
        ("postgres: 15/main: postgres i22bench_exam 127.0.0.1(5123) idle", "i22bench_exam"),
        ("postgres: 15/main: postgres other_tests [local] SELECT", "other_tests"),
        ("postgres: 15/main: checkpointer ", None),
        ("postgres: 15/main: walwriter ", None),
        ("postgres: 15/main: autovacuum launcher", None),
    ],
)
def test_a_postgresql_process_is_read_as_working_for_its_database_or_none(title, database):
    assert database_of(title) == database
