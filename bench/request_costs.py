"""What a signed-in learner's exam requests cost, in process: the script's save, the submit, the
results page and one plain page, for the code here and, with `--against REF`, for the code at REF
in the same run.

Run as `.venv/bin/python bench/request_costs.py [--learners 40] [--rounds 3] [--against main]
[--profile]`. It makes the exam-day bench's 16-item exam (without immediate feedback) and its
learners (bench/exam_database.py; production settings, the PostgreSQL database BENCH_PG_DATABASE
names, recreated), then each learner, through Django's test client (every middleware and the
view, without HTTP), opens the attempt page (not measured) and:

- `script save`: sends the whole sheet as the page's script does (asking for JSON), twice, every
  answer changed the second time;
- `submit`: posts the submit page's form (redirected to the results, not followed);
- `results`: opens the results page (with the submit's confirmation message);
- `plain page`: opens the home page, as any signed-in page.

It prints, per request, the process's CPU (median), the CPU of the PostgreSQL backend serving it
(mean, read from /proc, so Linux only) and the SQL statements, with the load average. Rounds
alternate the trees so the machine's drift hits both alike. `--profile` prints, per request, the
functions that took the most CPU (cProfile, the code here only). Writes
bench-results/request-costs.json.
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
PG_BENCH_DB = os.environ.get("BENCH_PG_DATABASE", "softgrade_request_costs")
WARM_UP = 5  # learners before the measured ones: connect, prepare statements, fill caches
COUNTED = 3  # learners whose statements are counted, apart: capturing them costs CPU too
KINDS = ("script save", "submit", "results", "plain page")


def measure(*, quiz: str, learners: list[dict], profile: bool = False) -> dict:
    """Each learner's requests; per kind the CPU samples and the statements."""
    import cProfile
    import io
    import pstats

    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from bench.answer_profile import backend_cpu_seconds
    from bench.exam_pages import form, sheet_fields, with_token
    from courses.models import Quiz
    from grading.services.attempts import attempt_start

    if not (Path(settings.STATIC_ROOT) / "staticfiles.json").exists():
        call_command("collectstatic", interactive=False, verbosity=0)
    exam = Quiz.objects.get(slug=quiz)
    users = get_user_model().objects.in_bulk(
        [spec["name"] for spec in learners], field_name="username"
    )

    def script_save(client: Client, sheet, save: int, index: int) -> str:
        fields, sent = sheet_fields(sheet, save=save, learner=index, action="save")
        posted = client.post(sheet.action, _as_dict(fields), HTTP_ACCEPT="application/json")
        if posted.json().get("saved") != len(sent):
            raise SystemExit(f"the script's save was not taken: {posted.content[:300]!r}")
        return posted.json()["token"]

    def submit(client: Client, attempt_id: int) -> None:
        posted = client.post(reverse("attempt-submit", kwargs={"pk": attempt_id}))
        if posted.status_code != 302 or "results" not in posted["Location"]:
            raise SystemExit(f"the submit was not taken: {posted.status_code}")

    def results(client: Client, attempt_id: int) -> None:
        page = client.get(reverse("attempt-results", kwargs={"pk": attempt_id}))
        if page.status_code != 200 or b"submitted" not in page.content:
            raise SystemExit(f"the results page did not show: {page.status_code}")

    def plain(client: Client) -> None:
        page = client.get(reverse("home"))
        if page.status_code != 200:
            raise SystemExit(f"the home page did not show: {page.status_code}")

    def journey(spec: dict, index: int, step) -> None:
        client = Client()
        client.cookies["sessionid"] = spec["session"]
        attempt = attempt_start(user=users[spec["name"]], quiz=exam)
        take = reverse("attempt-take", kwargs={"pk": attempt.pk})
        sheet = form(client.get(take).content.decode(), form_id="sheet")
        token = step(KINDS[0], lambda: script_save(client, sheet, 0, index))
        sheet = with_token(sheet, token)
        step(KINDS[0], lambda: script_save(client, sheet, 1, index))
        step(KINDS[1], lambda: submit(client, attempt.pk))
        step(KINDS[2], lambda: results(client, attempt.pk))
        step(KINDS[3], lambda: plain(client))

    for index, spec in enumerate(learners[:WARM_UP]):
        journey(spec, index, lambda kind, call: call())
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    cpu: dict[str, list[float]] = {kind: [] for kind in KINDS}
    database: dict[str, list[float]] = {kind: [] for kind in KINDS}
    profiles = {kind: cProfile.Profile(time.process_time) for kind in KINDS}

    def timed(kind, call):
        database_before = backend_cpu_seconds(backend)
        began = time.process_time()
        result = call()
        cpu[kind].append(time.process_time() - began)
        database[kind].append(backend_cpu_seconds(backend) - database_before)
        return result

    def profiled(kind, call):
        return profiles[kind].runcall(call)

    measured = learners[WARM_UP:-COUNTED]
    for index, spec in enumerate(measured, start=WARM_UP):
        journey(spec, index, profiled if profile else timed)
    statements: dict[str, list[int]] = {kind: [] for kind in KINDS}
    sql: dict[str, list[str]] = {}

    def counted(kind, call):
        with CaptureQueriesContext(connection) as captured:
            result = call()
        statements[kind].append(len(captured))
        sql[kind] = [query["sql"][:300] for query in captured.captured_queries]
        return result

    for index, spec in enumerate(learners[-COUNTED:], start=len(learners) - COUNTED):
        journey(spec, index, counted)
    printed = {}
    if profile:
        for kind, profiler in profiles.items():
            out = io.StringIO()
            stats = pstats.Stats(profiler, stream=out)
            stats.sort_stats("cumulative").print_stats(int(os.environ.get("PROFILE_LINES", "45")))
            stats.sort_stats("tottime").print_stats(25)
            printed[kind] = out.getvalue() + "\n".join(sql.get(kind, []))
    return {"cpu": cpu, "database": database, "statements": statements, "profiles": printed}


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
    if stage == "prepare":
        from bench.exam_database import prepare

        result = prepare(
            learners=arguments["learners"], signins=0, signin_hasher="default", minutes=600
        )
    else:
        result = measure(**arguments)
    print(json.dumps(result))
    return 0


