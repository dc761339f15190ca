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

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import ab_rounds  # noqa: E402

PG_BENCH_DB = os.environ.get("BENCH_PG_DATABASE", "softgrade_sheet_profile")
KINDS = ("service, first save", "service, all changed", "form, save + page", "script save")


# --- inside a Django child (production settings, the bench database, one tree's code) ----------


def measure(*, quiz: str, learners: list[dict]) -> dict:
    """Each learner's four saves; per kind the CPU samples and the statements."""
    from django.test import Client

    from bench.exam_pages import form, sheet_fields
    from grading.models import Attempt
    from grading.services.responses import attempt_answers_save

    exam, users = ab_rounds.exam_and_users(quiz, learners)

    def service(attempt_id: int, sheet, save: int, index: int) -> None:
        _, sent = sheet_fields(sheet, save=save, learner=index, action="save")
        answers = ab_rounds.sheet_answers(sent)
        attempt = Attempt.objects.select_related("quiz").get(pk=attempt_id)
        recorded = attempt_answers_save(
            attempt=attempt, answers=answers, idempotency_key=f"s{save}"
        )
        if len(recorded) != len(answers):
            raise SystemExit(f"the service saved {len(recorded)} of {len(answers)} answers")

    def form_save(client: Client, sheet, save: int, index: int) -> str:
        fields, sent = sheet_fields(sheet, save=save, learner=index, action="save")
        posted = client.post(sheet.action, ab_rounds.form_data(fields))
        page = client.get(posted["Location"]).content.decode()
        if f"Saved {len(sent)} answers." not in page:
            raise SystemExit("the page after the form's save did not confirm it")
        return page

    def journey(spec: dict, index: int, step) -> None:
        """One learner's four saves, each run through `step(kind, call)`."""
        client, attempt, sheet = ab_rounds.opened_sheet(spec, users[spec["name"]], exam)
        step(KINDS[0], lambda: service(attempt.pk, sheet, 0, index))
        step(KINDS[1], lambda: service(attempt.pk, sheet, 1, index))
        page = step(KINDS[2], lambda: form_save(client, sheet, 2, index))
        sheet = form(page, form_id="sheet")  # its fresh submission token
        step(KINDS[3], lambda: ab_rounds.script_save(client, sheet, save=3, learner=index))

    return ab_rounds.journey_samples(learners, journey, KINDS)


# --- the driver --------------------------------------------------------------------------------


def main() -> int:
    table = ab_rounds.Table(column="save", width=24, count="saves")
    return ab_rounds.main(__doc__, __file__, measure, KINDS, PG_BENCH_DB, table)


if __name__ == "__main__":
    sys.exit(main())
