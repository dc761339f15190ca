"""Faults on exam day: break one part of a running softgrade at a time and time its recovery.

A `FaultPlan` is a list of `Fault`s run one after another, each followed by a recovery check:

- `worker`: kill one gunicorn worker with SIGKILL (`kill -9`), given the master's pid; the
  master starts a new one. Recovered when the master has as many workers as before and the
  check URL answers.
- `redis`: stop Redis, leave it down `down_for` seconds, start it again.
- `postgresql`: the same with PostgreSQL.

Each check polls a URL (by default /health/, which answers 200 while the database answers and
names each part: `{"database": "ok", "cache": "ok"}`) from the moment the part is broken until it
answers 200 with the part named "ok", and records how long that took after the part returned,
and every status seen on the way (a 503 while a part is down is expected; a 500 or a refused
connection is not). The commands are shell strings, so a bench can point them at its own
instances; the defaults are this machine's real services. With `also_check`, other instances
of the app (the same PostgreSQL and Redis) must answer too before a fault counts as recovered.
Each part has an `up` command that succeeds while it runs: `FaultPlan.restore()` starts any
part of the plan that is not up, so a plan that stopped half way leaves nothing down.

In a bench (bench/exam_day.py), run the plan in a thread during the steady phase:

    plan = FaultPlan(base_url="http://127.0.0.1:8000", gunicorn_pid=server.pid)
    running = plan.start(delay=60)        # a thread; the load goes on meanwhile
    ...
    results = running.join()              # list[FaultResult], also running.results
    print(format_results(results))

Standalone, against any running server (it prints a table and writes JSON with --json):

    .venv/bin/python bench/faults.py --url http://127.0.0.1:8000 --gunicorn-pid 1234
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path

POSTGRES_CLUSTER = "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main"
DEFAULT_COMMANDS = {  # stop, start, up (succeeds while the part runs)
    "redis": (
        "redis-cli -h 127.0.0.1 -p 6379 shutdown nosave",
        'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" '
        "--appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log",
        "redis-cli -h 127.0.0.1 -p 6379 ping | grep -q PONG",
    ),
    "postgresql": (
        f"{POSTGRES_CLUSTER} stop",
        f"{POSTGRES_CLUSTER} start",
        "pg_isready -q -h 127.0.0.1 -p 5432",
    ),
}
# What the health check must say of each part once it is back.
PART_OK = {"worker": "", "redis": '"cache": "ok"', "postgresql": '"database": "ok"'}
# Goal (ISSUE 12, item 7): recovered within 10 s of the part returning.
RECOVERY_GOAL = 10.0


@dataclass(frozen=True)
class Fault:
    """One part broken: `kind` is worker, redis or postgresql; `stop` and `start` are shell
    commands (unused for a worker); the part stays down `down_for` seconds between them; `up`
    succeeds while the part runs (empty: not checked)."""

    kind: str
    stop: str = ""
    start: str = ""
    down_for: float = 5.0
    up: str = ""


@dataclass
class FaultResult:
    """What one fault did: seconds the part was away, seconds from its return until the check
    passed (None: not within the timeout), the check's statuses meanwhile (`refused` when
    nothing answered, `timeout` when no answer came within the probe's timeout), and those of
    them seen after the part returned."""

    kind: str
    began_at: float
    down_seconds: float
    recovered_after: float | None
    statuses: dict[str, int] = field(default_factory=dict)
    after_return: dict[str, int] = field(default_factory=dict)
    note: str = ""

    @property
    def ok(self) -> bool:
        """Recovered within the goal, and nothing but 200 and 503 seen."""
        clean = set(self.statuses) <= {"200", "503"}
        return self.recovered_after is not None and self.recovered_after <= RECOVERY_GOAL and clean


def default_faults(down_for: float = 5.0) -> list[Fault]:
    """The issue's plan against this machine's real services: a worker, Redis, PostgreSQL."""
    return [
        Fault("worker"),
        part_fault("redis", down_for),
        part_fault("postgresql", down_for),
    ]


def part_fault(kind: str, down_for: float = 5.0) -> Fault:
    """Redis or PostgreSQL of this machine stopped for `down_for` seconds."""
    stop, start, up = DEFAULT_COMMANDS[kind]
    return Fault(kind, stop, start, down_for=down_for, up=up)


def workers_of(master_pid: int) -> list[int]:
    """The gunicorn master's worker pids (its children, from /proc)."""
    children = Path(f"/proc/{master_pid}/task/{master_pid}/children")
    return [int(pid) for pid in children.read_text().split()]


