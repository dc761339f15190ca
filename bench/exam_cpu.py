"""Whole-box CPU of the exam-day bench, from the processes' own counters: the arithmetic.

A run's CPU is the user + system seconds the kernel counts for each process that serves the
exam: gunicorn's masters and workers, PostgreSQL's postmaster and the processes that work for
the bench database (its backends, the writer, the checkpointer …), the Redis server, and the
load generator. bench/exam_sampler.py reads the counters every second and at each phase
boundary; this module keeps what it read and turns it into CPU per phase.

A process can end between two readings: a PostgreSQL backend closed after CONN_MAX_AGE, a
gunicorn worker killed by the fault mode. `Ledger` keeps the last reading of every process it
has seen (a process is its pid and its start time, as pids are reused), so an ended backend's
CPU up to its last reading still counts. A gunicorn worker is different: its master reaps it and
the kernel adds all of its CPU to the master's children counters, which the ledger reads with
the master's own; such a process is read with `reaped=True` and stops counting once it is gone,
so it is not counted twice.

Nothing here reads /proc or imports Django: tests/bench/ checks it on its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

GROUPS = ("gunicorn", "postgresql", "redis", "load")
# Phase name → the marks it runs between, and what its CPU is divided by.
PHASES = (
    # Before anyone arrives: what the processes use idle (per second), beside the rest.
    ("idle", "idle from", "first arrival", "second"),
    ("arrival", "first arrival", "opening", "quiz page"),
    ("start", "opening", "last on attempt page", "learner"),
    ("saves", "last on attempt page", "first submit", "save"),
    ("submit", "first submit", "done", "submit"),
)


@dataclass(frozen=True)
class Reading:
    """One process's counters at one moment: user + system seconds (a gunicorn master's with
    its reaped children's)."""

    group: str
    pid: int
    started: float  # the process's start time: with the pid, it names the process
    seconds: float
    reaped: bool = False  # its parent's counters take its CPU once it has ended


@dataclass
class Ledger:
    """The last reading of every process seen, and the group totals they add up to."""

    last: dict[tuple[int, float], Reading] = field(default_factory=dict)

    def observe(self, readings: list[Reading]) -> None:
        """Take one round of readings. A process read before and absent now has ended: it
        keeps its last reading, unless its parent's counters took it (`reaped`)."""
        seen = {(reading.pid, reading.started) for reading in readings}
        for key in [key for key, reading in self.last.items() if reading.reaped]:
            if key not in seen:
                del self.last[key]
        for reading in readings:
            self.observe_one(reading)

    def observe_one(self, reading: Reading) -> None:
        """Take one reading on its own (a process's count of itself): no other process ended.
        Counters only grow; a process's own count may come after a later reading of it."""
        key = (reading.pid, reading.started)
        previous = self.last.get(key)
        if previous is None or reading.seconds >= previous.seconds:
            self.last[key] = reading

    def totals(self) -> dict[str, float]:
        counted = dict.fromkeys(GROUPS, 0.0)
        for reading in self.last.values():
            counted[reading.group] = counted.get(reading.group, 0.0) + reading.seconds
        return counted


@dataclass(frozen=True)
class Mark:
    """The group totals at one phase boundary, when, and the load average then."""

    name: str
    at: float
    totals: dict[str, float]
    load_average: tuple[float, float, float]


def phase_cpu(marks: dict[str, Mark], counts: dict[str, int]) -> dict[str, dict]:
    """CPU seconds per group in each phase between two marks, in all, and per unit of the
    phase's work (`counts`: phase name → quiz pages, learners, saves or submits in it).

    A phase whose marks were not both taken (a run that ended early), or that lasted no time
    (the arrival, when everyone opens the quiz page at the opening), is left out.
    """
    phases = {}
    for name, begin, end, unit in PHASES:
        if begin not in marks or end not in marks:
            continue
        first, last = marks[begin], marks[end]
        if last.at <= first.at:
            continue
        by_group = {
            group: round(last.totals.get(group, 0.0) - first.totals.get(group, 0.0), 3)
            for group in GROUPS
        }
        total = round(sum(by_group.values()), 3)
        count = counts.get(name, 0)
        phases[name] = phase = {
            "seconds": round(last.at - first.at, 2),
            "cpu_s": by_group,
            "cpu_total_s": total,
            "unit": unit,
            "count": count,
            "ms_per_unit": round(total * 1000 / count, 1) if count else None,
            "load_average": [list(first.load_average), list(last.load_average)],
        }
        if name == "submit":
            phase["late_saves"] = counts.get("late_saves", 0)
    return phases


def submit_less_saves(phases: dict[str, dict]) -> float | None:
    """Milliseconds per submit (with its results page) once the saves still made during the
    submit phase are taken out at the saves phase's cost per save; None when either is missing.
    The submit phase's saves are counted under `late_saves`."""
    submit, saves = phases.get("submit"), phases.get("saves")
    if not submit or not saves or not submit["count"] or saves["ms_per_unit"] is None:
        return None
    late = submit.get("late_saves", 0) * saves["ms_per_unit"] / 1000
    return round((submit["cpu_total_s"] - late) * 1000 / submit["count"], 1)


def arrival_less_idle(phases: dict[str, dict]) -> float | None:
    """Milliseconds per quiz page of the arrival once the processes' CPU at rest (the idle
    phase's rate, over the arrival's seconds) is taken out; None when either is missing."""
    arrival, idle = phases.get("arrival"), phases.get("idle")
    if not arrival or not idle or not arrival["count"] or idle["ms_per_unit"] is None:
        return None
    rest = idle["ms_per_unit"] * arrival["seconds"] / 1000
    return round((arrival["cpu_total_s"] - rest) * 1000 / arrival["count"], 1)


def in_window(times: list[float], begin: float, end: float) -> int:
    """How many of the instants fall in [begin, end)."""
    return sum(1 for at in times if begin <= at < end)


def phase_counts(times: dict[str, list[float]], marks: dict[str, Mark], learners: int) -> dict:
    """The work in each phase: quiz pages answered during the arrival, the learners who
    started, saves answered between the last learner's attempt page and the first submit,
    submits answered from then to the end, and the saves answered meanwhile (`late_saves`)."""
    at = {name: mark.at for name, mark in marks.items()}
    end = at.get("done", float("inf")) + 1e-6
    counts = {"start": learners}
    if "idle from" in at and "first arrival" in at:
        counts["idle"] = round(at["first arrival"] - at["idle from"], 2)
    if "first arrival" in at and "opening" in at:
        counts["arrival"] = in_window(
            times.get("quiz page", []), at["first arrival"], at["opening"]
        )
    if "last on attempt page" in at and "first submit" in at:
        saves = times.get("save", [])
        counts["saves"] = in_window(saves, at["last on attempt page"], at["first submit"])
    if "first submit" in at:
        counts["submit"] = in_window(times.get("submit", []), at["first submit"], end)
        counts["late_saves"] = in_window(times.get("save", []), at["first submit"], end)
    return counts
