"""Benchmark of answer submissions through the REST API, served by gunicorn on 127.0.0.1.

Run as `.venv/bin/python bench/api_bench.py` (`make bench` does). For SQLite and for PostgreSQL
(skipped, saying so, when none answers on 127.0.0.1:5432) it:

1. makes a fresh database, migrates it, imports the shipped lesson and sets up an integration,
   its key, 16 clients' learners and their attempts at a quiz of the lesson's problems;
2. counts the SQL statements of one answer in process (CaptureQueriesContext, BEGIN and COMMIT
   included), through the same middleware and views;
3. serves the app with gunicorn under production settings on a free port, and drives it from a
   second process (bench/api_load.py): 16 concurrent clients warm every worker up with a few
   trivial requests and 8 answers each (stored and counted like the rest, not timed), then, in
   3 rounds, are timed on a trivial endpoint of the same app (GET /api/v1/, no database) and
   then submitting answers, each phase bounded in requests and seconds. The ratio is the median
   of the rounds' ratios (alternating the two kinds of request keeps a shared machine's drift
   from favouring either), and the p99 checked against the goal is the median round's, so a
   moment when the shared machine stalls, which lands in one round, moves neither; rates, p50
   and a pooled p99 cover every round;
4. stops the server, and counts that every acknowledged answer is in the database.

Prints a table, then per backend the answer path's ratio against the goal (≥ 0.12 of the trivial
endpoint) as met or not met with the load average before and after, and writes
bench-results/api.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.serving import (  # noqa: E402
    WORKERS,
    backend_env,
    free_port,
    fresh_postgres_database,
    json_child,
    postgres_available,
    serve,
    stop,
)

CLIENTS = 16
LEARNERS_PER_CLIENT = 8  # answers rotate over them, so an attempt holds a realistic ~20 answers
ROUNDS = 3  # trivial and answer phases alternate, so a machine's drift hits both alike
WARM_UP_ANSWERS = 8  # per client, before the measured phases: each worker's first answer is cold
ANSWERS_PER_ROUND = 64  # per client
ANSWERS_PER_CLIENT = WARM_UP_ANSWERS + ROUNDS * ANSWERS_PER_ROUND
TRIVIAL_PER_ROUND = 300  # per client
PHASE_SECONDS = 30.0
# Issue 22: the answer path keeps at least this share of the trivial endpoint's rate (0.25, issue
# 12's floor, is withdrawn as out of reach with the ORM's public API).
GOAL_RATIO = 0.12
GOAL_P99_MS = 50.0
GOAL_STATEMENTS = 8
# Its own name per run when several benchmarks share one server (BENCH_PG_DATABASE).
PG_BENCH_DB = os.environ.get("BENCH_PG_DATABASE", "softgrade_bench")


def backend_env_for(backend: str, workdir: Path) -> dict[str, str]:
    if backend == "sqlite":
        # One writer at a time: IMMEDIATE transactions queue for the lock (with a timeout)
        # instead of failing when two workers write at once; WAL lets readers carry on.
        database = (
            f"sqlite:///{workdir / 'bench.sqlite3'}?transaction_mode=IMMEDIATE&timeout=20"
            "&init_command=PRAGMA%20journal_mode%3DWAL%3B%20PRAGMA%20synchronous%3DNORMAL"
        )
    else:
        database = f"postgres://postgres@127.0.0.1:5432/{PG_BENCH_DB}"
    # The bench is one key sending far more than an LMS would; the limit is not under test.
    return backend_env(database=database, API_KEY_RATE="1000000/minute")


# --- inside one backend's process (Django set up with that backend's settings) ----------------


def prepare() -> dict:
    """Migrate, import the lesson, and make the key, learners, attempts and planned answers."""
    from django.core.management import call_command

    from courses.models import Problem, Quiz, QuizItem
    from grading import engine
    from grading.models import Variant
    from grading.services.attempts import attempt_start
    from integrations import services as integrations
    from integrations.models import Integration

    call_command("migrate", verbosity=0)
    call_command("import_bank", verbosity=0)
    practice = Quiz.objects.get(slug="attention-practice")
    # Immediate feedback with tries to spare, so every planned answer is graded and recorded.
    quiz = Quiz.objects.create(
        lesson=practice.lesson,
        slug="bench-answers",
        title="Benchmark",
        tries_per_item=1_000_000,
        published=True,
    )
    for order, problem in enumerate(Problem.objects.filter(lesson=practice.lesson)):
        QuizItem.objects.create(quiz=quiz, problem=problem, order=order, points=1)
    integration = Integration.objects.create(name="Benchmark LMS")
    _, token = integrations.api_key_create(
        integration=integration, name="bench", courses=[practice.lesson.course]
    )
    clients = []
    for client in range(CLIENTS + 1):  # the extra one is for the in-process statement count
        targets = []
        for n in range(LEARNERS_PER_CLIENT):
            learner, _ = integrations.learner_provision(
                integration=integration, external_id=f"bench-{client}-{n}"
            )
            attempt = attempt_start(user=learner.user, quiz=quiz)
            for variant in Variant.objects.filter(attempt=attempt):
                solution = engine.get_family(variant.family).solve(
                    variant.givens, variant.grading_key
                )
                # Wrong on purpose (a correct answer would end the item's tries): a named
                # mistake when the variant offers one, else the answer off by a third.
                values = [*solution.mistakes.values(), solution.answer * 1.37]
                targets.append((attempt.pk, variant.quiz_item_id, values))
        plan, last_text = [], {}
        for index in range(ANSWERS_PER_CLIENT):
            attempt_id, item_id, values = targets[index % len(targets)]
            text = engine.format_answer(values[index % len(values)])
            if last_text.get((attempt_id, item_id)) == text:
                # The same answer again within seconds is a double submission, which the
                # service rightly answers with the first row: every planned answer differs
                # from the previous one to its item, so each one is a new try.
                text = engine.format_answer(values[-1] * (1 + (index + 1) / 997))
            last_text[(attempt_id, item_id)] = text
            plan.append(
                {
                    "method": "POST",
                    "path": f"/api/v1/attempts/{attempt_id}/items/{item_id}/answers/",
                    "body": {"text": text},
                    "key": f"bench-{client}-{index}",
                }
            )
        clients.append(plan)
    return {"token": token, "clients": clients}


def count_statements(token: str, plan: list[dict]) -> dict:
    """SQL statements per answer, in process, BEGIN and COMMIT included; the answers count."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    counts, acknowledged = [], []
    for planned in plan[:40]:
        with CaptureQueriesContext(connection) as statements:
            response = client.post(
                planned["path"],
                json.dumps(planned["body"]),
                content_type="application/json",
                HTTP_IDEMPOTENCY_KEY=planned["key"],
            )
        if response.status_code not in (200, 201):
            raise SystemExit(f"in-process answer failed: {response.status_code} {response.content}")
        acknowledged.append({"key": planned["key"], "id": response.json()["id"]})
        counts.append(len(statements))
    counts = counts[5:]  # the first answers record the key's use and warm caches
    return {
        "max": max(counts),
        "mean": round(sum(counts) / len(counts), 2),
        "acknowledged": acknowledged,
    }


