"""A quiz's gradebook as CSV: one line per learner (site sign-ups, integrations' learners and
LMS learners alike) with the score of the attempt the chosen rule counts.

The lines are made as the response is sent (a generator), from teaching.results.grades, so the file,
the results grid and the grades API agree. A cell a spreadsheet would read as a formula
(starting with = + - @, a tab or a carriage return: names and emails come from learners, LMSs
and integrations) is prefixed with an apostrophe.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from datetime import UTC

from courses.models import Quiz
from teaching.numbers import POINTS_UNIT, csv_header
from teaching.results.grades import quiz_grades
from teaching.results.reads import AttemptRule

# The score columns name their unit (teaching/numbers.py): points, as the grid shows them.
COLUMNS = [
    "learner",
    "name",
    "email",
    "lms_course",
    "attempts",
    "attempt",
    csv_header("score", POINTS_UNIT),
    csv_header("max_score", POINTS_UNIT),
    # The moment in UTC, ISO 8601 with its +00:00, whatever zone the instructor reads pages in.
    "submitted_at_utc",
]

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: object) -> object:
    """The value as a cell no spreadsheet runs as a formula; None as an empty cell."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return f"'{value}"
    return "" if value is None else value


class _Line:
    """A file-like sink for csv.writer that hands back each line it is given."""

    def write(self, line: str) -> str:
        return line


def line_writer():
    """A csv.writer whose writerow hands back the line, for a response made as it is sent."""
    return csv.writer(_Line())


def gradebook_lines(*, quiz: Quiz, rule: AttemptRule) -> Iterator[str]:
    """The CSV's lines, header first: per learner by name, the attempt `rule` counts (first,
    best or last submitted) with its score, or empty cells when none is submitted."""
    grades = quiz_grades(quiz=quiz, rule=rule)
    writer = line_writer()
    yield writer.writerow(COLUMNS)
    for learner, grade in grades:
        cells = [
            learner.username,
            learner.name,
            learner.email,
            learner.lms_context,
            grade.attempts,
            grade.attempt_number,
            grade.score,
            grade.max_score,
            grade.submitted_at.astimezone(UTC).isoformat() if grade.submitted_at else None,
        ]
        yield writer.writerow([spreadsheet_safe(cell) for cell in cells])
