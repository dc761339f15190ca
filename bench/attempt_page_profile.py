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

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import ab_rounds  # noqa: E402

PG_BENCH_DB = os.environ.get("BENCH_PG_DATABASE", "softgrade_attempt_page_profile")
KINDS = ("first page", "sheet store", "first page, stored", "page again", "page, 16 saved")


# --- inside a Django child (production settings, the bench database, one tree's code) ----------


def measure(*, quiz: str, learners: list[dict]) -> dict:
    """Each learner's three pages; per kind the CPU samples and the statements."""
    from django.test import Client
    from django.urls import reverse

    from bench.exam_pages import form, sheet_fields
    from grading.models import Attempt
    from grading.services.attempts import attempt_start
    from grading.services.responses import attempt_answers_save

    exam, users = ab_rounds.exam_and_users(quiz, learners)

    def page(client: Client, take: str, expect: str) -> str:
        answer = client.get(take)
        text = answer.content.decode()
        if answer.status_code != 200 or expect not in text:
            raise SystemExit(f"the attempt page is not what it should be: {text[:300]!r}")
        return text

    def save_all(attempt_id: int, text: str, index: int) -> None:
        _, sent = sheet_fields(form(text, form_id="sheet"), save=0, learner=index, action="save")
        answers = ab_rounds.sheet_answers(sent)
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

    return ab_rounds.journey_samples(learners, journey, KINDS)


# --- the driver --------------------------------------------------------------------------------


def main() -> int:
    table = ab_rounds.Table(
        column="page",
        width=22,
        count="pages",
        digits=2,
        sampled_only=True,  # code without stored sheets has no `sheet store`
    )
    return ab_rounds.main(__doc__, __file__, measure, KINDS, PG_BENCH_DB, table)


if __name__ == "__main__":
    sys.exit(main())