def verify(acknowledged: list[dict]) -> dict:
    """Every acknowledged answer is in the database, once, with the id the API returned."""
    from grading.models import Response

    stored = dict(
        Response.objects.filter(idempotency_key__startswith="bench-").values_list(
            "idempotency_key", "id"
        )
    )
    missing = [a for a in acknowledged if stored.get(a["key"]) != a["id"]]
    return {
        "acknowledged": len(acknowledged),
        "stored": len(stored),
        "missing": len(missing),
        "extra": len(stored) - len(acknowledged),
    }


def run_backend(backend: str) -> dict:
    """Everything for one backend; runs in a child process whose settings name that backend."""
    import django

    django.setup()
    from django.db import connections

    setup = prepare()
    statements = count_statements(setup["token"], setup["clients"][-1])
    connections.close_all()
    port = free_port()
    server = serve(dict(os.environ), port)
    try:
        trivial = [[{"method": "GET", "path": "/api/v1/"}] * TRIVIAL_PER_ROUND] * CLIENTS
        answers = setup["clients"][:-1]
        phases = [
            # Every worker serves both kinds of request before anything is measured: its first
            # answer connects to the database and compiles the answer's reads.
            {
                "name": "warm-up",
                "requests": [
                    trivial[n][:20] + answers[n][:WARM_UP_ANSWERS] for n in range(CLIENTS)
                ],
                "seconds": 20,
            }
        ]
        for round_ in range(ROUNDS):
            start = WARM_UP_ANSWERS + round_ * ANSWERS_PER_ROUND
            phases += [
                {"name": f"trivial-{round_}", "requests": trivial, "seconds": PHASE_SECONDS},
                {
                    "name": f"answers-{round_}",
                    "requests": [planned[start : start + ANSWERS_PER_ROUND] for planned in answers],
                    "seconds": PHASE_SECONDS,
                },
            ]
        plan = {"url": f"http://127.0.0.1:{port}/", "token": setup["token"], "phases": phases}
        load = subprocess.run(
            [sys.executable, str(ROOT / "bench" / "api_load.py")],
            input=json.dumps(plan),
            capture_output=True,
            text=True,
            timeout=(2 * ROUNDS + 2) * PHASE_SECONDS,
            check=True,
        )
    finally:
        stop(server)
    report = json.loads(load.stdout)
    acknowledged = [*report["warm-up"]["acknowledged"], *statements.pop("acknowledged")]
    rounds = []
    for round_ in range(ROUNDS):
        trivial_run, answers_run = report[f"trivial-{round_}"], report[f"answers-{round_}"]
        acknowledged += answers_run["acknowledged"]
        rounds.append(
            {
                "trivial_per_second": trivial_run["per_second"],
                "answers_per_second": answers_run["per_second"],
                "ratio": round(answers_run["per_second"] / trivial_run["per_second"], 3),
                "answers_p99_ms": answers_run["p99_ms"],
            }
        )
    stored = verify(acknowledged)
    warm_up = {key: report["warm-up"][key] for key in ("requests", "ok", "statuses")}
    return {
        "backend": backend,
        "warm_up": warm_up,
        "trivial": pooled([report[f"trivial-{n}"] for n in range(ROUNDS)]),
        "answers": pooled([report[f"answers-{n}"] for n in range(ROUNDS)]),
        "rounds": rounds,
        # The median round: one slow moment of a shared machine moves it least. The same for
        # the p99 the goal is checked on; the p99 of all rounds pooled is reported beside it.
        "ratio": statistics.median(r["ratio"] for r in rounds),
        "answers_p99_ms": statistics.median(r["answers_p99_ms"] for r in rounds),
        "statements_per_answer": statements,
        "stored": stored,
    }


