"""The results grid a page of learners at a time, as Moodle's reports do: at thousands of
learners one page of every learner takes many seconds to make and megabytes to send.

Learners are listed by name (teaching.results.reads.by_name) or in a column's order
(teaching.results.grid), or, grouped by LMS course, by LMS course (named ones first, by name,
those from no LMS last) and then so, so each group's learners are consecutive and a page shows
the groups it reaches, a group going on to the next page where it is long. A search keeps the
learners whose name or user name contains the words typed (ignoring case); a status filter the
rows of one status. Sorting by a column and the average row need every learner's scores, so
every learner's attempts and answers are read, in the same few queries as one page's
(teaching.results.reads); only the page's rows are rendered.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from django.core.paginator import Page, Paginator
from django.utils.translation import gettext

from courses.models import Quiz
from teaching.results.grid import (
    DEFAULT_SORT,
    Averages,
    Sort,
    Status,
    averages,
    rows_filter,
    rows_sort,
    sort_check,
)
from teaching.results.reads import (
    NOT_FROM_AN_LMS,
    AttemptRule,
    Learner,
    QuizResults,
    ResultRow,
    by_name,
    quiz_learners,
    quiz_results,
)

LEARNERS_PER_PAGE = 50  # Moodle shows 30 by default; 50 keeps a page with every attempt under 1 s
SEARCH_MAX_LENGTH = 150


def by_lms_course(learner: Learner) -> tuple[bool, str, tuple[str, str, int]]:
    """The grouped grid's order: LMS courses by name, learners from no LMS last, then by_name."""
    return (not learner.lms_context, learner.lms_context, by_name(learner))


def matches(learner: Learner, search: str) -> bool:
    """Whether the learner's name or user name contains `search`, ignoring case."""
    needle = search.casefold()
    return needle in learner.name.casefold() or needle in learner.username.casefold()


@dataclass(frozen=True)
class Group:
    label: str  # the LMS course, NOT_FROM_AN_LMS, or "" when not grouped
    rows: list[ResultRow]
    learners: int  # the group's learners on every page (those the search and filter keep)
    averages: Averages  # over the group's rows on every page


@dataclass(frozen=True)
class ResultsPage:
    results: QuizResults  # the page's learners only
    page: Page
    groups: list[Group]
    search: str
    sort: Sort = DEFAULT_SORT
    status: Status | None = None

    @property
    def learners(self) -> int:
        """Every learner the search and the filter keep, on all pages."""
        return self.page.paginator.count


def grid_rows(
    *,
    quiz: Quiz,
    rule: AttemptRule,
    grouped: bool,
    search: str,
    sort: Sort = DEFAULT_SORT,
    status: Status | None = None,
) -> tuple[QuizResults, list[ResultRow]]:
    """Every learner's rows of the grid (all pages) under `rule`, of the learners `search` keeps
    (all when empty), those of `status` (teaching.results.grid), in the sort's order within LMS
    courses when `grouped`: the quiz's results, and the rows in order. A fixed number of
    queries (teaching.results.reads.quiz_results) whatever the number of learners. Raises
    teaching.results.grid.SortError for a sort by an item not in the quiz."""
    learners = quiz_learners(quiz=quiz)
    if search:
        learners = [learner for learner in learners if matches(learner, search)]
    found = quiz_results(quiz=quiz, rule=rule, learners=learners)
    sort_check(sort, found.items)
    rows = rows_filter(found.rows, status)
    return found, rows_sort(rows, sort, group=lms_group if grouped else None)


def lms_group(learner: Learner) -> tuple[bool, str]:
    """A learner's group when the grid groups by LMS course: named courses by name, then those
    from no LMS (by_lms_course without the name)."""
    return by_lms_course(learner)[:2]


def results_page(
    *,
    quiz: Quiz,
    rule: AttemptRule,
    grouped: bool,
    search: str,
    number: int,
    sort: Sort = DEFAULT_SORT,
    status: Status | None = None,
) -> ResultsPage:
    """Page `number` (from 1) of the quiz's results grid under `rule`, grouped by LMS course or
    not, of the learners `search` keeps (all when empty) with a row of `status` (all when None),
    in the `sort`'s order (teaching.results.grid), with each group's average row over all its
    pages. Raises django.core.paginator's InvalidPage for a page that does not exist (page 1
    always does, empty or not)."""
    found, rows = grid_rows(
        quiz=quiz, rule=rule, grouped=grouped, search=search, sort=sort, status=status
    )
    # A page is a number of learners, each with all their rows (every attempt: several).
    learners: list[Learner] = []
    rows_of: dict[int, list[ResultRow]] = {}
    for row in rows:
        if row.learner.user_id not in rows_of:
            learners.append(row.learner)
            rows_of[row.learner.user_id] = []
        rows_of[row.learner.user_id].append(row)
    page = Paginator(learners, LEARNERS_PER_PAGE).page(number)
    shown = [row for learner in page.object_list for row in rows_of[learner.user_id]]
    results = QuizResults(quiz=quiz, rule=rule, items=found.items, rows=shown)
    not_from_an_lms = gettext(NOT_FROM_AN_LMS)
    context = (lambda learner: learner.lms_context or not_from_an_lms) if grouped else None
    every: dict[str, list[ResultRow]] = defaultdict(list)
    sizes: Counter[str] = Counter()
    for learner in learners:
        label = context(learner) if context else ""
        sizes[label] += 1
        every[label].extend(rows_of[learner.user_id])
    groups: list[Group] = []
    for row in shown:
        label = context(row.learner) if context else ""
        if not groups or groups[-1].label != label:
            groups.append(Group(label, [], sizes[label], averages(every[label], found.items)))
        groups[-1].rows.append(row)
    return ResultsPage(results, page, groups, search, sort, status)
