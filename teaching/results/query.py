"""The results grid's query parameters, read once for the grid and for the attempt page (whose
next and previous learner follow the grid's order): which attempts (`attempts`), grouped by
LMS course (`group=lms`), a search (`q`), a sort (`sort`) and a status filter (`status`).

Anything the grid cannot show is a 400 with the reason (django's BadRequest), as for
`attempts` before; a page number is the grid's own (a 404 when out of range).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.core.exceptions import BadRequest
from django.http import QueryDict
from django.utils.translation import gettext

from courses.models import QuizItem
from teaching.results.grid import DEFAULT_SORT, Sort, SortColumn, SortError, Status, sort_parse
from teaching.results.pages import SEARCH_MAX_LENGTH
from teaching.results.reads import AttemptRule

GROUPS = ("", "lms")


@dataclass(frozen=True)
class GridQuery:
    rule: AttemptRule
    rule_given: bool  # whether `attempts` was in the query (else the default rule)
    grouped: bool
    search: str
    sort: Sort
    status: Status | None

    def params(self, **changes: str) -> dict[str, str]:
        """The query's parameters as the grid's links carry them (defaults left out), with
        `changes` (an empty value removes the parameter)."""
        params = {
            "attempts": self.rule.value if self.rule_given else "",
            "group": "lms" if self.grouped else "",
            "q": self.search,
            "status": self.status.value if self.status else "",
            "sort": self.sort.value if self.sort != DEFAULT_SORT else "",
        }
        params.update(changes)
        return {name: value for name, value in params.items() if value}

    def encoded(self, **changes: str) -> str:
        """params() as a query string, without the question mark ("" when nothing is set)."""
        return urlencode(self.params(**changes))


def grid_query(get: QueryDict, *, default_rule: AttemptRule) -> GridQuery:
    """The grid's parameters from a request's query; BadRequest with the reason for any value
    the grid cannot show."""
    value = get.get("attempts", "")
    if value and value not in {rule.value for rule in AttemptRule}:
        choices = ", ".join(rule.value for rule in AttemptRule)
        raise BadRequest(f"attempts must be one of {choices}.")
    group = get.get("group", "")
    if group not in GROUPS:
        raise BadRequest("group must be lms, or left out.")
    search = get.get("q", "").strip()
    if len(search) > SEARCH_MAX_LENGTH:
        raise BadRequest(f"A search is at most {SEARCH_MAX_LENGTH} characters.")
    status = get.get("status", "")
    if status and status not in {choice.value for choice in Status}:
        choices = ", ".join(choice.value for choice in Status)
        raise BadRequest(f"status must be one of {choices}, or left out.")
    try:
        sort = sort_parse(get.get("sort", ""))
    except SortError as error:
        raise BadRequest(str(error)) from None
    return GridQuery(
        rule=AttemptRule(value) if value else default_rule,
        rule_given=bool(value),
        grouped=bool(group),
        search=search,
        sort=sort,
        status=Status(status) if status else None,
    )


@dataclass(frozen=True)
class HeaderSort:
    """A sortable column header: the link that sorts by it (the other direction when the grid
    is sorted by it already) and its aria-sort ("none" when the grid is not sorted by it)."""

    query: str
    aria_sort: str
    next_direction: str  # "ascending" or "descending": what following the link does

    @property
    def next_label(self) -> str:
        """What following the link does, in words for screen readers (the page's language)."""
        if self.next_direction == "descending":
            return gettext("sort descending")
        return gettext("sort ascending")


def _header(query: GridQuery, sort: Sort) -> HeaderSort:
    current = query.sort.key == sort.key
    descending = current and not query.sort.descending
    target = Sort(sort.column, descending, sort.item)
    aria = "none"
    if current:
        aria = "descending" if query.sort.descending else "ascending"
    return HeaderSort(
        query=query.encoded(sort=target.value if target != DEFAULT_SORT else ""),
        aria_sort=aria,
        next_direction="descending" if descending else "ascending",
    )


def header_sorts(query: GridQuery, items: list[QuizItem]) -> dict[str, object]:
    """Each sortable header of the grid: learner, total, time, submitted by name, and `items`,
    a list in the quiz's order."""
    headers: dict[str, object] = {
        column.value: _header(query, Sort(column))
        for column in SortColumn
        if column is not SortColumn.ITEM
    }
    headers["items"] = [_header(query, Sort(SortColumn.ITEM, item=item.pk)) for item in items]
    return headers