def pooled(phases: list[dict]) -> dict:
    """The rounds of one kind of request as one: rates over their summed time, percentiles
    over every latency."""
    latencies = sorted(sample for phase in phases for sample in phase["latencies_ms"])
    seconds = sum(phase["seconds"] for phase in phases)
    statuses: dict[str, int] = {}
    for phase in phases:
        for status, count in phase["statuses"].items():
            statuses[status] = statuses.get(status, 0) + count
    ok = sum(phase["ok"] for phase in phases)

    def percentile(fraction: float) -> float:
        return latencies[min(len(latencies) - 1, int(fraction * len(latencies)))]

    return {
        "requests": sum(phase["requests"] for phase in phases),
        "ok": ok,
        "statuses": statuses,
        "seconds": round(seconds, 3),
        "per_second": round(ok / seconds, 1) if seconds else 0.0,
        "p50_ms": percentile(0.50),
        "p90_ms": percentile(0.90),
        "p99_ms": percentile(0.99),
        "max_ms": latencies[-1],
    }


# --- the driver -------------------------------------------------------------------------------


def run_in_child(backend: str, workdir: Path) -> dict:
    env = backend_env_for(backend, workdir)
    if backend == "postgresql":
        fresh_postgres_database(PG_BENCH_DB)
    return json_child([__file__, "--backend", backend], env=env, timeout=600)