# --- the driver --------------------------------------------------------------------------------


def in_child(stage: str, root: Path, env: dict[str, str], arguments: dict) -> dict:
    from bench.serving import json_child

    argv = [str(ROOT / "bench" / "request_costs.py"), "--stage", stage, "--root", str(root)]
    return json_child(argv, env=env, arguments=arguments, cwd=root, timeout=3600)


def summary(samples: dict) -> dict:
    """Per kind: the median of the process's CPU, the backend's mean CPU (ms), and the most
    statements one request took."""
    return {
        kind: {
            "requests": len(samples["cpu"][kind]),
            "app_cpu_ms_median": round(statistics.median(samples["cpu"][kind]) * 1000, 1),
            "database_cpu_ms_mean": round(statistics.mean(samples["database"][kind]) * 1000, 1),
            "statements": max(samples["statements"][kind]),
        }
        for kind in KINDS
        if samples["cpu"][kind]
    }


def run(args: argparse.Namespace, workdir: Path) -> dict:
    from bench.serving import backend_env, fresh_postgres_database
    from bench.sheet_profile import exported

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
            arguments = {"quiz": setup["quiz"], "learners": part, "profile": args.profile}
            result = in_child("measure", trees[name], env, arguments)
            for kind, text in result.pop("profiles").items():
                print(f"\n===== {name}: {kind} =====\n{text}")
            for measure_name, by_kind in result.items():
                kept = samples[name].setdefault(measure_name, {kind: [] for kind in KINDS})
                for kind, values in by_kind.items():
                    kept[kind].extend(values)
    return {name: summary(by_measure) for name, by_measure in samples.items()}


def print_report(report: dict, load: str) -> None:
    print(f"\nload average at the end: {load}")
    print(f"{'code':<10}{'request':<14}{'count':>6}{'app CPU ms':>12}{'PG CPU ms':>11}{'SQL':>6}")
    for name, kinds in report.items():
        for kind, figures in kinds.items():
            print(
                f"{name:<10}{kind:<14}{figures['requests']:>6}{figures['app_cpu_ms_median']:>12}"
                f"{figures['database_cpu_ms_mean']:>11}{figures['statements']:>6}"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", choices=["prepare", "measure"], help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    parser.add_argument("--learners", type=int, default=40, help="measured per round and code")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", default="", help="a git ref to measure in the same run")
    parser.add_argument("--profile", action="store_true", help="print where the CPU goes")
    args = parser.parse_args()
    if args.stage:
        return child(args.stage, args.root)
    sys.path.insert(0, str(ROOT))
    from bench.serving import postgres_available

    if not postgres_available():
        raise SystemExit("PostgreSQL does not answer on 127.0.0.1:5432")
    with tempfile.TemporaryDirectory(prefix="softgrade-request-costs-") as workdir:
        report = run(args, Path(workdir))
    load = Path("/proc/loadavg").read_text().strip()
    print_report(report, load)
    out_dir = ROOT / "bench-results"
    out_dir.mkdir(exist_ok=True)
    (out_dir / "request-costs.json").write_text(
        json.dumps({"load_average": load, "report": report}, indent=2) + "\n"
    )
    print(f"wrote {out_dir / 'request-costs.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
