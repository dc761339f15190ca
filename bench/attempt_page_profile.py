"""What the exam's attempt page costs, in process: the application's CPU, PostgreSQL's, and the
SQL statements, for the code here and, with `--against REF`, for the code at REF in the same run.

Run as `.venv/bin/python bench/attempt_page_profile.py [--learners 40] [--rounds 3]
[--against main]`. It makes the exam-day bench's 16-item exam and learners
(bench/exam_database.py; production settings, with the shared cache production uses, in the
PostgreSQL database BENCH_PG_DATABASE names, recreated), then each learner starts an attempt
and asks for its attempt page three times through Django's test client (every middleware and
the view, without HTTP):

- `first page`: the page of the fresh attempt (where the code stores the attempt's sheet, this
  page renders and stores it), for every other learner;
- `sheet store` then `first page, stored`, for the others, where the code has grading/sheets.py:
  the attempt's sheet stored first (as a prepared attempt has it before the opening instant),
  then its first page;
- `page again`: the same page once more, nothing answered (the sheet read back);
- `page, 16 saved`: the page after the service saved an answer to every item.

It prints, per kind, the process's CPU (median), the CPU of the PostgreSQL backend serving it
(read from /proc, so Linux only) and the SQL statements. With `--against`, the code at REF is
exported (git archive) and measured against the same database in alternating rounds, so the
machine's drift hits both alike. Writes bench-results/attempt-page-profile.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PG_BENCH_DB = os.environ.get("BENCH_PG_DATABASE", "softgrade_attempt_page_profile")
WARM_UP = 5  # learners before the measured ones: connect, prepare statements, fill caches
COUNTED = 3  # learners whose statements are counted, apart: capturing them costs CPU too
KINDS = ("first page", "sheet store", "first page, stored", "page again", "page, 16 saved")


# --- inside a Django child (production settings, the bench database, one tree's code) ----------


def measure(*, quiz: str, learners: list[dict]) -> dict:
    """Each learner's three pages; per kind the CPU samples and the statements."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from bench.answer_profile import backend_cpu_seconds
    from bench.exam_pages import form, sheet_fields
    from courses.models import Quiz
    from grading.models import Attempt
    from grading.services.attempts import attempt_start
    from grading.services.responses import SheetAnswer, attempt_answers_save

    if not (Path(settings.STATIC_ROOT) / "staticfiles.json").exists():
        call_command("collectstatic", interactive=False, verbosity=0)
    exam = Quiz.objects.get(slug=quiz)
    users = get_user_model().objects.in_bulk(
        [spec["name"] for spec in learners], field_name="username"
    )

    def page(client: Client, take: str, expect: str) -> str:
        answer = client.get(take)
        text = answer.content.decode()
        if answer.status_code != 200 or expect not in text:
            raise SystemExit(f"the attempt page is not what it should be: {text[:300]!r}")
        return text

    def save_all(attempt_id: int, text: str, index: int) -> None:
        _, sent = sheet_fields(form(text, form_id="sheet"), save=0, learner=index, action="save")
        answers = {
            int(item): SheetAnswer(choice_ids=tuple(answer))
            if isinstance(answer, list)
            else SheetAnswer(text=answer)
            for item, answer in sent.items()
        }
        attempt = Attempt.objects.select_related("quiz").get(pk=attempt_id)
        attempt_answers_save(attempt=attempt, answers=answers, idempotency_key="all")

    try:
        from grading.sheets import sheet_store
    except ImportError:  # code from before sheets were stored
        sheet_store = None

    # One client for every learner, its cookies swapped: a client's first request loads the
    # middleware (whitenoise scans the static files, some 30 ms), which a server does once.
    client = Client()

    def journey(spec: dict, index: int, step) -> None:
        client.cookies.clear()
        client.cookies["sessionid"] = spec["session"]
        attempt = attempt_start(user=users[spec["name"]], quiz=exam)
        take = reverse("attempt-take", kwargs={"pk": attempt.pk})
        if sheet_store and index % 2:
            step("sheet store", lambda: sheet_store(attempt=Attempt.objects.get(pk=attempt.pk)))
            text = step("first page, stored", lambda: page(client, take, "not answered yet"))
        else:
            text = step("first page", lambda: page(client, take, "not answered yet"))
        step("page again", lambda: page(client, take, "not answered yet"))
        save_all(attempt.pk, text, index)
        step("page, 16 saved", lambda: page(client, take, ">saved<"))

    for index, spec in enumerate(learners[:WARM_UP]):
        journey(spec, index, lambda kind, call: call())
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    cpu: dict[str, list[float]] = {kind: [] for kind in KINDS}
    database: dict[str, list[float]] = {kind: [] for kind in KINDS}

    def timed(kind, call):
        database_before = backend_cpu_seconds(backend)
        began = time.process_time()
        result = call()
        cpu[kind].append(time.process_time() - began)
        database[kind].append(backend_cpu_seconds(backend) - database_before)
        return result

    for index, spec in enumerate(learners[WARM_UP:-COUNTED], start=WARM_UP):
        journey(spec, index, timed)
    statements: dict[str, list[int]] = {kind: [] for kind in KINDS}

    def counted(kind, call):
        with CaptureQueriesContext(connection) as captured:
            result = call()
        statements[kind].append(len(captured))
        return result

    for index, spec in enumerate(learners[-COUNTED:], start=len(learners) - COUNTED):
        journey(spec, index, counted)
    return {"cpu": cpu, "database": database, "statements": statements}


