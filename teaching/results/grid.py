"""What the results grid does with the rows of every learner before it shows a page of them:
keep those of one status, put them in a column's order, and average each column.

Decided here, once, for the grid and for the attempt page's next and previous learner
(teaching.results.neighbours), so both list the learners in the same order:

- A sort is a column (`learner`, `total`, `time`, `submitted`, or `item-<quiz item id>`) and a
  direction. Cells without a value (no counted attempt, an item not answered, an attempt in
  progress for the time taken) go last in both directions, as spreadsheets put them; ties are
  by name (teaching.results.reads.by_name). A learner with several rows (every attempt) is
  placed by the row that comes first in the sort's direction, and keeps their rows together,
  by attempt number.
- A status filter keeps the rows (attempts) of one status; a learner is listed when a row of
  theirs is kept. In progress: the attempt is in progress (under first, best and last, whose
  rows are submitted attempts, a learner without one who has an attempt in progress). Submitted:
  submitted by the learner. Closed at the deadline: closed by the server when time ran out,
  submitted automatically or left without a score (a learner whose only attempts were left so).
  Overridden: an instructor overrode the score of an item of the attempt.
- The average row gives, per column, the mean of the values the column shows over the rows the
  filter keeps, on every page, and how many rows have a value: an item's mean is over the
  learners who answered it (or whose score an instructor set), the total's over the attempts
  with a score (in progress ones count what they have so far; one never submitted has none).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from django.utils.translation import gettext

from courses.models import QuizItem
from grading.models import Attempt
from teaching.results.reads import Learner, ResultRow, by_name

ITEM_PREFIX = "item-"


class SortColumn(StrEnum):
    LEARNER = "learner"
    TOTAL = "total"
    TIME = "time"
    SUBMITTED = "submitted"
    ITEM = "item"


@dataclass(frozen=True)
class Sort:
    """A column of the grid and a direction; `item` is a quiz item's id for an item column."""

    column: SortColumn = SortColumn.LEARNER
    descending: bool = False
    item: int | None = None

    @property
    def key(self) -> str:
        """The column as the `sort` query parameter names it: total, item-17."""
        if self.column is SortColumn.ITEM:
            return f"{ITEM_PREFIX}{self.item}"
        return self.column.value

    @property
    def value(self) -> str:
        """The `sort` query parameter: the key, with a leading minus when descending."""
        return f"-{self.key}" if self.descending else self.key


DEFAULT_SORT = Sort()


class SortError(ValueError):
    """A `sort` query parameter that names no column of the grid."""


def sort_parse(value: str) -> Sort:
    """The sort a `sort` query parameter asks for: learner, -total, item-17; SortError for
    anything else. Empty is the default, by learner. Whether item-17 is an item of the quiz is
    sort_check's."""
    if not value:
        return DEFAULT_SORT
    descending = value.startswith("-")
    key = value[1:] if descending else value
    if key.startswith(ITEM_PREFIX):
        number = key[len(ITEM_PREFIX) :]
        if not number.isdigit() or len(number) > 18:
            raise SortError(f"sort names no item: {value!r}.")
        return Sort(SortColumn.ITEM, descending, int(number))
    if key not in {column.value for column in SortColumn} - {SortColumn.ITEM.value}:
        raise SortError(
            "sort must be learner, total, time, submitted or item-<item id>, "
            "with a leading - for descending."
        )
    return Sort(SortColumn(key), descending)


def sort_check(sort: Sort, items: Sequence[QuizItem]) -> None:
    """SortError when the sort is by an item that is not one of the quiz's `items`."""
    if sort.column is SortColumn.ITEM and sort.item not in {item.pk for item in items}:
        raise SortError(f"sort names no item of this quiz: {sort.value!r}.")


class Status(StrEnum):
    """The statuses the grid filters by (`?status=`)."""

    IN_PROGRESS = "in_progress"
    SUBMITTED = "submitted"
    CLOSED_AT_DEADLINE = "overdue"
    OVERRIDDEN = "overridden"

    @property
    def label(self) -> str:
        return {
            Status.IN_PROGRESS: gettext("In progress"),
            Status.SUBMITTED: gettext("Submitted by the learner"),
            Status.CLOSED_AT_DEADLINE: gettext("Closed at the deadline (time ran out)"),
            Status.OVERRIDDEN: gettext("With a score override"),
        }[self]


