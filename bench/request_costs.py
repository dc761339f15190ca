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

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import ab_rounds  # noqa: E402

PG_BENCH_DB = os.environ.get("BENCH_PG_DATABASE", "softgrade_request_costs")
KINDS = ("script save", "submit", "results", "plain page")


def measure(*, quiz: str, learners: list[dict], profile: bool = False) -> dict:
    """Each learner's requests; per kind the CPU samples and the statements."""
    import cProfile
    import io
    import pstats
    import time

    from django.test import Client
    from django.urls import reverse

    from bench.exam_pages import with_token

    exam, users = ab_rounds.exam_and_users(quiz, learners)

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
        client, attempt, sheet = ab_rounds.opened_sheet(spec, users[spec["name"]], exam)
        token = step(KINDS[0], lambda: ab_rounds.script_save(client, sheet, save=0, learner=index))
        sheet = with_token(sheet, token)
        step(KINDS[0], lambda: ab_rounds.script_save(client, sheet, save=1, learner=index))
        step(KINDS[1], lambda: submit(client, attempt.pk))
        step(KINDS[2], lambda: results(client, attempt.pk))
        step(KINDS[3], lambda: plain(client))

    profiles = {kind: cProfile.Profile(time.process_time) for kind in KINDS}

    def profiled(kind, call):
        return profiles[kind].runcall(call)

    sql: dict[str, list[str]] = {}

    def keep_sql(kind: str, queries: list[dict]) -> None:
        sql[kind] = [query["sql"][:300] for query in queries]

    samples = ab_rounds.journey_samples(
        learners,
        journey,
        KINDS,
        measured_step=profiled if profile else None,
        on_counted=keep_sql,
    )
    printed = {}
    if profile:
        for kind, profiler in profiles.items():
            out = io.StringIO()
            stats = pstats.Stats(profiler, stream=out)
            stats.sort_stats("cumulative").print_stats(int(os.environ.get("PROFILE_LINES", "45")))
            stats.sort_stats("tottime").print_stats(25)
            printed[kind] = out.getvalue() + "\n".join(sql.get(kind, []))
    return {**samples, "profiles": printed}


# --- the driver --------------------------------------------------------------------------------


def main() -> int:
    parser = ab_rounds.parser(__doc__)
    parser.add_argument("--profile", action="store_true", help="print where the CPU goes")
    args = parser.parse_args()
    if args.stage:
        return ab_rounds.child(args.stage, args.root, measure=measure)

    def print_profiles(name: str, result: dict) -> None:
        for kind, text in result.pop("profiles").items():
            print(f"\n===== {name}: {kind} =====\n{text}")

    samples = ab_rounds.run_rounds(
        __file__,
        args,
        database=PG_BENCH_DB,
        kinds=KINDS,
        measure_arguments={"profile": args.profile},
        on_result=print_profiles,
    )
    report = {
        name: ab_rounds.summary(
            by_measure, KINDS, count="requests", with_mean=False, sampled_only=True
        )
        for name, by_measure in samples.items()
    }
    load = Path("/proc/loadavg").read_text().strip()
    print(f"\nload average at the end: {load}")
    print(
        "\n".join(
            ab_rounds.report_lines(
                report, column="request", width=14, count="requests", count_heading="count"
            )
        )
    )
    ab_rounds.write_result(__file__, {"load_average": load, "report": report})
    return 0


if __name__ == "__main__":
    sys.exit(main())
