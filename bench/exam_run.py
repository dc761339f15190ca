"""The exam-day bench's run: the servers, the load processes and the phases.

`run` makes the bench database (bench/exam_database.py's `prepare`, in a Django child), starts
gunicorn under production settings (`--instances`: one, or two on two ports sharing PostgreSQL
and Redis; bench/serving.py), runs the sign-in phase (with `--signins`) and the exam phase (it
sets the exam's opening instant, `open`, and hands each learner its arrival instant), then asks
the database whether every acknowledged save and submit is stored (`verify`). While the exam
runs, bench/exam_sampler.py reads the processes' CPU counters, marking the phase boundaries:
the first arrival, the opening, the last learner on the attempt page, the first submit, done.
Each phase is one or more Locust processes (bench/exam_load.py, `--load-processes`), each handed
a plan (its share of the learners) as JSON on stdin; they say on stdout when every learner has the
attempt page ("steady") and when the first submits ("submitting"), and last their result. While
the exam's steady part runs, the steady hooks run in threads with the servers at hand (`Steady`).
It returns the report: per phase the requests' percentiles (bench/exam_pages.py's `summary`),
whole-box CPU per exam phase (bench/exam_cpu.py), errors by kind and status, and what the
database check found.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.exam_cpu import phase_counts, phase_cpu
from bench.exam_database import SIGNIN_PASSWORD, SIGNIN_PREFIX
from bench.exam_pages import arrivals, summary
from bench.exam_sampler import Sampler
from bench.serving import (
    Server,
    backend_env,
    free_port,
    fresh_postgres_database,
    json_child,
    serve,
    stop,
)

ROOT = Path(__file__).resolve().parent.parent
# Its own name per run when several benchmarks share one server (BENCH_PG_DATABASE).
PG_BENCH_DB = os.environ.get("BENCH_PG_DATABASE", "softgrade_exam_bench")
IDLE_SECONDS = 4.0  # measured before the first arrival: the processes' CPU at rest


@dataclass
class Steady:
    """What a steady-phase hook gets: the servers (to kill a worker or restart one), the
    environment they run with, and `ended`, set when the first learner submits or the run ends.
    A hook returns a JSON-able record of what it did; it lands in the report."""

    servers: list[Server]
    env: dict[str, str]
    ended: threading.Event = field(default_factory=threading.Event)


SteadyHook = Callable[[Steady], dict]


def in_django(stage: str, env: dict[str, str], arguments: dict, timeout: float) -> dict:
    """bench/exam_database.py's `stage`, in its own process with the run's environment."""
    argv = [str(ROOT / "bench" / "exam_database.py"), stage]
    return json_child(argv, env=env, arguments=arguments, timeout=timeout)


def load(
    plans: list[dict],
    on_event: Callable[[str, dict], None],
    timeout: float,
    on_spawn: Callable[[int], None] = lambda pid: None,
) -> list[dict]:
    """Run one load process per plan at once; `on_spawn(pid)` hears of each process as it starts,
    `on_event(name, event)` hears every "done" (with the process's CPU), "steady" and "done"
    again (name "all done") once every process has said it, and "submitting" once the first has.
    Returns each process's result."""
    processes = [
        subprocess.Popen(
            [sys.executable, str(ROOT / "bench" / "exam_load.py")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for _ in plans
    ]
    for process in processes:
        on_spawn(process.pid)
    heard: dict[str, int] = {}
    results: list[dict] = [{} for _ in plans]
    lock = threading.Lock()

    def listen(index: int, process: subprocess.Popen) -> None:
        for line in process.stdout:
            event = json.loads(line)
            if event["event"] == "result":
                results[index] = event
                continue
            with lock:
                heard[event["event"]] = heard.get(event["event"], 0) + 1
                everyone = heard[event["event"]] == len(plans)
            if event["event"] == "done":
                on_event("done", event)
                if everyone:
                    on_event("all done", event)
            elif everyone or (event["event"] == "submitting" and heard[event["event"]] == 1):
                on_event(event["event"], event)

    listeners = []
    for index, (plan, process) in enumerate(zip(plans, processes, strict=True)):
        process.stdin.write(json.dumps(plan))
        process.stdin.close()
        listener = threading.Thread(target=listen, args=(index, process), daemon=True)
        listener.start()
        listeners.append(listener)
    for process in processes:
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
    for listener in listeners:
        listener.join(timeout=10)
    if not all(results):
        raise SystemExit("a load process ended without a result")
    return results


def merged(results: list[dict]) -> dict:
    latencies: dict[str, list[float]] = {}
    for result in results:
        for kind, samples in result["latencies"].items():
            latencies.setdefault(kind, []).extend(samples)
    return {
        "latencies": latencies,
        "times": {
            kind: [at for result in results for at in result.get("times", {}).get(kind, [])]
            for kind in latencies
        },
        "errors": [error for result in results for error in result["errors"]],
        "acks": [ack for result in results for ack in result["acks"]],
        "reached": {k: v for result in results for k, v in result["reached"].items()},
        "submitted": [name for result in results for name in result["submitted"]],
        "interruptions": [i for result in results for i in result.get("interruptions", [])],
        "seconds": max(r["ended"] for r in results) - min(r["began"] for r in results),
    }


def split(items: list, parts: int) -> list[list]:
    return [items[n::parts] for n in range(parts)]


def run(args: argparse.Namespace, steady_hooks: Sequence[SteadyHook] = ()) -> dict:
    env = backend_env(database=fresh_postgres_database(PG_BENCH_DB))
    think_total = 90 * args.think_scale * (args.saves + 1)
    minutes = int(think_total // 60) + 30  # the attempts' time limit never ends the bench
    print(f"preparing {args.learners} learners, {args.signins} sign-in learners …", flush=True)
    setup = in_django(
        "prepare",
        env,
        {
            "learners": args.learners,
            "signins": args.signins,
            "signin_hasher": args.signin_hasher,
            "minutes": minutes,
        },
        timeout=1800,
    )
    servers = [
        serve(env, free_port(), workers=args.workers, probe="/accounts/login/")
        for _ in range(args.instances)
    ]
    urls = [server.url for server in servers]
    report: dict = {"setup": {k: v for k, v in setup.items() if k != "learners"}}
    try:
        if args.signins:
            report["signin"] = signin_phase(args, urls)
        report["exam"] = exam_phase(args, setup, servers, env, steady_hooks)
    finally:
        for server in servers:
            stop(server)
    # Kept before the database check, so a check that fails leaves the load's figures behind.
    out_dir = ROOT / "bench-results"
    out_dir.mkdir(exist_ok=True)
    (out_dir / "exam-day-load.json").write_text(json.dumps(report, indent=2) + "\n")
    names = [learner["name"] for learner in setup["learners"]]
    report["stored"] = in_django(
        "verify", env, {"acks": report["exam"].pop("acks"), "learners": names}, timeout=600
    )
    return report


def signin_phase(args: argparse.Namespace, urls: list[str]) -> dict:
    learners = [
        {"index": n, "name": f"{SIGNIN_PREFIX}{n}", "password": SIGNIN_PASSWORD, "server": 0}
        for n in range(args.signins)
    ]
    print(f"sign-in phase: {args.signins} learners, {args.signin_clients} clients", flush=True)
    plans = [
        {
            "phase": "signin",
            "servers": urls,
            "learners": [{**spec, "server": n % len(urls)} for spec in part],
            "clients": max(1, args.signin_clients // args.load_processes),
            "request_timeout": args.request_timeout,
            "deadline": time.time() + args.signin_seconds,
        }
        for n, part in enumerate(split(learners, args.load_processes))
    ]
    result = merged(load(plans, lambda name, event: None, timeout=args.signin_seconds + 60))
    signed = sum(1 for ack in result["acks"] if ack["kind"] == "sign-in")
    return {
        "learners": args.signins,
        "signed_in": signed,
        "seconds": round(result["seconds"], 2),
        "per_second": round(signed / result["seconds"], 1) if result["seconds"] else 0.0,
        "requests": {kind: summary(s) for kind, s in sorted(result["latencies"].items())},
        "errors": errors_by_kind(result["errors"]),
    }


def exam_phase(args, setup: dict, servers: list[Server], env: dict, hooks) -> dict:
    learners = []
    for index, learner in enumerate(setup["learners"]):
        server = index % len(servers)
        # Every 1/share-th learner, so the movers are spread over both instances.
        switches = len(servers) > 1 and int((index + 1) * args.switch_share) > int(
            index * args.switch_share
        )
        learners.append(
            {
                **learner,
                "index": index,
                "server": server,
                "switch_after": (args.saves + 1) // 2 if switches else None,
            }
        )
    # The exam opens after every user has spawned, a few idle seconds (measured as such), and
    # the class's arrival: learner by learner over `--arrival-seconds` before the opening.
    opening = time.time() + 8 + IDLE_SECONDS + len(learners) / 500 + args.arrival_seconds
    in_django("open", env, {"at": opening}, timeout=120)
    for learner, arrive_at in zip(
        learners,
        arrivals(len(learners), seconds=args.arrival_seconds, opening=opening),
        strict=True,
    ):
        learner["arrive_at"] = arrive_at
    think = (30.0, 90.0)
    deadline = opening + think[1] * args.think_scale * (args.saves + 1) + args.tail_seconds
    plans = [
        {
            "phase": "exam",
            "servers": [server.url for server in servers],
            "quiz": setup["quiz"],
            "learners": part,
            "saves": args.saves,
            "think_seconds": think,
            "think_scale": args.think_scale,
            "opens_at": opening,
            "deadline": deadline,
            "request_timeout": args.request_timeout,
            "script": not args.no_script,
        }
        for part in split(learners, args.load_processes)
    ]
    steady = Steady(servers=servers, env=env)
    threads: list[threading.Thread] = []
    records: list[dict] = []
    phases: dict[str, float] = {}
    sampler = Sampler([server.process.pid for server in servers], PG_BENCH_DB)
    sampler.start()
    sampler.mark_at(opening - args.arrival_seconds - IDLE_SECONDS, "idle from")
    if args.arrival_seconds:
        sampler.mark_at(opening - args.arrival_seconds, "first arrival")
        sampler.mark_at(opening, "opening")
    else:  # no arrival phase: everyone opens the quiz page at the opening
        sampler.mark_at(opening, "first arrival", "opening")

    def on_event(name: str, event: dict) -> None:
        if name == "done":
            sampler.own_count(event["pid"], event["cpu"])
            return
        phases[name] = round(time.time() - opening, 2)
        if name == "steady":
            sampler.mark("last on attempt page")
            for hook in hooks:
                thread = threading.Thread(target=lambda h=hook: records.append(h(steady)))
                thread.start()
                threads.append(thread)
        elif name == "submitting":
            sampler.mark("first submit")
            steady.ended.set()
        elif name == "all done":
            sampler.mark("done")

    print(
        f"exam: {len(learners)} learners on {len(servers)} instance(s) × {args.workers} workers, "
        f"arriving over {args.arrival_seconds} s, {args.saves} saves, "
        f"think 30–90 s × {args.think_scale}",
        flush=True,
    )
    try:
        result = merged(
            load(plans, on_event, timeout=deadline - time.time() + 60, on_spawn=sampler.add_load)
        )
    finally:
        sampler.stop()
    steady.ended.set()
    for thread in threads:
        thread.join()
    reached = sorted(result["reached"].values())
    counts = phase_counts(result["times"], sampler.marks, len(learners))
    return {
        "learners": len(learners),
        "instances": len(servers),
        "switching": sum(1 for learner in learners if learner["switch_after"] is not None),
        "arrival_s": args.arrival_seconds,
        "phases_s": phases,
        "reached": len(reached),
        "last_attempt_page_s": round(reached[-1], 2) if reached else None,
        "submitted": len(result["submitted"]),
        "seconds": round(result["seconds"], 1),
        "requests": {kind: summary(s) for kind, s in sorted(result["latencies"].items())},
        "cpu": phase_cpu(sampler.marks, counts),
        "errors": errors_by_kind(result["errors"]),
        "error_examples": result["errors"][:5],
        "interruptions": result["interruptions"],
        "steady_hooks": records,
        "acks": result["acks"],
    }


def errors_by_kind(errors: list[dict]) -> dict[str, int]:
    counted: dict[str, int] = {}
    for error in errors:
        key = f"{error['kind']} {error['status']}"
        counted[key] = counted.get(key, 0) + 1
    return counted