def verdict(result: dict) -> list[str]:
    problems = []
    if result["ratio"] < GOAL_RATIO:
        problems.append(f"ratio {result['ratio']} < {GOAL_RATIO}")
    if result["answers_p99_ms"] >= GOAL_P99_MS:
        problems.append(f"median round's p99 {result['answers_p99_ms']} ms >= {GOAL_P99_MS} ms")
    if result["statements_per_answer"]["max"] > GOAL_STATEMENTS:
        problems.append(f"{result['statements_per_answer']['max']} statements > {GOAL_STATEMENTS}")
    if result["stored"]["missing"] or result["stored"]["extra"]:
        problems.append(f"stored rows do not match acknowledgements: {result['stored']}")
    if result["answers"]["ok"] != result["answers"]["requests"]:
        problems.append(f"failed answers: {result['answers']['statuses']}")
    if result["warm_up"]["ok"] != result["warm_up"]["requests"]:
        problems.append(f"failed warm-up requests: {result['warm_up']['statuses']}")
    return problems


def ratio_line(result: dict, load_before: tuple, load_after: tuple) -> str:
    """The answer path's goal on one line: its ratio to the trivial endpoint, met or not."""
    met = "met" if result["ratio"] >= GOAL_RATIO else "NOT MET"
    return (
        f"answer path on {result['backend']}: {result['ratio']} of the trivial endpoint, goal "
        f"≥ {GOAL_RATIO}: {met} (load average {load_before[0]:.2f} → {load_after[0]:.2f})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], help=argparse.SUPPRESS)
    parser.add_argument(
        "--only", choices=["sqlite", "postgresql"], help="measure one backend (default: both)"
    )
    args = parser.parse_args()
    if args.backend:
        print(json.dumps(run_backend(args.backend)))
        return 0
    backends = [args.only] if args.only else ["sqlite", "postgresql"]
    if "postgresql" in backends and not postgres_available():
        print("PostgreSQL does not answer on 127.0.0.1:5432: measuring SQLite only.")
        backends.remove("postgresql")
    results = []
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="softgrade-api-bench-") as workdir:
        for backend in backends:
            print(
                f"benchmarking the API on {backend} ({CLIENTS} clients, gunicorn {WORKERS} workers)"
            )
            results.append(run_in_child(backend, Path(workdir)))
    failures = 0
    header = (
        f"{'backend':<11}{'trivial/s':>10}{'answers/s':>10}{'ratio':>7}{'p50 ms':>8}"
        f"{'p99 ms':>8}{'(pooled)':>9}{'SQL/answer':>11}{'stored':>14}  {'round ratios':<18}"
        f"{'round p99s':<18}goals"
    )
    print(header)
    for result in results:
        problems = verdict(result)
        failures += bool(problems)
        stored = result["stored"]
        print(
            f"{result['backend']:<11}{result['trivial']['per_second']:>10}"
            f"{result['answers']['per_second']:>10}{result['ratio']:>7}"
            f"{result['answers']['p50_ms']:>8}{result['answers_p99_ms']:>8}"
            f"{result['answers']['p99_ms']:>9}"
            f"{result['statements_per_answer']['max']:>11}"
            f"{stored['stored']:>7}/{stored['acknowledged']:<6}  "
            f"{' '.join(str(r['ratio']) for r in result['rounds']):<18}"
            f"{' '.join(str(round(r['answers_p99_ms'])) for r in result['rounds']):<18}"
            + ("met" if not problems else "MISSED: " + "; ".join(problems))
        )
    load_after = os.getloadavg()
    for result in results:
        print(ratio_line(result, load_before, load_after))
    out_dir = ROOT / "bench-results"
    out_dir.mkdir(exist_ok=True)
    summary = {
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_average_before_after": [load_before, load_after],
        },
        "clients": CLIENTS,
        "workers": WORKERS,
        "goals": {"ratio": GOAL_RATIO, "p99_ms": GOAL_P99_MS, "statements": GOAL_STATEMENTS},
        "results": results,
    }
    (out_dir / "api.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(f"wrote {out_dir / 'api.json'}")
    # A missed speed goal is reported, not fatal; a lost acknowledged answer is.
    return 1 if any(r["stored"]["missing"] or r["stored"]["extra"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