def child(stage: str, root: Path) -> int:
    # The tree under measure first on the path: its config, apps and bench helpers.
    sys.path.insert(0, str(root))
    import django

    django.setup()
    arguments = json.load(sys.stdin)
    if stage == "prepare":
        from bench.sheet_profile import prepare

        result = prepare(**arguments)
    else:
        result = measure(**arguments)
    print(json.dumps(result))
    return 0


# --- the driver --------------------------------------------------------------------------------


def summary(samples: dict) -> dict:
    """Per kind: the median and mean of the process's CPU, the backend's mean CPU (ms), and the
    most statements one page took."""
    return {
        kind: {
            "pages": len(samples["cpu"][kind]),
            "app_cpu_ms_median": round(statistics.median(samples["cpu"][kind]) * 1000, 2),
            "app_cpu_ms_mean": round(statistics.mean(samples["cpu"][kind]) * 1000, 2),
            "database_cpu_ms_mean": round(statistics.mean(samples["database"][kind]) * 1000, 2),
            "statements": max(samples["statements"][kind], default=0),
        }
        for kind in KINDS
        if samples["cpu"][kind]  # code without stored sheets has no `sheet store`
    }


def run(args: argparse.Namespace, workdir: Path) -> dict:
    from bench.serving import backend_env, fresh_postgres_database, json_child
    from bench.sheet_profile import exported

    env = backend_env(database=fresh_postgres_database(PG_BENCH_DB))
    trees = {"here": ROOT}
    if args.against:
        trees = {args.against: exported(args.against, workdir), **trees}
    per_child = WARM_UP + args.learners + COUNTED
    total = per_child * len(trees) * args.rounds

    def in_child(stage: str, root: Path, arguments: dict) -> dict:
        argv = [__file__, "--stage", stage, "--root", str(root)]
        return json_child(argv, env=env, arguments=arguments, cwd=root, timeout=3600)

    print(f"preparing the exam and {total} learners …", flush=True)
    setup = in_child("prepare", ROOT, {"learners": total})
    learners = iter(setup["learners"])
    samples: dict[str, dict] = {name: {} for name in trees}
    for round_ in range(args.rounds):
        # Alternate which tree goes first, so neither always runs on a warmer machine.
        order = list(trees) if round_ % 2 == 0 else list(reversed(trees))
        for name in order:
            print(f"round {round_ + 1}/{args.rounds}: {name}", flush=True)
            part = [next(learners) for _ in range(per_child)]
            result = in_child("measure", trees[name], {"quiz": setup["quiz"], "learners": part})
            for measure_name, by_kind in result.items():
                kept = samples[name].setdefault(measure_name, {kind: [] for kind in KINDS})
                for kind, values in by_kind.items():
                    kept[kind].extend(values)
    return {name: summary(by_measure) for name, by_measure in samples.items()}


def print_report(report: dict) -> None:
    print(f"\n{'code':<10}{'page':<22}{'pages':>6}{'app CPU ms':>12}{'PG CPU ms':>11}{'SQL':>6}")
    for name, kinds in report.items():
        for kind, figures in kinds.items():
            print(
                f"{name:<10}{kind:<22}{figures['pages']:>6}{figures['app_cpu_ms_median']:>12}"
                f"{figures['database_cpu_ms_mean']:>11}{figures['statements']:>6}"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", choices=["prepare", "measure"], help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    parser.add_argument("--learners", type=int, default=40, help="measured per round and code")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", default="", help="a git ref to measure in the same run")
    args = parser.parse_args()
    if args.stage:
        return child(args.stage, args.root)
    sys.path.insert(0, str(ROOT))
    from bench.serving import postgres_available

    if not postgres_available():
        raise SystemExit("PostgreSQL does not answer on 127.0.0.1:5432")
    with tempfile.TemporaryDirectory(prefix="softgrade-attempt-page-") as workdir:
        report = run(args, Path(workdir))
    print_report(report)
    out_dir = ROOT / "bench-results"
    out_dir.mkdir(exist_ok=True)
    (out_dir / "attempt-page-profile.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out_dir / 'attempt-page-profile.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
