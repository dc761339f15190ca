"""A quiz's statistics as LMS dashboards read them: one document (the statistics API's JSON) and
the same item rows as CSV.

Every figure is a fraction (0 to 1) and None (JSON null, an empty CSV cell) where it is
undefined; items come in quiz order. An item's `responses` counts every response of the counted
attempts (teaching.statistics.data): by status, the wrong ones no misconception or diagnosis
explains, by choice picked (a question's choices in their authored order), by named
misconception and by generic diagnosis (most frequent first). CSV cells go through the
gradebook's spreadsheet_safe, so no cell is read as a formula.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from typing import Any

from teaching.findings import finding_label
from teaching.numbers import FRACTION_UNIT, csv_header
from teaching.results.gradebook import spreadsheet_safe
from teaching.statistics.data import QuizData, entry_key
from teaching.statistics.figures import QUIZ_FIGURES, SHARES
from teaching.statistics.responses import ItemCounts

ITEM_FIGURES = (
    "facility",
    "sd",
    "random_guess_score",
    "intended_weight",
    "effective_weight",
    "discrimination_index",
    "discriminative_efficiency",
)
STATUSES = ("correct", "incorrect", "invalid", "unexplained")
# A figure that is a share of the item's maximum says so in its header (teaching/numbers.py):
# facility_fraction, 0 to 1, where the page shows a percentage; the JSON document keeps the
# figures' own names.
FIGURE_COLUMNS = {
    name: csv_header(name, FRACTION_UNIT) if name in SHARES else name for name in ITEM_FIGURES
}
CSV_COLUMNS = [
    "item",
    "drawn",  # a pool's member (statistics_data's entry_key); empty for any other item
    "position",
    *FIGURE_COLUMNS.values(),
    "responses",
    *STATUSES,
    "choices",
    "misconceptions",
    "diagnoses",
]


def response_counts(counts: ItemCounts) -> dict[str, Any]:
    """An item's responses counted by status, choice, misconception and diagnosis."""
    return {
        "total": counts.responses,
        **{status: getattr(counts, status) for status in STATUSES},
        "choices": [{"choice": key, "count": count} for key, count in counts.choices],
        "misconceptions": [{"code": key, "count": count} for key, count in counts.misconceptions],
        "diagnoses": [
            {"code": key, "kind": finding_label(key).kind, "count": count}
            for key, count in counts.diagnoses
        ],
    }


def statistics_document(data: QuizData) -> dict[str, Any]:
    """{"quiz": {n, mean, …}, "items": [{item, position, facility, …, responses}]}."""
    report = data.report()
    quiz = {"n": report.quiz.n, **{name: getattr(report.quiz, name) for name in QUIZ_FIGURES}}
    items = [
        {
            "item": item.pk,
            # A pool's member: what it is, since every member shares its pool's item id.
            "drawn": entry_key(item) if item.pool_id else None,
            "position": figures.position,
            **{name: getattr(figures, name) for name in ITEM_FIGURES},
            "responses": response_counts(counts),
        }
        for item, figures, counts in zip(
            data.items, report.items, data.response_counts(), strict=True
        )
    ]
    return {"quiz": quiz, "items": items}


class _Line:
    """A file-like sink for csv.writer that hands back each line it is given."""

    def write(self, line: str) -> str:
        return line


def _pairs(rows: list[dict[str, Any]], key: str) -> str:
    """Counts in one cell: "17=3; 18=0"."""
    return "; ".join(f"{row[key]}={row['count']}" for row in rows)


def statistics_csv_lines(data: QuizData) -> Iterator[str]:
    """The document's item rows as CSV lines, header first (CSV_COLUMNS)."""
    writer = csv.writer(_Line())
    yield writer.writerow(CSV_COLUMNS)
    for row in statistics_document(data)["items"]:
        counts = row["responses"]
        cells = [
            row["item"],
            row["drawn"] or "",
            row["position"],
            *(row[name] for name in ITEM_FIGURES),
            counts["total"],
            *(counts[status] for status in STATUSES),
            _pairs(counts["choices"], "choice"),
            _pairs(counts["misconceptions"], "code"),
            _pairs(counts["diagnoses"], "code"),
        ]
        yield writer.writerow([spreadsheet_safe(cell) for cell in cells])
