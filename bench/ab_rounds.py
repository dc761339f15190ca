"""Rounds that measure the code here against the code at another git ref in the same run.

The in-process exam benches (bench/sheet_profile.py, bench/attempt_page_profile.py,
bench/request_costs.py) each define what one learner does (`journey(spec, index, step)`, every
measured call passed through `step(kind, call)`) and how to print their figures; this module
does the rest, alike for all of them:

- the driver recreates the PostgreSQL database, prepares the exam-day bench's exam and enough
  learners in a child process, and, with `--against REF`, exports the tree at REF (git archive);
- each round runs one child per tree (its code first on the path), the trees' order alternating
  from round to round so that the machine's drift hits both alike;
- inside a child, `journey_samples` runs some learners unmeasured (connect, prepare statements,
  fill caches), then per kind the process's CPU and the CPU of the PostgreSQL backend serving it
  (read from /proc, so Linux only), then, apart, the SQL statements (capturing them costs CPU);
- the driver gathers the samples per tree, measure and kind; `summary` turns them into medians,
  means and the most statements, `report_lines` into the printed table (both as the bench's
  `Table` says), and `write_result` writes them to bench-results/NAME.json, NAME from the
  script's (bench/sheet_profile.py writes sheet-profile.json).

`main` is the whole driver of a bench without options of its own; a bench with its own options
(bench/request_costs.py) calls `parser`, `child`, `run_rounds` and the rest itself.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WARM_UP = 5  # learners before the measured ones: connect, prepare statements, fill caches
COUNTED = 3  # learners whose statements are counted, apart: capturing them costs CPU too


# --- pure logic ----------------------------------------------------------------------------------


def round_order(trees: Iterable[str], round_: int) -> list[str]:
    """The trees in the order round `round_` (from 0) runs them: as given in even rounds, reversed
    in odd ones, so neither always runs on a warmer machine. `round_order(["a", "b"], 1)` is
    `["b", "a"]`."""
    names = list(trees)
    return names if round_ % 2 == 0 else list(reversed(names))


def gather(kept: dict[str, dict[str, list]], result: dict, kinds: Iterable[str]) -> None:
    """Add one child's samples (measure -> kind -> values) to those `kept` for its tree."""
    for measure_name, by_kind in result.items():
        into = kept.setdefault(measure_name, {kind: [] for kind in kinds})
        for kind, values in by_kind.items():
            into[kind].extend(values)


def summary(
    samples: dict[str, dict[str, list]],
    kinds: Iterable[str],
    *,
    count: str,
    digits: int = 1,
    with_mean: bool = True,
    sampled_only: bool = False,
) -> dict[str, dict]:
    """Per kind: how many samples (under the name `count`), the median (and with `with_mean`, the
    mean) of the process's CPU, the backend's mean CPU (ms, to `digits` places), and the most
    statements one call took. With `sampled_only`, kinds without CPU samples are left out."""
    figures = {}
    for kind in kinds:
        cpu = samples["cpu"][kind]
        if sampled_only and not cpu:
            continue
        kind_figures = {
            count: len(cpu),
            "app_cpu_ms_median": round(statistics.median(cpu) * 1000, digits),
        }
        if with_mean:
            kind_figures["app_cpu_ms_mean"] = round(statistics.mean(cpu) * 1000, digits)
        database = samples["database"][kind]
        kind_figures["database_cpu_ms_mean"] = round(statistics.mean(database) * 1000, digits)
        kind_figures["statements"] = max(samples["statements"][kind], default=0)
        figures[kind] = kind_figures
    return figures


def report_lines(
    report: dict[str, dict], *, column: str, width: int, count: str, count_heading: str = ""
) -> list[str]:
    """The table of `report` (tree -> kind -> figures): a header, then a line per tree and kind;
    `column` heads the kinds (`width` wide), `count` is the figure counting the samples, headed
    `count_heading` (by default its own name)."""
    heading = count_heading or count
    lines = [
        f"{'code':<10}{column:<{width}}{heading:>6}{'app CPU ms':>12}{'PG CPU ms':>11}{'SQL':>6}"
    ]
    for name, kinds in report.items():
        for kind, figures in kinds.items():
            lines.append(
                f"{name:<10}{kind:<{width}}{figures[count]:>6}{figures['app_cpu_ms_median']:>12}"
                f"{figures['database_cpu_ms_mean']:>11}{figures['statements']:>6}"
            )
    return lines


@dataclass(frozen=True)
class Table:
    """How a bench sums up and prints its figures: the kinds' column (its heading and width), the
    name of the samples' count, the places kept, whether the mean CPU is kept, and whether kinds
    without samples are left out (see `summary` and `report_lines`)."""

    column: str
    width: int
    count: str
    digits: int = 1
    with_mean: bool = True
    sampled_only: bool = False