def probe(url: str, timeout: float = 5.0) -> tuple[str, str]:
    """(status, body) of a GET; status "timeout" when no answer came in time, "refused" when
    the connection was refused or dropped."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return str(response.status), response.read().decode(errors="replace")
    except urllib.error.HTTPError as error:
        return str(error.code), error.read().decode(errors="replace")
    except TimeoutError:
        return "timeout", ""
    except urllib.error.URLError as error:
        return "timeout" if isinstance(error.reason, TimeoutError) else "refused", ""
    except OSError:
        return "refused", ""


def succeeds(command: str) -> bool:
    """Whether a shell command (a part's `up` check) exits 0 within 30 s."""
    try:
        return subprocess.run(command, shell=True, capture_output=True, timeout=30).returncode == 0
    except subprocess.TimeoutExpired:
        return False


def run_shell(command: str) -> None:
    """Run one of the plan's commands; a failing command stops the plan, saying which."""
    done = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"{command!r} failed ({done.returncode}): {done.stderr.strip()}")


@dataclass
class FaultPlan:
    """Faults run one at a time against a server at `base_url` (gunicorn master `gunicorn_pid`
    for the worker fault), `settle` seconds apart, each checked at `check_path` every `poll`
    seconds for at most `timeout` seconds after the part returns, there and at `also_check`
    (other instances of the app)."""

    base_url: str
    gunicorn_pid: int | None = None
    faults: list[Fault] = field(default_factory=default_faults)
    check_path: str = "/health/"
    settle: float = 10.0
    poll: float = 0.1
    timeout: float = 60.0
    also_check: tuple[str, ...] = ()

    def longest(self) -> float:
        """Seconds the plan takes at most when every part recovers within the goal: each
        part's time down, the goal's 10 s after each return, and the settling between faults."""
        down = sum(fault.down_for for fault in self.faults if fault.kind != "worker")
        return down + len(self.faults) * RECOVERY_GOAL + max(0, len(self.faults) - 1) * self.settle

    def restore(self) -> list[str]:
        """Start every part of the plan whose `up` check fails; returns the kinds started."""
        started = []
        for fault in self.faults:
            if fault.up and fault.start and not succeeds(fault.up):
                run_shell(fault.start)
                started.append(fault.kind)
        return started

    def run(self, results: list[FaultResult] | None = None) -> list[FaultResult]:
        """Every fault in order; returns what each did (appended to `results` as it goes)."""
        results = [] if results is None else results
        for number, fault in enumerate(self.faults):
            if number:
                time.sleep(self.settle)
            results.append(self.run_one(fault))
        return results

    def run_one(self, fault: Fault) -> FaultResult:
        """Break one part, bring it back (a worker comes back by itself), check recovery."""
        seen: collections.Counter[str] = collections.Counter()
        began = time.monotonic()
        note = ""
        if fault.kind == "worker":
            if self.gunicorn_pid is None:
                raise ValueError("the worker fault needs the gunicorn master's pid")
            before = workers_of(self.gunicorn_pid)
            victim = before[0]
            os.kill(victim, signal.SIGKILL)
            note = f"killed worker {victim} of {len(before)}"
            returned = time.monotonic()

            def back() -> bool:
                alive = workers_of(self.gunicorn_pid)
                return victim not in alive and len(alive) >= len(before)
        else:
            run_shell(fault.stop)
            try:
                self._watch_until(began + fault.down_for, seen)
            finally:
                run_shell(fault.start)
            returned = time.monotonic()

            def back() -> bool:
                return True

        after: collections.Counter[str] = collections.Counter()
        recovered = self._watch_recovery(returned, PART_OK.get(fault.kind, ""), back, after)
        seen.update(after)
        return FaultResult(
            kind=fault.kind,
            began_at=time.time() - (time.monotonic() - began),
            down_seconds=round(returned - began, 2),
            recovered_after=None if recovered is None else round(recovered, 2),
            statuses=dict(seen),
            after_return=dict(after),
            note=note,
        )

    def start(self, delay: float = 0.0) -> RunningPlan:
        """Run the plan in a thread after `delay` seconds (a bench's steady phase)."""
        return RunningPlan(self, delay)

    def _check(self, seen: collections.Counter[str]) -> list[tuple[str, str]]:
        answers = []
        for url in (self.base_url, *self.also_check):
            status, body = probe(url.rstrip("/") + self.check_path)
            seen[status] += 1
            answers.append((status, body))
        return answers

    def _watch_until(self, until: float, seen: collections.Counter[str]) -> None:
        while time.monotonic() < until:
            self._check(seen)
            time.sleep(self.poll)

    def _watch_recovery(self, since: float, expect: str, back, seen) -> float | None:
        while time.monotonic() - since < self.timeout:
            answers = self._check(seen)
            if all(status == "200" and expect in body for status, body in answers) and back():
                return time.monotonic() - since
            time.sleep(self.poll)
        return None


