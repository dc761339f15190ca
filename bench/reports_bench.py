"""Benchmark of the instructor reports at 3,000 learners (issue 13's speed goals).

Run as `.venv/bin/python bench/reports_bench.py` (`make bench` does). It:

1. picks its database: DATABASE_URL, by default postgres://postgres@127.0.0.1:5432/softgrade_bench,
   a database of its own, created when missing; when no PostgreSQL server answers it falls back
   to an in-memory SQLite database and says so (the goals are set on PostgreSQL);
2. migrates it and, unless the same data set is there already (`--rebuild` makes it anew), empties
   it and writes a quiz of 10 items (6 questions, 4 problems of the shipped lesson) with LEARNERS
   learners and ATTEMPTS submitted attempts each, one graded answer per item and attempt (3,000 ×
   3 × 10 = 90,000 responses; bench/reports_data.py), then has PostgreSQL ANALYZE it (as
   autovacuum would);
3. times every /teach/ report page of that quiz, the statistics endpoint (JSON and CSV, first and
   all attempts), the gradebook CSV and the grades API through Django's request stack
   (bench/reports_pages.py): one untimed request, then --repeats timed ones each;
4. prints the median and 95th percentile of each against its goal, PASS or MISS (the p95 must
   be under the goal), with the machine's load average, and writes bench-results/reports.json.
   Beside them the median CPU time of this process per request: on a shared, loaded machine
   the wall clock swings with the neighbours, the CPU a request costs Python much less (the
   database server's work is not in it).

`--learners 30 --attempts 2` makes a quick run; `--only statistics` times the requests whose
name contains the word.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import warnings
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/softgrade_bench"
LEARNERS, ATTEMPTS, REPEATS = 3_000, 3, 5


def postgres_ready(url: str) -> bool:
    """Whether the PostgreSQL server of `url` answers; its database is created when missing."""
    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    server = parts._replace(path="/postgres").geturl()
    try:
        with psycopg.connect(server, autocommit=True, connect_timeout=5) as connection:
            found = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
            if found.fetchone() is None:
                connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    except psycopg.OperationalError as error:
        print(f"No PostgreSQL at {parts.hostname}:{parts.port}: {error}".strip())
        return False
    return True


def choose_database() -> str:
    url = os.environ.get("DATABASE_URL", DEFAULT_DATABASE)
    if url.startswith("postgres") and not postgres_ready(url):
        url = "sqlite:///:memory:"
    os.environ["DATABASE_URL"] = url
    return url


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", type=int, default=LEARNERS)
    parser.add_argument("--attempts", type=int, default=ATTEMPTS, help="per learner")
    parser.add_argument("--repeats", type=int, default=REPEATS, help="timed requests each")
    parser.add_argument("--rebuild", action="store_true", help="write the data set anew")
    parser.add_argument("--only", default="", help="time the requests whose name has this")
    parser.add_argument("--out", default=str(ROOT / "bench-results" / "reports.json"))
    return parser.parse_args()


def main() -> None:
    args = arguments()
    choose_database()
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    warnings.filterwarnings("ignore", message="No directory at")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import setup_test_environment

    from bench.reports_data import reports_find, reports_make
    from bench.reports_pages import measure, table

    setup_test_environment()
    call_command("migrate", verbosity=0)
    database = connection.vendor
    data = None if args.rebuild else reports_find(learners=args.learners, attempts=args.attempts)
    build_seconds = None
    if data is None:
        call_command("flush", interactive=False, verbosity=0)
        start = time.perf_counter()
        data = reports_make(learners=args.learners, attempts=args.attempts)
        build_seconds = round(time.perf_counter() - start, 1)
    if database == "postgresql":
        # The planner's statistics of the tables, as autovacuum keeps them on a production
        # server: without them (a server with autovacuum off, a data set just written) it
        # plans 9,000 attempts as one and reads their answers in 9,000 index lookups.
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    load_before = os.getloadavg()
    timings = measure(data, repeats=args.repeats, only=args.only)
    load_after = os.getloadavg()

    flagged = "" if database == "postgresql" else " (NOT the goals' database: PostgreSQL)"
    print(
        f"Instructor reports: {data.learners:,} learners × {data.attempts // data.learners} "
        f"attempts × {len(data.items)} items = {data.responses:,} responses on "
        f"{database}{flagged}; "
        + (f"data written in {build_seconds} s" if build_seconds else "data set reused")
    )
    print(
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after; "
        f"median and p95 of {args.repeats} requests each after one untimed"
    )
    print(table(timings))
    missed = [t.request.name for t in timings if not t.passed]
    print(
        f"{len(timings) - len(missed)} of {len(timings)} within their goal"
        + (f"; missed: {', '.join(missed)}" if missed else "")
    )
    out = Path(args.out)
    out.parent.mkdir(exist_ok=True)
    report = {
        "database": database,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "load_average": [round(load_before[0], 2), round(load_after[0], 2)],
        "learners": data.learners,
        "attempts": data.attempts,
        "responses": data.responses,
        "repeats": args.repeats,
        "timings": {
            t.request.name: {
                "median_s": round(t.median, 3),
                "p95_s": round(t.p95, 3),
                "cpu_s": round(t.cpu, 3),
                "goal_s": t.request.goal,
                "passed": t.passed,
                "bytes": t.size,
            }
            for t in timings
        },
    }
    out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
