"""Exam day with faults: `make bench-exam EXAM_ARGS="… --faults"` (docs/performance.md, "Faults").

While the learners are in the steady part of the exam (everyone on the attempt page, saving),
a `FaultPlan` (bench/faults.py) breaks this machine's parts one at a time: it kills one
gunicorn worker (`kill -9`), restarts Redis, then restarts PostgreSQL, each followed by a check
of /health/ until the part is back, `--fault-settle` seconds apart. The learners go on meanwhile
and send a request answered 503, or whose connection dropped, again as the page's script does
(bench/exam_load.py keeps each such answer in `interruptions`, with its time).

The report puts the plan's results beside what the learners met: per fault, the seconds the
part was away, how long /health/ took to pass after the part returned, every status it saw, the
learners' requests that met the outage (by status) and how long after the part returned the
last of them came. A fault fails its goal when it was not recovered within 10 s of the part's
return (by /health/, or by the learners' requests), or when anyone got a 500, a 503 that is not
the outage page or JSON error, or a stack trace. The exam bench's database check
(bench/exam_database.py) adds the rest: every acknowledged save and submit stored once, no sheet
stored in part, every learner submitted.

The plan runs `--fault-delay` seconds (by default the shortest think time, when the first saves
come) after the steady part begins, which lasts at least the shortest exam a learner can take:
30 s × think-scale × (saves + 1). A run whose steady part is shorter than the plan's longest
(every part recovering at the 10 s goal) is refused before it starts.
"""

from __future__ import annotations

import argparse
import collections
import math
import time
from collections.abc import Callable
from dataclasses import asdict

from bench.faults import (
    RECOVERY_GOAL,
    Fault,
    FaultPlan,
    FaultResult,
    format_results,
    part_fault,
)

SHORTEST_THINK = 30.0  # seconds, before --think-scale (the profile's 30–90 s)


def add_options(options: argparse.ArgumentParser) -> None:
    options.add_argument(
        "--faults",
        action="store_true",
        help="during the steady part, kill a gunicorn worker, restart Redis, restart PostgreSQL "
        "(this machine's real services), one at a time, and report the recovery",
    )
    options.add_argument(
        "--fault-down-for", type=float, default=5.0, help="seconds Redis and PostgreSQL stay down"
    )
    options.add_argument("--fault-settle", type=float, default=10.0, help="seconds between faults")
    options.add_argument(
        "--fault-delay",
        type=float,
        help="seconds from the steady part's start to the first fault (default: the shortest "
        "think time, when the first saves come)",
    )


def delay(args: argparse.Namespace) -> float:
    if args.fault_delay is not None:
        return args.fault_delay
    return SHORTEST_THINK * args.think_scale


def steady_seconds(args: argparse.Namespace) -> float:
    """The shortest steady part: no learner can submit before thinking `saves + 1` times."""
    return SHORTEST_THINK * args.think_scale * (args.saves + 1)


def plan_for(args: argparse.Namespace, urls: list[str], master_pid: int | None) -> FaultPlan:
    """The plan against the run's servers: a worker of the first instance's master, then Redis
    and PostgreSQL; every instance must answer before a fault counts as recovered."""
    faults: list[Fault] = [
        Fault("worker"),
        part_fault("redis", args.fault_down_for),
        part_fault("postgresql", args.fault_down_for),
    ]
    return FaultPlan(
        base_url=urls[0],
        gunicorn_pid=master_pid,
        faults=faults,
        settle=args.fault_settle,
        also_check=tuple(urls[1:]),
    )