class RunningPlan:
    """A plan running in its own thread; `join()` waits and returns its results."""

    def __init__(self, plan: FaultPlan, delay: float):
        self.results: list[FaultResult] = []
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(plan, delay), daemon=True)
        self._thread.start()

    def _run(self, plan: FaultPlan, delay: float) -> None:
        time.sleep(delay)
        try:
            plan.run(self.results)
        except BaseException as error:  # reported by join(), not lost in the thread
            self.error = error

    def join(self, timeout: float | None = None) -> list[FaultResult]:
        self._thread.join(timeout)
        if self.error is not None:
            raise self.error
        return self.results


def format_results(results: list[FaultResult]) -> str:
    """A table: fault, seconds down, recovery after its return, statuses seen, verdict."""
    lines = [
        "| fault | down | recovered after | check URL: every status / after the return | goal |",
        "|---" * 5 + "|",
    ]
    for result in results:
        after = "—" if result.recovered_after is None else f"{result.recovered_after:.2f} s"
        statuses = " / ".join(
            ", ".join(f"{code}×{count}" for code, count in sorted(counts.items())) or "—"
            for counts in (result.statuses, result.after_return)
        )
        verdict = "met" if result.ok else "MISSED"
        name = result.kind + (f" ({result.note})" if result.note else "")
        lines.append(f"| {name} | {result.down_seconds:.2f} s | {after} | {statuses} | {verdict} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the server, e.g. http://127.0.0.1:8000")
    parser.add_argument("--gunicorn-pid", type=int, help="the gunicorn master's pid")
    parser.add_argument(
        "--only", default="worker,redis,postgresql", help="faults to run, in order (comma list)"
    )
    parser.add_argument("--down-for", type=float, default=5.0, help="seconds a part stays down")
    parser.add_argument("--settle", type=float, default=10.0, help="seconds between faults")
    parser.add_argument("--check-path", default="/health/")
    for kind in ("redis", "postgresql"):
        parser.add_argument(f"--{kind}-stop", default=DEFAULT_COMMANDS[kind][0])
        parser.add_argument(f"--{kind}-start", default=DEFAULT_COMMANDS[kind][1])
        parser.add_argument(f"--{kind}-up", default=DEFAULT_COMMANDS[kind][2])
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    faults = []
    for kind in args.only.split(","):
        if kind == "worker":
            faults.append(Fault("worker"))
        elif kind in DEFAULT_COMMANDS:
            stop, start = getattr(args, f"{kind}_stop"), getattr(args, f"{kind}_start")
            up = getattr(args, f"{kind}_up")
            faults.append(Fault(kind, stop, start, down_for=args.down_for, up=up))
        else:
            parser.error(f"unknown fault {kind!r}: worker, redis or postgresql")
    plan = FaultPlan(
        base_url=args.url,
        gunicorn_pid=args.gunicorn_pid,
        faults=faults,
        check_path=args.check_path,
        settle=args.settle,
    )
    try:
        results = plan.run()
    finally:
        plan.restore()
    print(format_results(results))
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=2))
    return 0 if all(result.ok for result in results) else 1


if __name__ == "__main__":
    sys.exit(main())
