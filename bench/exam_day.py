"""Exam day, measured as the Moodle 4.5 quiz load test measures a quiz: `make bench-exam`.

On this one machine: gunicorn under production settings (one instance, or two on two ports
sharing PostgreSQL and Redis), and Locust (bench/exam_load.py, FastHttpUser) as the learners.

1. A fresh PostgreSQL database: migrate, import the shipped bank, make a 16-item exam from its
   one-number problems and its questions, N learners with sessions made beforehand (not through
   the sign-in form), and, for the sign-in phase, learners with passwords.
2. Optionally (`--signins`), a sign-in phase: a few clients sign learners in through the sign-in
   form as fast as the app allows; it prints sign-ins per second.
3. The exam: every learner waits for one synchronized instant, opens the quiz page, starts an
   attempt through its form (CSRF), opens the attempt page, then after each think time of
   30–90 s (`--think-scale` shortens them) saves the whole sheet through the page's own form
   (CSRF and submission token, parsed from the page as a browser sends them), and submits after
   `--saves` saves. With `--instances 2` learners are split between the instances and
   `--switch-share` of them move to the other instance halfway through.
4. It prints p50/p95/p99 per kind of request, the time from the start until the last learner
   has the attempt page, the errors, and checks in the database that every acknowledged save
   and submit is stored, once.

While the steady part runs (every learner on the attempt page, nobody submitting yet), the
functions in `steady_hooks` run in threads with the servers at hand. `--faults` adds one that
kills a gunicorn worker, restarts Redis and restarts PostgreSQL meanwhile, and reports how each
recovered (bench/exam_faults.py). Writes bench-results/exam-day.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import exam_faults  # noqa: E402
from bench.exam_pages import summary  # noqa: E402
from bench.serving import (  # noqa: E402
    Server,
    backend_env,
    free_port,
    fresh_postgres_database,
    postgres_available,
    serve,
    stop,
)

# Its own name per run when several benchmarks share one server (BENCH_PG_DATABASE).
PG_BENCH_DB = os.environ.get("BENCH_PG_DATABASE", "softgrade_exam_bench")
EXAM_SLUG = "bench-exam-day"
ITEMS = 16
LEARNER_PREFIX = "bench-learner-"
SIGNIN_PREFIX = "bench-signin-"
SIGNIN_PASSWORD = "exam-day-bench-password-1"
GOALS = {  # learners: (seconds to the last attempt page, saves p99 in ms)
    3000: (20.0, 1000.0),
    1000: (7.0, 300.0),
}


# --- inside the Django child (production settings, the bench database) --------------------------


def prepare(**exam) -> dict:
    """Migrate, collect static files (production pages link them through collectstatic's
    manifest), import the shipped bank, then make the exam and its learners."""
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    call_command("import_bank", verbosity=0)
    return exam_make(**exam)


def exam_make(*, learners: int, signins: int, signin_hasher: str, minutes: int) -> dict:
    """The bench exam (16 items of the shipped lesson), `learners` learners with sessions made
    beforehand, and `signins` learners with a password for the sign-in phase."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.test import Client

    from courses.models import Problem, Question, Quiz, QuizItem
    from grading import engine

    lesson = Quiz.objects.get(slug="attention-exam").lesson
    # One-number problems only, so each save's answers are valid numbers the bench can write.
    problems = [
        problem
        for problem in Problem.objects.filter(lesson=lesson).order_by("slug")
        if engine.make_variant(engine.get_family(problem.family), problem.params, 1).answer.size
        == 1
    ][: ITEMS // 2]
    questions = list(
        Question.objects.filter(lesson=lesson).order_by("slug")[: ITEMS - len(problems)]
    )
    quiz = Quiz.objects.create(
        lesson=lesson,
        slug=EXAM_SLUG,
        title="Exam day",
        mode=Quiz.Mode.EXAM,
        time_limit_minutes=minutes,
        attempts_allowed=1,
        tries_per_item=1,
        show_feedback=Quiz.Feedback.AFTER_SUBMISSION,
    )
    QuizItem.objects.bulk_create(
        [QuizItem(quiz=quiz, problem=p, order=n, points=1) for n, p in enumerate(problems)]
        + [
            QuizItem(quiz=quiz, question=q, order=len(problems) + n, points=1)
            for n, q in enumerate(questions)
        ]
    )
    User = get_user_model()
    User.objects.bulk_create(
        [User(username=f"{LEARNER_PREFIX}{n}", password="!") for n in range(learners)]
    )
    # One hash for every sign-in learner (each hash costs what a sign-in costs); the hasher is
    # the settings' unless `signin_hasher` names an older one, to measure upgrades at sign-in.
    password = make_password(SIGNIN_PASSWORD, hasher=signin_hasher)
    User.objects.bulk_create(
        [User(username=f"{SIGNIN_PREFIX}{n}", password=password) for n in range(signins)]
    )
    sessions = []
    for user in User.objects.filter(username__startswith=LEARNER_PREFIX).order_by("pk"):
        client = Client()
        client.force_login(user)
        sessions.append({"name": user.username, "session": client.cookies["sessionid"].value})
    return {
        "quiz": quiz.slug,
        "items": len(problems) + len(questions),
        "learners": sessions,
        "hash": password.split("$", 1)[0],
    }


def verify(*, acks: list[dict], learners: list[str]) -> dict:
    """Every acknowledged save and submit is in the database, once, as sent.

    A save's answers are stored under its submission token (`<token>:sheet:<item>`, one
    response per item). Counts: acknowledged answers found as sent (`stored`), missing or
    different (`missing`), responses stored under a key no acknowledgement names (`unacknowledged`,
    from requests that failed or timed out after the write: not lost, but not confirmed either),
    keys stored more than once (`duplicated`), acknowledged submissions whose attempt is not
    submitted, and learners without a submitted attempt.
    """
    from django.db.models import Count

    from grading.models import Attempt, Response

    counts = (
        Response.objects.filter(user__username__in=learners)
        .values("idempotency_key")
        .annotate(n=Count("id"))
    )
    duplicated = sum(1 for row in counts if row["n"] > 1 and row["idempotency_key"])
    # Choices read through their own table, not prefetched: a prefetch would name every one of
    # the run's responses in one query, past PostgreSQL's 65,535 parameters at 1,000 learners.
    chosen: dict[int, list[int]] = {}
    for response_id, choice_id in Response.choices.through.objects.filter(
        response__user__username__in=learners
    ).values_list("response_id", "choice_id"):
        chosen.setdefault(response_id, []).append(choice_id)
    responses = {
        key: (text, sorted(chosen.get(pk, [])), status)
        for pk, key, text, status in Response.objects.filter(
            user__username__in=learners
        ).values_list("pk", "idempotency_key", "text", "status")
    }
    expected = {}
    for ack in acks:
        for item, answer in ack["answers"].items():
            key = f"{ack['token']}:sheet:{item}"
            if isinstance(answer, list):
                expected[key] = ("", sorted(answer))
            else:
                expected[key] = (answer, [])
    missing = [key for key, sent in expected.items() if responses.get(key, (None,))[:2] != sent]
    partial = partial_sheets(responses)
    invalid = [key for key in expected if responses.get(key, ("", [], ""))[2] == "invalid"]
    submitted = set(
        Attempt.objects.filter(
            user__username__in=learners, quiz__slug=EXAM_SLUG, status=Attempt.Status.SUBMITTED
        ).values_list("user__username", flat=True)
    )
    acked_submits = {ack["learner"] for ack in acks if ack["kind"] == "submit"}
    return {
        "acknowledged": len(expected),
        "stored": len(expected) - len(missing),
        "missing": len(missing),
        "invalid": len(invalid),
        "unacknowledged": len(set(responses) - set(expected)),
        "duplicated": duplicated,
        "submits_acknowledged": len(acked_submits),
        "submits_not_stored": len(acked_submits - submitted),
        "learners_submitted": len(submitted),
        "learners": len(learners),
        "partial_sheets": partial,
        "examples_missing": missing[:5],
    }


def partial_sheets(responses: dict) -> int:
    """Sheets stored in part: submission tokens with fewer responses than the exam has items
    (every sheet the bench sends changes every answer, so a whole sheet stores one per item)."""
    from grading.models import QuizItem

    items = QuizItem.objects.filter(quiz__slug=EXAM_SLUG).count()
    sheets: dict[str, int] = {}
    for key in responses:
        token, _, item = key.rpartition(":sheet:")
        if token and item:
            sheets[token] = sheets.get(token, 0) + 1
    return sum(1 for stored in sheets.values() if stored != items)


def django_stage(stage: str) -> int:
    import django

    django.setup()
    arguments = json.load(sys.stdin)
    result = prepare(**arguments) if stage == "prepare" else verify(**arguments)
    print(json.dumps(result))
    return 0


# --- the driver --------------------------------------------------------------------------------


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
    child = subprocess.run(
        [sys.executable, __file__, "--stage", stage],
        input=json.dumps(arguments),
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if child.returncode != 0:
        raise SystemExit(f"{stage} failed:\n{child.stderr[-4000:]}")
    return json.loads(child.stdout.strip().splitlines()[-1])


def load(plans: list[dict], on_event: Callable[[str], None], timeout: float) -> list[dict]:
    """Run one load process per plan at once; `on_event(name)` hears "steady" and "submitting"
    once every process has said it. Returns each process's result."""
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
            if everyone or (event["event"] == "submitting" and heard[event["event"]] == 1):
                on_event(event["event"])

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
    result = merged(load(plans, lambda name: None, timeout=args.signin_seconds + 60))
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
    # Every load process is told the same instant, far enough ahead for all users to spawn.
    start_at = time.time() + 5 + len(learners) / 500
    think = (30.0, 90.0)
    deadline = start_at + think[1] * args.think_scale * (args.saves + 1) + args.tail_seconds
    plans = [
        {
            "phase": "exam",
            "servers": [server.url for server in servers],
            "quiz": setup["quiz"],
            "learners": part,
            "saves": args.saves,
            "think_seconds": think,
            "think_scale": args.think_scale,
            "start_at": start_at,
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

    def on_event(name: str) -> None:
        phases[name] = round(time.time() - start_at, 2)
        if name == "steady":
            for hook in hooks:
                thread = threading.Thread(target=lambda h=hook: records.append(h(steady)))
                thread.start()
                threads.append(thread)
        elif name == "submitting":
            steady.ended.set()

    print(
        f"exam: {len(learners)} learners on {len(servers)} instance(s) × {args.workers} workers, "
        f"{args.saves} saves, think 30–90 s × {args.think_scale}",
        flush=True,
    )
    result = merged(load(plans, on_event, timeout=deadline - time.time() + 60))
    steady.ended.set()
    for thread in threads:
        thread.join()
    reached = sorted(result["reached"].values())
    return {
        "learners": len(learners),
        "instances": len(servers),
        "switching": sum(1 for learner in learners if learner["switch_after"] is not None),
        "phases_s": phases,
        "reached": len(reached),
        "last_attempt_page_s": round(reached[-1], 2) if reached else None,
        "submitted": len(result["submitted"]),
        "seconds": round(result["seconds"], 1),
        "requests": {kind: summary(s) for kind, s in sorted(result["latencies"].items())},
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


def verdict(report: dict) -> list[str]:
    """What the run missed of the goals (empty: every goal met)."""
    exam, stored = report["exam"], report["stored"]
    problems = []
    if exam["errors"]:
        problems.append(f"errors {exam['errors']}")
    if stored["missing"] or stored["duplicated"] or stored["submits_not_stored"]:
        problems.append("acknowledged work not stored once")
    if stored.get("partial_sheets"):
        problems.append(f"{stored['partial_sheets']} sheets stored in part")
    if "faults" in report:
        problems += exam_faults.problems(report["faults"])
    else:
        resent = sum(1 for i in exam.get("interruptions", []) if i["sent_again"])
        if resent:
            problems.append(f"{resent} requests answered 503 or dropped, sent again")
    if stored["learners_submitted"] != stored["learners"]:
        problems.append(
            f"{stored['learners'] - stored['learners_submitted']} learners not submitted"
        )
    goal = GOALS.get(exam["learners"])
    if goal:
        seconds, p99 = goal
        if exam["last_attempt_page_s"] is None or exam["last_attempt_page_s"] > seconds:
            problems.append(f"last attempt page {exam['last_attempt_page_s']} s > {seconds} s")
        saves_p99 = exam["requests"].get("save", {}).get("p99_ms", 0)
        if saves_p99 >= p99:
            problems.append(f"saves p99 {saves_p99} ms ≥ {p99} ms")
    return problems


def print_report(report: dict) -> None:
    if "signin" in report:
        signin = report["signin"]
        print(
            f"\nsign-in: {signin['signed_in']}/{signin['learners']} in {signin['seconds']} s = "
            f"{signin['per_second']} sign-ins/s; errors {signin['errors'] or 'none'}"
        )
        print_requests(signin["requests"])
    exam, stored = report["exam"], report["stored"]
    print(
        f"\nexam: {exam['learners']} learners, {exam['instances']} instance(s) "
        f"({exam['switching']} switching), {exam['seconds']} s; phases {exam['phases_s']}"
    )
    print(
        f"last learner on the attempt page {exam['last_attempt_page_s']} s after the start; "
        f"{exam['reached']} reached it, {exam['submitted']} submitted; "
        f"errors {exam['errors'] or 'none'}"
    )
    print_requests(exam["requests"])
    if "faults" in report:
        print("\n" + exam_faults.format_report(report["faults"]) + "\n")
    print(
        f"stored: {stored['stored']}/{stored['acknowledged']} acknowledged answers, "
        f"{stored['missing']} missing, {stored['duplicated']} duplicated, "
        f"{stored['unacknowledged']} unacknowledged; submits {stored['submits_acknowledged']} "
        f"acknowledged, {stored['submits_not_stored']} not stored; "
        f"{stored['learners_submitted']}/{stored['learners']} learners submitted; "
        f"{stored.get('partial_sheets', 0)} sheets stored in part"
    )
    problems = verdict(report)
    checked = "goals" if exam["learners"] in GOALS else "goals (no speed goal for this N)"
    print(f"{checked}: " + ("met" if not problems else "MISSED: " + "; ".join(problems)))


def print_requests(requests: dict) -> None:
    print(f"  {'request':<16}{'count':>7}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}")
    for kind, stats in requests.items():
        if stats["count"]:
            print(
                f"  {kind:<16}{stats['count']:>7}{stats['p50_ms']:>9}{stats['p95_ms']:>9}"
                f"{stats['p99_ms']:>9}{stats['max_ms']:>9}"
            )


def parser() -> argparse.ArgumentParser:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--stage", choices=["prepare", "verify"], help=argparse.SUPPRESS)
    options.add_argument("--learners", type=int, default=3000)
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
    if args.stage:
        return django_stage(args.stage)
    if not postgres_available():
        raise SystemExit("the exam-day bench needs PostgreSQL on 127.0.0.1:5432")
    hooks = [*steady_hooks, *fault_hooks(args)]
    load_before = os.getloadavg()
    report = run(args, hooks)
    if args.faults:
        report["faults"] = exam_faults.report(report["exam"])
    print_report(report)
    report["machine"] = {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average_before_after": [load_before, os.getloadavg()],
    }
    report["options"] = {k: v for k, v in vars(args).items() if k != "stage"}
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