def too_short(args: argparse.Namespace) -> str:
    """Why the run cannot hold the plan in its steady part; empty when it can."""
    longest = plan_for(args, ["http://127.0.0.1"], None).longest()
    needed = delay(args) + longest
    steady = steady_seconds(args)
    if steady >= needed:
        return ""
    saves = int(needed // (SHORTEST_THINK * args.think_scale))
    remedies = [f"--saves to {saves}"]
    # With the default delay (one shortest think) the delay grows with the think scale too.
    per_scale = SHORTEST_THINK * (args.saves if args.fault_delay is None else args.saves + 1)
    if per_scale:
        scale = math.ceil(100 * (longest if args.fault_delay is None else needed) / per_scale)
        remedies.insert(0, f"--think-scale to {scale / 100}")
    return (
        f"--faults needs a steady part of at least {needed:.0f} s (the first fault after "
        f"{delay(args):.0f} s, the plan up to {longest:.0f} s when every part recovers within "
        f"{RECOVERY_GOAL:.0f} s), but with --saves {args.saves} and --think-scale "
        f"{args.think_scale} a learner can submit after {steady:.0f} s (30 s × think-scale × "
        f"(saves + 1)). Raise {' or '.join(remedies)}, or shorten --fault-settle or "
        "--fault-down-for."
    )


def hook(args: argparse.Namespace) -> Callable:
    """A steady hook (bench/exam_run.py) that runs the plan against the run's servers and
    leaves Redis and PostgreSQL running whatever happens."""

    def faults(steady) -> dict:
        servers = steady.servers
        plan = plan_for(args, [server.url for server in servers], servers[0].process.pid)
        record: dict = {
            "hook": "faults",
            "delay_s": delay(args),
            "settle_s": plan.settle,
            "longest_s": plan.longest(),
            "urls": [plan.base_url, *plan.also_check],
            "results": [],
            "error": "",
        }
        results: list[FaultResult] = []
        time.sleep(delay(args))
        began = time.time()
        try:
            plan.run(results)
        except Exception as error:  # reported, and the parts brought back below
            record["error"] = f"{type(error).__name__}: {error}"
        finally:
            try:
                record["restored"] = plan.restore()
            except Exception as error:
                record["error"] += f"; restoring failed: {error}"
        record["seconds"] = round(time.time() - began, 1)
        record["submitting_began_meanwhile"] = steady.ended.is_set()
        record["results"] = [asdict(result) for result in results]
        return record

    return faults


def report(exam: dict) -> dict:
    """The fault hook's record with, per fault, what the learners' requests met."""
    record = next((r for r in exam.get("steady_hooks", []) if r.get("hook") == "faults"), None)
    if record is None:
        return {"ran": False, "faults": [], "unexplained": {}}
    results = sorted(record["results"], key=lambda result: result["began_at"])
    seen: list[list[dict]] = [[] for _ in results]
    unexplained: collections.Counter[str] = collections.Counter()
    for interruption in exam.get("interruptions", []):
        # Each belongs to the last fault begun before it; none begun yet: unexplained.
        owner = max(
            (n for n, result in enumerate(results) if result["began_at"] <= interruption["at"]),
            default=None,
        )
        if owner is None:
            unexplained[interruption["status"]] += 1
        else:
            seen[owner].append(interruption)
    faults = [learners_side(result, met) for result, met in zip(results, seen, strict=True)]
    return {
        "ran": True,
        "error": record["error"],
        "restored": record.get("restored", []),
        "seconds": record.get("seconds"),
        "submitting_began_meanwhile": record.get("submitting_began_meanwhile", False),
        "faults": faults,
        "unexplained": dict(unexplained),
    }


def learners_side(result: dict, met: list[dict]) -> dict:
    """One fault's result and the learners' interrupted requests from its start to the next."""
    returned = result["began_at"] + result["down_seconds"]
    during = collections.Counter(m["status"] for m in met if m["at"] < returned)
    after = collections.Counter(m["status"] for m in met if m["at"] >= returned)
    last = max((m["at"] - returned for m in met if m["at"] >= returned), default=None)
    return {
        **result,
        "ok": FaultResult(**result).ok,
        "learners_during": dict(during),
        "learners_after_return": dict(after),
        "learners_last_after_return": None if last is None else round(last, 2),
        "sent_again": sum(1 for m in met if m["sent_again"]),
        "server_errors": sum(1 for m in met if m["status"].isdigit() and m["status"] != "503"),
        "unclear_503": sum(1 for m in met if m["status"] == "503" and not m["clear"]),
        "traces": sum(1 for m in met if m["trace"]),
    }


def problems(faults: dict) -> list[str]:
    """What the fault run missed of its goals (the database check's: bench/exam_report.py)."""
    if not faults["ran"]:
        return ["the fault plan did not run (the steady part never began)"]
    missed = []
    if faults["error"]:
        missed.append(f"the fault plan stopped: {faults['error']}")
    for fault in faults["faults"]:
        kind = fault["kind"]
        if fault["recovered_after"] is None or fault["recovered_after"] > RECOVERY_GOAL:
            missed.append(f"{kind}: /health/ not recovered within {RECOVERY_GOAL:.0f} s")
        odd = sorted(set(fault["statuses"]) - {"200", "503"})
        if odd:
            missed.append(f"{kind}: /health/ answered {', '.join(odd)}")
        last = fault["learners_last_after_return"]
        if last is not None and last > RECOVERY_GOAL:
            missed.append(f"{kind}: learners' requests still failed {last:.1f} s after its return")
        for name, label in (
            ("server_errors", "5xx other than 503"),
            ("unclear_503", "503 without the outage page or Retry-After"),
            ("traces", "stack trace"),
        ):
            if fault[name]:
                missed.append(f"{kind}: {fault[name]} × {label}")
    if faults["unexplained"]:
        missed.append(f"interrupted before any fault: {faults['unexplained']}")
    return missed


def format_report(faults: dict) -> str:
    """The plan's table (bench/faults.py) and the learners' side of each fault."""
    if not faults["ran"]:
        return "faults: the plan did not run"
    results = [
        FaultResult(**{k: v for k, v in fault.items() if k in FaultResult.__dataclass_fields__})
        for fault in faults["faults"]
    ]
    lines = [
        format_results(results),
        "",
        "| fault | learners' requests during the outage | after the part returned "
        "| last one after the return | sent again |",
        "|---" * 5 + "|",
    ]
    for fault in faults["faults"]:
        during, after = (
            ", ".join(f"{code}×{n}" for code, n in sorted(counts.items())) or "—"
            for counts in (fault["learners_during"], fault["learners_after_return"])
        )
        last = fault["learners_last_after_return"]
        last_text = "—" if last is None else f"{last:.2f} s"
        again = fault["sent_again"]
        lines.append(f"| {fault['kind']} | {during} | {after} | {last_text} | {again} |")
    if faults["submitting_began_meanwhile"]:
        lines.append("(the first learners submitted while the plan ran)")
    if faults["error"]:
        lines.append(f"the plan stopped: {faults['error']}")
    if faults.get("restored"):
        lines.append(f"started again after the plan: {', '.join(faults['restored'])}")
    return "\n".join(lines)