def form_data(fields: list[tuple[str, str]]) -> dict[str, list[str]]:
    """A form's fields as the test client posts them: each name with its values in order."""
    data: dict[str, list[str]] = {}
    for name, value in fields:
        data.setdefault(name, []).append(value)
    return data


# --- inside a Django child (production settings, the bench database, one tree's code) ----------


def prepare_exam(learners: int) -> dict:
    """The exam-day bench's exam and `learners` signed-in learners (no sign-ins measured)."""
    from bench.exam_database import prepare

    return prepare(learners=learners, signins=0, signin_hasher="default", minutes=600)


def exam_and_users(quiz: str, learners: list[dict]) -> tuple:
    """The exam and the learners' users by name, the static files collected if they are not."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from courses.models import Quiz

    if not (Path(settings.STATIC_ROOT) / "staticfiles.json").exists():
        call_command("collectstatic", interactive=False, verbosity=0)
    users = get_user_model().objects.in_bulk(
        [spec["name"] for spec in learners], field_name="username"
    )
    return Quiz.objects.get(slug=quiz), users


def sheet_answers(sent: dict) -> dict:
    """A sheet's sent answers (item id -> chosen ids or a text) as the save service takes them."""
    from grading.services.responses import SheetAnswer

    return {
        int(item): SheetAnswer(choice_ids=tuple(answer))
        if isinstance(answer, list)
        else SheetAnswer(text=answer)
        for item, answer in sent.items()
    }


def opened_sheet(spec: dict, user, exam) -> tuple:
    """A client signed in as the learner `spec`, the attempt it starts on `exam`, and the sheet
    form of the attempt's page as the client gets it (not measured)."""
    from django.test import Client
    from django.urls import reverse

    from bench.exam_pages import form
    from grading.services.attempts import attempt_start

    client = Client()
    client.cookies["sessionid"] = spec["session"]
    attempt = attempt_start(user=user, quiz=exam)
    take = reverse("attempt-take", kwargs={"pk": attempt.pk})
    return client, attempt, form(client.get(take).content.decode(), form_id="sheet")


def script_save(client, sheet, *, save: int, learner: int) -> str | None:
    """Save the whole sheet as the page's script does (asking for JSON), every answer as save
    number `save` of learner number `learner` has it; the next submission token, if sent."""
    from bench.exam_pages import sheet_fields

    fields, sent = sheet_fields(sheet, save=save, learner=learner, action="save")
    posted = client.post(sheet.action, form_data(fields), HTTP_ACCEPT="application/json")
    if posted.json().get("saved") != len(sent):
        raise SystemExit(f"the script's save was not taken: {posted.content[:300]!r}")
    return posted.json().get("token")


Step = Callable[[str, Callable], object]


def journey_samples(
    learners: list[dict],
    journey: Callable[[dict, int, Step], None],
    kinds: Iterable[str],
    *,
    measured_step: Step | None = None,
    on_counted: Callable[[str, list[dict]], None] | None = None,
) -> dict[str, dict[str, list]]:
    """Run `journey(spec, index, step)` for every learner: the first WARM_UP unmeasured, the last
    COUNTED with each step's statements counted (`on_counted(kind, queries)` sees them), those
    between with each step's CPU and the backend's timed, or through `measured_step` instead."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from bench.answer_profile import backend_cpu_seconds

    for index, spec in enumerate(learners[:WARM_UP]):
        journey(spec, index, lambda kind, call: call())
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    cpu: dict[str, list[float]] = {kind: [] for kind in kinds}
    database: dict[str, list[float]] = {kind: [] for kind in kinds}

    def timed(kind, call):
        database_before = backend_cpu_seconds(backend)
        began = time.process_time()
        result = call()
        cpu[kind].append(time.process_time() - began)
        database[kind].append(backend_cpu_seconds(backend) - database_before)
        return result

    for index, spec in enumerate(learners[WARM_UP:-COUNTED], start=WARM_UP):
        journey(spec, index, measured_step or timed)
    statements: dict[str, list[int]] = {kind: [] for kind in kinds}

    def counted(kind, call):
        with CaptureQueriesContext(connection) as captured:
            result = call()
        statements[kind].append(len(captured))
        if on_counted:
            on_counted(kind, captured.captured_queries)
        return result

    for index, spec in enumerate(learners[-COUNTED:], start=len(learners) - COUNTED):
        journey(spec, index, counted)
    return {"cpu": cpu, "database": database, "statements": statements}


def child(stage: str, root: Path, *, measure: Callable[..., dict], prepare=prepare_exam) -> int:
    """A child's stage: its arguments as JSON on its input, its result as JSON on its output."""
    # The tree under measure first on the path: its config, apps and bench helpers.
    sys.path.insert(0, str(root))
    import django

    django.setup()
    arguments = json.load(sys.stdin)
    result = prepare(**arguments) if stage == "prepare" else measure(**arguments)
    print(json.dumps(result))
    return 0


