"""The exam-day bench's CPU sampler: reads the processes' own counters (psutil, /proc) every
second and at each phase boundary, into bench/exam_cpu.py's ledger.

The processes, by group:
- gunicorn: each instance's master with its reaped children's counters, and its live workers
  (a worker killed mid-run is in its master's counters once reaped);
- postgresql: the postmaster itself and its children that work for the bench database: its
  backends, and the processes of no database (checkpointer, background writer, walwriter,
  autovacuum). Backends of other databases on the same server (other work on this machine) are
  left out; found again after a restart;
- redis: the server, found by its name (again after a restart); it may serve others too;
- load: the Locust processes and the bench's own process (which runs this sampler).
"""

from __future__ import annotations

import os
import re
import threading
import time

import psutil

from bench.exam_cpu import Ledger, Mark, Reading

CLIENT_HOST = re.compile(r"(\(\d+\)|\[local\])$")


def database_of(title: str) -> str | None:
    """The database a PostgreSQL process works for, read from its process title
    ("postgres: 15/main: user database 127.0.0.1(5123) idle"); None for the processes of no
    database (checkpointer, walwriter …)."""
    words = title.split()
    for index, word in enumerate(words):
        if CLIENT_HOST.search(word) and index >= 2:
            return words[index - 1]
    return None


def _seconds(process: psutil.Process, *, children: bool = False) -> float:
    times = process.cpu_times()
    own = times.user + times.system
    return own + (times.children_user + times.children_system if children else 0.0)


def _reading(group: str, process: psutil.Process, **options) -> Reading | None:
    try:
        reaped = options.pop("reaped", False)
        return Reading(
            group, process.pid, process.create_time(), _seconds(process, **options), reaped
        )
    except psutil.Error:
        return None


def _find(name: str, *, needs: str = "") -> psutil.Process | None:
    for process in psutil.process_iter(["name", "cmdline"]):
        cmdline = " ".join(process.info["cmdline"] or [])
        if process.info["name"] == name and needs in cmdline:
            return process
    return None


class Sampler:
    """Reads every group's processes each `interval` seconds in a thread, and on `mark`."""

    def __init__(self, masters: list[int], database: str, interval: float = 1.0) -> None:
        self.masters = [psutil.Process(pid) for pid in masters]
        self.database = database
        self.interval = interval
        self.load: list[psutil.Process] = [psutil.Process()]
        self.ledger = Ledger()
        self.marks: dict[str, Mark] = {}
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.postmaster: psutil.Process | None = None
        self.redis: psutil.Process | None = None
        self.thread = threading.Thread(target=self._poll, daemon=True)

    def start(self) -> None:
        self.read()
        self.thread.start()

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=5)

    def add_load(self, pid: int) -> None:
        with self.lock:
            self.load.append(psutil.Process(pid))

    def own_count(self, pid: int, seconds: float) -> None:
        """A load process's CPU as it counted it itself, when it finished (it may have ended
        by the next reading)."""
        with self.lock:
            for process in self.load:
                if process.pid == pid:
                    self.ledger.observe_one(Reading("load", pid, process.create_time(), seconds))

    def mark(self, *names: str) -> None:
        """Read every process now and keep the totals as the boundary `names` (one reading
        for boundaries that are one instant, such as the first arrival and the opening when
        everyone arrives at the opening)."""
        self.read()
        with self.lock:
            now, totals, load = time.time(), self.ledger.totals(), os.getloadavg()
            for name in names:
                self.marks.setdefault(name, Mark(name, now, totals, load))

    def mark_at(self, at: float, *names: str) -> threading.Thread:
        def wait_and_mark() -> None:
            if not self.stopped.wait(max(0.0, at - time.time())):
                self.mark(*names)

        thread = threading.Thread(target=wait_and_mark, daemon=True)
        thread.start()
        return thread

    def _poll(self) -> None:
        while not self.stopped.wait(self.interval):
            self.read()

    def read(self) -> None:
        readings = [*self._gunicorn(), *self._postgresql(), *self._redis()]
        readings += [r for r in (_reading("load", p) for p in self.load) if r]
        with self.lock:
            self.ledger.observe(readings)

    def _gunicorn(self) -> list[Reading]:
        readings = []
        for master in self.masters:
            readings.append(_reading("gunicorn", master, children=True))
            try:
                workers = master.children(recursive=True)
            except psutil.Error:
                workers = []
            readings += [_reading("gunicorn", worker, reaped=True) for worker in workers]
        return [reading for reading in readings if reading]

    def _postgresql(self) -> list[Reading]:
        if self.postmaster is None or not self.postmaster.is_running():
            self.postmaster = _find("postgres", needs=" -D ")
        if self.postmaster is None:
            return []
        readings = [_reading("postgresql", self.postmaster)]
        try:
            children = self.postmaster.children()
        except psutil.Error:
            children = []
        for child in children:
            try:
                title = " ".join(child.cmdline())
            except psutil.Error:
                continue
            if database_of(title) in (None, self.database):
                readings.append(_reading("postgresql", child))
        return [reading for reading in readings if reading]

    def _redis(self) -> list[Reading]:
        if self.redis is None or not self.redis.is_running():
            self.redis = _find("redis-server")
        reading = _reading("redis", self.redis) if self.redis else None
        return [reading] if reading else []
