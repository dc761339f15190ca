"""Exam day, measured as the Moodle 4.5 quiz load test measures a quiz: `make bench-exam`.

On this one machine: gunicorn under production settings (one instance, or two on two ports
sharing PostgreSQL and Redis), and Locust (bench/exam_load.py, FastHttpUser) as the learners.

1. A fresh PostgreSQL database: migrate, import the shipped bank, make a 16-item exam from its
   one-number problems and its questions, N learners with sessions made beforehand (not through
   the sign-in form), and, for the sign-in phase, learners with passwords.
2. Optionally (`--signins`), a sign-in phase: a few clients sign learners in through the sign-in
   form as fast as the app allows; it prints sign-ins per second.
3. The exam, as a class arrives: the exam opens at one instant (the quiz's opens_at); the
   learners open the quiz page spread over the `--arrival-seconds` (300) before it, each at its
   own instant, and at the opening instant all press start, as the waiting room's script does
   (the start form's POST, with the CSRF token read from the quiz page), open the attempt page,
   then after each think time of
   30–90 s (`--think-scale` shortens them) saves the whole sheet, and after `--saves` saves
   submits it through the page's form. A save is what the Save answers button does with the
   page's script: the form's fields (CSRF and submission token, parsed from the page as a
   browser sends them) posted as FormData asking for JSON, acknowledged when the JSON counts
   every answer saved, and the next save goes under the token that JSON carries. With
   `--no-script` a save is what the button does without the script: the form posted, then the
   attempt page it redirects to, which says how many answers were saved. With `--instances 2`
   learners are split between the instances and `--switch-share` of them move to the other
   instance halfway through.
4. It prints p50/p95/p99 per kind of request, the time from the opening until the last learner
   has the attempt page, the errors, and checks in the database that every acknowledged save
   and submit is stored, once.
5. Whole-box CPU from the processes' own counters, in the same run (bench/exam_sampler.py):
   gunicorn, PostgreSQL (for the bench database), Redis and the load generator, per phase: the
   arrival (quiz pages), the start (from the opening until the last learner has the attempt
   page; per learner), the saves (until the first submit; per save) and the submits (to the end),
   each with the load average at its start and end. Each goal is printed met or not; a run that
   began with a 1-minute load average above 1.5 is not quiet, and meets no goal.

While the steady part runs (every learner on the attempt page, nobody submitting yet), the
functions in `steady_hooks` run in threads with the servers at hand. `--faults` adds one that
kills a gunicorn worker, restarts Redis and restarts PostgreSQL meanwhile, and reports how each
recovered (bench/exam_faults.py). Writes bench-results/exam-day.json.

This module is the command: its options, and the report written. The rest, in the order a run
goes: bench/exam_database.py (the exam and learners it makes, the check of what is stored),
bench/exam_run.py (servers, load processes, phases, steady hooks), bench/exam_report.py (the
goals, the verdict, the printed tables).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import exam_faults  # noqa: E402
from bench.exam_report import print_report  # noqa: E402
from bench.exam_run import SteadyHook, run  # noqa: E402
from bench.serving import postgres_available  # noqa: E402


def parser() -> argparse.ArgumentParser:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--learners", type=int, default=3000)
    options.add_argument(
        "--arrival-seconds",
        type=float,
        default=300.0,
        help="the learners open the quiz page spread over these seconds before the exam opens "
        "(0: all at the opening instant)",
    )
    options.add_argument("--saves", type=int, default=4, help="saves before the submit")
    options.add_argument(
        "--no-script",
        action="store_true",
        help="save as a browser without the page's script: the form, then its redirect page",
    )
    options.add_argument(
        "--think-scale", type=float, default=1.0, help="multiplies the 30–90 s think times"
    )
    options.add_argument("--instances", type=int, choices=[1, 2], default=1)
    options.add_argument(
        "--switch-share",
        type=float,
        default=0.2,
        help="with two instances, the share of learners that move to the other one mid-exam",
    )
    options.add_argument("--workers", type=int, default=4, help="gunicorn workers per instance")
    options.add_argument("--load-processes", type=int, default=1)
    options.add_argument("--request-timeout", type=float, default=60.0)
    options.add_argument("--tail-seconds", type=float, default=120.0)
    options.add_argument("--signins", type=int, default=0, help="learners in the sign-in phase")
    options.add_argument("--signin-clients", type=int, default=16)
    options.add_argument("--signin-seconds", type=float, default=300.0)
    options.add_argument(
        "--signin-hasher",
        default="default",
        help="hasher of the sign-in learners' stored passwords, e.g. pbkdf2_sha256 to measure "
        "sign-ins that upgrade an old hash",
    )
    exam_faults.add_options(options)
    return options


def main(steady_hooks: Sequence[SteadyHook] = ()) -> int:
    args = parser().parse_args()
    if args.arrival_seconds < 0:
        raise SystemExit("--arrival-seconds cannot be negative")
    if not postgres_available():
        raise SystemExit("the exam-day bench needs PostgreSQL on 127.0.0.1:5432")
    hooks = [*steady_hooks, *fault_hooks(args)]
    load_before = os.getloadavg()
    report = run(args, hooks)
    report["load_average_at_start"] = list(load_before)
    if args.faults:
        report["faults"] = exam_faults.report(report["exam"])
    print_report(report)
    report["machine"] = {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average_before_after": [load_before, os.getloadavg()],
    }
    report["options"] = dict(vars(args))
    out_dir = ROOT / "bench-results"
    out_dir.mkdir(exist_ok=True)
    (out_dir / "exam-day.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out_dir / 'exam-day.json'}")
    stored = report["stored"]
    # A missed speed goal is reported, not fatal; acknowledged work not stored is, and so is a
    # missed fault goal.
    lost = stored["missing"] or stored["duplicated"] or stored["submits_not_stored"]
    faulty = "faults" in report and exam_faults.problems(report["faults"])
    return 1 if lost or stored.get("partial_sheets") or faulty else 0


def fault_hooks(args: argparse.Namespace) -> list[SteadyHook]:
    """With --faults, the fault plan's hook, once the run is known to be long enough for it."""
    if not args.faults:
        return []
    refusal = exam_faults.too_short(args)
    if refusal:
        raise SystemExit(refusal)
    return [exam_faults.hook(args)]


if __name__ == "__main__":
    sys.exit(main())
