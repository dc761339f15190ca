"""Where an API answer's time goes, in process: the application's CPU and PostgreSQL's.

Run as `.venv/bin/python bench/answer_profile.py [--answers 600] [--profile]`. It makes the API
benchmark's data (bench/api_bench.py's `prepare`, production settings, in the PostgreSQL database
BENCH_PG_DATABASE names, recreated), then sends answers through Django's test client, so every
middleware, DRF and the views run as under gunicorn, without HTTP. It prints, per answer, the
process's own CPU (median and mean), the CPU of the PostgreSQL backend serving it (read from
/proc, so Linux only) and the SQL statements, and the same for the trivial endpoint
(GET /api/v1/). `--profile` adds cProfile's top functions by cumulative time (profiling slows
each call about twofold, so read its shares, not its times).

The benchmark's ratio compares whole requests on a loaded machine; this tells which part of an
answer costs what, which is where a change to the answer path should start
(docs/performance.md, "The API answer path").
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import api_bench  # noqa: E402
from bench.serving import fresh_postgres_database, postgres_available  # noqa: E402

WARM_UP = 50  # answers before the measured ones: the first ones connect and prepare statements
COUNTED = 10  # answers whose statements are counted, apart: capturing them costs CPU too


def backend_cpu_seconds(pid: int) -> float:
    """User and system CPU a process has used so far (/proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(*, answers: int, profile: bool) -> dict:
    import django

    django.setup()
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    setup = api_bench.prepare()
    planned = [answer for plan in setup["clients"] for answer in plan]
    if len(planned) < WARM_UP + answers + COUNTED:
        raise SystemExit(f"at most {len(planned) - WARM_UP - COUNTED} answers are planned")
    client = Client(HTTP_AUTHORIZATION=f"Bearer {setup['token']}")

    def answer(one: dict) -> None:
        response = client.post(
            one["path"],
            json.dumps(one["body"]),
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=one["key"],
        )
        if response.status_code != 201:
            raise SystemExit(f"answer failed: {response.status_code} {response.content[:300]}")

    for one in planned[:WARM_UP]:
        answer(one)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    profiler = cProfile.Profile() if profile else None
    cpu = []
    database_before = backend_cpu_seconds(backend)
    for one in planned[WARM_UP : WARM_UP + answers]:
        began = time.process_time()
        if profiler:
            profiler.enable()
        answer(one)
        if profiler:
            profiler.disable()
        cpu.append(time.process_time() - began)
    database = backend_cpu_seconds(backend) - database_before
    statements = []
    for one in planned[WARM_UP + answers : WARM_UP + answers + COUNTED]:
        with CaptureQueriesContext(connection) as captured:
            answer(one)
        statements.append(len(captured))
    trivial_began, database_before = time.process_time(), backend_cpu_seconds(backend)
    for _ in range(answers):
        client.get("/api/v1/")
    trivial = time.process_time() - trivial_began
    trivial_database = backend_cpu_seconds(backend) - database_before
    if profiler:
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(40)
    return {
        "answers": answers,
        "answer_app_cpu_ms": {
            "median": round(statistics.median(cpu) * 1000, 2),
            "mean": round(statistics.mean(cpu) * 1000, 2),
        },
        "answer_database_cpu_ms": round(database / answers * 1000, 2),
        "answer_statements": max(statements),
        "trivial_app_cpu_ms": round(trivial / answers * 1000, 2),
        "trivial_database_cpu_ms": round(trivial_database / answers * 1000, 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=600)
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions")
    args = parser.parse_args()
    if not postgres_available():
        raise SystemExit("PostgreSQL does not answer on 127.0.0.1:5432")
    with tempfile.TemporaryDirectory(prefix="softgrade-answer-profile-") as workdir:
        os.environ.update(api_bench.backend_env_for("postgresql", Path(workdir)))
        fresh_postgres_database(api_bench.PG_BENCH_DB)
        result = measure(answers=args.answers, profile=args.profile)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