def row_has_status(row: ResultRow, status: Status) -> bool:
    """Whether a row of the grid has `status` (the module's docstring says what each means)."""
    attempt = row.attempt
    if attempt is None:
        if status is Status.IN_PROGRESS:
            return row.answering
        # Every attempt the learner made was closed unsubmitted when time ran out.
        return status is Status.CLOSED_AT_DEADLINE and bool(row.attempts_made) and not row.answering
    if status is Status.IN_PROGRESS:
        return attempt.status == Attempt.Status.IN_PROGRESS
    if status is Status.SUBMITTED:
        return attempt.status == Attempt.Status.SUBMITTED and not attempt.late
    if status is Status.CLOSED_AT_DEADLINE:
        return attempt.late
    return any(cell.status == "override" for cell in row.items)


def rows_filter(rows: Iterable[ResultRow], status: Status | None) -> list[ResultRow]:
    """The rows of `status` (all rows when None)."""
    if status is None:
        return list(rows)
    return [row for row in rows if row_has_status(row, status)]


def total_of(row: ResultRow) -> float | None:
    """The score a row's total column shows: None without an attempt or for one never
    submitted (time ran out at a quiz that gives it no score)."""
    attempt = row.attempt
    if attempt is None or attempt.status == Attempt.Status.NEVER_SUBMITTED:
        return None
    return attempt.score


def item_points(row: ResultRow, item_id: int) -> float | None:
    """The points a row's cell of one item shows; None when not answered (nor overridden)."""
    for cell in row.items:
        if cell.item.pk == item_id:
            return cell.points
    return None


def submitted_at(row: ResultRow) -> datetime | None:
    return None if row.attempt is None else row.attempt.submitted_at


def cell_reader(sort: Sort) -> Callable[[ResultRow], object | None]:
    """What a row shows in the sort's column (None for an empty cell)."""
    if sort.column is SortColumn.TOTAL:
        return total_of
    if sort.column is SortColumn.TIME:
        return lambda row: row.time_taken
    if sort.column is SortColumn.SUBMITTED:
        return submitted_at
    if sort.column is SortColumn.ITEM:
        item = sort.item
        return lambda row: item_points(row, item)
    return lambda row: None


def rows_sort(
    rows: Sequence[ResultRow], sort: Sort, *, group: Callable[[Learner], object] | None = None
) -> list[ResultRow]:
    """The rows in the sort's order (the module's docstring), within `group`s when given (a
    learner's group key, e.g. the LMS course: groups keep the order of their keys)."""
    mine: dict[int, list[ResultRow]] = {}
    for row in rows:
        mine.setdefault(row.learner.user_id, []).append(row)
    for own in mine.values():
        own.sort(key=lambda row: row.attempt.number if row.attempt is not None else 0)

    def placed(own: list[ResultRow]) -> tuple:
        learner = own[0].learner
        grouped = group(learner) if group is not None else ()
        if sort.column is SortColumn.LEARNER:
            name = by_name(learner)
            return (grouped, name) if not sort.descending else (grouped, _Reversed(name))
        read = cell_reader(sort)
        values = [value for value in (read(row) for row in own) if value is not None]
        if not values:
            return (grouped, 1, 0, by_name(learner))
        first = max(values) if sort.descending else min(values)
        return (grouped, 0, _Reversed(first) if sort.descending else first, by_name(learner))

    return [row for own in sorted(mine.values(), key=placed) for row in own]


class _Reversed:
    """A sort key ordered the other way round (for descending within an ascending sort)."""

    __slots__ = ("value",)

    def __init__(self, value: object):
        self.value = value

    def __lt__(self, other: _Reversed) -> bool:
        return other.value < self.value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Reversed) and other.value == self.value


@dataclass(frozen=True)
class ColumnMean:
    """A column of the average row: the mean of its values, and how many rows have one."""

    mean: float | None
    count: int
    maximum: float | None = None  # an item's points


def _mean(values: list[float], maximum: float | None = None) -> ColumnMean:
    return ColumnMean(sum(values) / len(values) if values else None, len(values), maximum)


@dataclass(frozen=True)
class Averages:
    total: ColumnMean
    time: ColumnMean  # in seconds
    items: list[ColumnMean]  # in the quiz's order

    @property
    def time_taken(self) -> timedelta | None:
        return None if self.time.mean is None else timedelta(seconds=self.time.mean)


def averages(rows: Sequence[ResultRow], items: Sequence[QuizItem]) -> Averages:
    """The average row of `rows` (the module's docstring says over what)."""
    totals = [value for value in map(total_of, rows) if value is not None]
    times = [row.time_taken.total_seconds() for row in rows if row.time_taken is not None]
    by_item: dict[int, list[float]] = {item.pk: [] for item in items}
    for row in rows:
        for cell in row.items:
            if cell.points is not None and cell.item.pk in by_item:
                by_item[cell.item.pk].append(cell.points)
    return Averages(
        total=_mean(totals),
        time=_mean(times),
        items=[_mean(by_item[item.pk], item.points) for item in items],
    )
