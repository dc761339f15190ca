"""What one exam sheet save costs, in process: the application's CPU, PostgreSQL's, and the SQL
statements, for the code here and, with `--against REF`, for the code at REF in the same run.

Run as `.venv/bin/python bench/sheet_profile.py [--learners 40] [--rounds 3] [--against main]`.
It makes the exam-day bench's 16-item exam and learners (bench/exam_database.py; production
settings, in the PostgreSQL database BENCH_PG_DATABASE names, recreated), then each learner
starts an attempt and saves its whole sheet four times, every answer changed each time:

- `service, first save`: attempt_answers_save of the sheet to the fresh attempt (16 new answers);
- `service, all changed`: the service again;
- `form, save + page`: the page's form as a browser without the page's script sends it, through
  Django's test client (every middleware and the view, without HTTP), and the attempt page it
  is redirected to;
- `script save`: the same form asking for JSON, as the page's script sends it (no page follows).

It prints, per kind, the process's CPU (median), the CPU of the PostgreSQL backend serving it
(read from /proc, so Linux only) and the SQL statements. With `--against`, the code at REF is
exported (git archive) to a temporary directory and measured against the same database in
alternating rounds, so the machine's drift hits both alike. Writes
bench-results/sheet-profile.json. docs/performance.md ("Exam day") has the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PG_BENCH_DB = os.environ.get("BENCH_PG_DATABASE", "softgrade_sheet_profile")
WARM_UP = 5  # learners before the measured ones: connect, prepare statements, fill caches
COUNTED = 3  # learners whose statements are counted, apart: capturing them costs CPU too
KINDS = ("service, first save", "service, all changed", "form, save + page", "script save")


# --- inside a Django child (production settings, the bench database, one tree's code) ----------


def prepare(learners: int) -> dict:
    from bench.exam_database import prepare as exam_prepare

    return exam_prepare(learners=learners, signins=0, signin_hasher="default", minutes=600)


def measure(*, quiz: str, learners: list[dict]) -> dict:
    """Each learner's four saves; per kind the CPU samples and the statements."""
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

    def service(attempt_id: int, sheet, save: int, index: int) -> None:
        _, sent = sheet_fields(sheet, save=save, learner=index, action="save")
        answers = {
            int(item): SheetAnswer(choice_ids=tuple(answer))
            if isinstance(answer, list)
            else SheetAnswer(text=answer)
            for item, answer in sent.items()
        }
        attempt = Attempt.objects.select_related("quiz").get(pk=attempt_id)
        recorded = attempt_answers_save(
            attempt=attempt, answers=answers, idempotency_key=f"s{save}"
        )
        if len(recorded) != len(answers):
            raise SystemExit(f"the service saved {len(recorded)} of {len(answers)} answers")

    def form_save(client: Client, sheet, save: int, index: int) -> str:
        fields, sent = sheet_fields(sheet, save=save, learner=index, action="save")
        posted = client.post(sheet.action, _as_dict(fields))
        page = client.get(posted["Location"]).content.decode()
        if f"Saved {len(sent)} answers." not in page:
            raise SystemExit("the page after the form's save did not confirm it")
        return page

    def script_save(client: Client, sheet, save: int, index: int) -> None:
        fields, sent = sheet_fields(sheet, save=save, learner=index, action="save")
        posted = client.post(sheet.action, _as_dict(fields), HTTP_ACCEPT="application/json")
        if posted.json().get("saved") != len(sent):
            raise SystemExit(f"the script's save was not taken: {posted.content[:300]!r}")

    def journey(spec: dict, index: int, step) -> None:
        """One learner's four saves, each run through `step(kind, call)`."""
        client = Client()
        client.cookies["sessionid"] = spec["session"]
        attempt = attempt_start(user=users[spec["name"]], quiz=exam)
        take = reverse("attempt-take", kwargs={"pk": attempt.pk})
        sheet = form(client.get(take).content.decode(), form_id="sheet")
        step(KINDS[0], lambda: service(attempt.pk, sheet, 0, index))
        step(KINDS[1], lambda: service(attempt.pk, sheet, 1, index))
        page = step(KINDS[2], lambda: form_save(client, sheet, 2, index))
        sheet = form(page, form_id="sheet")  # its fresh submission token
        step(KINDS[3], lambda: script_save(client, sheet, 3, index))

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

    measured = learners[WARM_UP:-COUNTED]
    for index, spec in enumerate(measured, start=WARM_UP):
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