# --- the driver --------------------------------------------------------------------------------


def parser(doc: str) -> argparse.ArgumentParser:
    """The options every such bench takes (a script adds its own)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--stage", choices=["prepare", "measure"], help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    parser.add_argument("--learners", type=int, default=40, help="measured per round and code")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", default="", help="a git ref to measure in the same run")
    return parser


def exported(ref: str, into: Path) -> Path:
    """The tree at `ref`, written to `into` (git archive; nothing in the repository changes)."""
    archive = into / "tree.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "archive", ref], cwd=ROOT, stdout=out, check=True)
    tree = into / "tree"
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    return tree


def run_rounds(
    script: str,
    args: argparse.Namespace,
    *,
    database: str,
    kinds: Iterable[str],
    measure_arguments: dict | None = None,
    on_result: Callable[[str, dict], None] | None = None,
) -> dict[str, dict]:
    """Every round's samples per tree ("here", and with `args.against` that ref), measure and
    kind: `script --stage measure` run once per tree and round, in alternating order, each with
    its own learners and `measure_arguments`; `on_result(tree, result)` sees each result first."""
    from bench.serving import (
        backend_env,
        fresh_postgres_database,
        json_child,
        postgres_available,
    )

    if not postgres_available():
        raise SystemExit("PostgreSQL does not answer on 127.0.0.1:5432")
    kinds = tuple(kinds)
    with tempfile.TemporaryDirectory(prefix=f"softgrade-{bench_name(script)}-") as workdir:
        env = backend_env(database=fresh_postgres_database(database))
        trees = {"here": ROOT}
        if args.against:
            trees = {args.against: exported(args.against, Path(workdir)), **trees}

        def in_child(stage: str, root: Path, arguments: dict) -> dict:
            argv = [script, "--stage", stage, "--root", str(root)]
            return json_child(argv, env=env, arguments=arguments, cwd=root, timeout=3600)

        per_child = WARM_UP + args.learners + COUNTED
        total = per_child * len(trees) * args.rounds
        print(f"preparing the exam and {total} learners …", flush=True)
        setup = in_child("prepare", ROOT, {"learners": total})
        learners = iter(setup["learners"])
        samples: dict[str, dict] = {name: {} for name in trees}
        for round_ in range(args.rounds):
            for name in round_order(trees, round_):
                print(f"round {round_ + 1}/{args.rounds}: {name}", flush=True)
                part = [next(learners) for _ in range(per_child)]
                arguments = {"quiz": setup["quiz"], "learners": part, **(measure_arguments or {})}
                result = in_child("measure", trees[name], arguments)
                if on_result:
                    on_result(name, result)
                gather(samples[name], result, kinds)
    return samples


def main(
    doc: str,
    script: str,
    measure: Callable[..., dict],
    kinds: tuple[str, ...],
    database: str,
    table: Table,
) -> int:
    """A whole bench without options of its own: a child's stage, or the rounds, their `table` and
    bench-results/NAME.json (NAME from the script's, e.g. sheet-profile.json)."""
    args = parser(doc).parse_args()
    if args.stage:
        return child(args.stage, args.root, measure=measure)
    samples = run_rounds(script, args, database=database, kinds=kinds)
    report = {
        name: summary(
            by_measure,
            kinds,
            count=table.count,
            digits=table.digits,
            with_mean=table.with_mean,
            sampled_only=table.sampled_only,
        )
        for name, by_measure in samples.items()
    }
    lines = report_lines(report, column=table.column, width=table.width, count=table.count)
    print("\n" + "\n".join(lines))
    write_result(script, report)
    return 0


def bench_name(script: str) -> str:
    """The name a bench's results and temporary files go by: `bench/sheet_profile.py` gives
    `sheet-profile`."""
    return Path(script).stem.replace("_", "-")


def write_result(script: str, payload: dict) -> None:
    """Write `payload` to bench-results/NAME.json (NAME from `script`'s) and say where."""
    out_dir = ROOT / "bench-results"
    out_dir.mkdir(exist_ok=True)
    out = out_dir / f"{bench_name(script)}.json"
    out.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"wrote {out}")