def _as_dict(fields: list[tuple[str, str]]) -> dict[str, list[str]]:
    data: dict[str, list[str]] = {}
    for name, value in fields:
        data.setdefault(name, []).append(value)
    return data


def child(stage: str, root: Path) -> int:
    # The tree under measure first on the path: its config, apps and bench helpers.
    sys.path.insert(0, str(root))
    import django

    django.setup()
    arguments = json.load(sys.stdin)
    result = prepare(**arguments) if stage == "prepare" else measure(**arguments)
    print(json.dumps(result))
    return 0


# --- the driver --------------------------------------------------------------------------------


def in_child(stage: str, root: Path, env: dict[str, str], arguments: dict) -> dict:
    from bench.serving import json_child

    argv = [__file__, "--stage", stage, "--root", str(root)]
    return json_child(argv, env=env, arguments=arguments, cwd=root, timeout=3600)


def exported(ref: str, into: Path) -> Path:
    """The tree at `ref`, written to `into` (git archive; nothing in the repository changes)."""
    archive = into / "tree.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "archive", ref], cwd=ROOT, stdout=out, check=True)
    tree = into / "tree"
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    return tree


def summary(samples: dict) -> dict:
    """Per kind: the median and mean of the process's CPU, the backend's mean CPU (ms), and the
    most statements one save took."""
    return {
        kind: {
            "saves": len(samples["cpu"][kind]),
            "app_cpu_ms_median": round(statistics.median(samples["cpu"][kind]) * 1000, 1),
            "app_cpu_ms_mean": round(statistics.mean(samples["cpu"][kind]) * 1000, 1),
            "database_cpu_ms_mean": round(statistics.mean(samples["database"][kind]) * 1000, 1),
            "statements": max(samples["statements"][kind]),
        }
        for kind in KINDS
    }


def run(args: argparse.Namespace, workdir: Path) -> dict:
    from bench.serving import backend_env, fresh_postgres_database

    env = backend_env(database=fresh_postgres_database(PG_BENCH_DB))
    trees = {"here": ROOT}
    if args.against:
        trees = {args.against: exported(args.against, workdir), **trees}
    per_child = WARM_UP + args.learners + COUNTED
    total = per_child * len(trees) * args.rounds
    print(f"preparing the exam and {total} learners …", flush=True)
    setup = in_child("prepare", ROOT, env, {"learners": total})
    learners = iter(setup["learners"])
    samples: dict[str, dict] = {name: {} for name in trees}
    for round_ in range(args.rounds):
        # Alternate which tree goes first, so neither always runs on a warmer machine.
        order = list(trees) if round_ % 2 == 0 else list(reversed(trees))
        for name in order:
            print(f"round {round_ + 1}/{args.rounds}: {name}", flush=True)
            part = [next(learners) for _ in range(per_child)]
            result = in_child(
                "measure", trees[name], env, {"quiz": setup["quiz"], "learners": part}
            )
            for measure_name, by_kind in result.items():
                kept = samples[name].setdefault(measure_name, {kind: [] for kind in KINDS})
                for kind, values in by_kind.items():
                    kept[kind].extend(values)
    return {name: summary(by_measure) for name, by_measure in samples.items()}


def print_report(report: dict) -> None:
    print(f"\n{'code':<10}{'save':<24}{'saves':>6}{'app CPU ms':>12}{'PG CPU ms':>11}{'SQL':>6}")
    for name, kinds in report.items():
        for kind, figures in kinds.items():
            print(
                f"{name:<10}{kind:<24}{figures['saves']:>6}{figures['app_cpu_ms_median']:>12}"
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
    with tempfile.TemporaryDirectory(prefix="softgrade-sheet-profile-") as workdir:
        report = run(args, Path(workdir))
    print_report(report)
    out_dir = ROOT / "bench-results"
    out_dir.mkdir(exist_ok=True)
    (out_dir / "sheet-profile.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out_dir / 'sheet-profile.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
