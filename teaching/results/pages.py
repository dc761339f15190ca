"""The results grid a page of learners at a time, as Moodle's reports do: at thousands of
learners one page of every learner takes many seconds to make and megabytes to send.

Learners are listed by name (teaching.results.reads.by_name), or, grouped by LMS course, by LMS
course (named ones first, by name, those from no LMS last) and then by name, so each group's
learners are consecutive and a page shows the groups it reaches, a group going on to the next
page where it is long. A search keeps the learners whose name or user name contains the words typed
(ignoring case). Only the page's learners' attempts and answers are read (teaching.results.reads).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from django.core.paginator import Page, Paginator

from courses.models import Quiz
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
    learners: int  # the group's learners on every page (those the search keeps)


@dataclass(frozen=True)
class ResultsPage:
    results: QuizResults  # the page's learners only
    page: Page
    groups: list[Group]
    search: str

    @property
    def learners(self) -> int:
        """Every learner the search keeps, on all pages."""
        return self.page.paginator.count


def results_page(
    *, quiz: Quiz, rule: AttemptRule, grouped: bool, search: str, number: int
) -> ResultsPage:
    """Page `number` (from 1) of the quiz's results grid under `rule`, grouped by LMS course or
    not, of the learners `search` keeps (all when empty). Raises django.core.paginator's
    InvalidPage for a page that does not exist (page 1 always does, empty or not)."""
    learners = quiz_learners(quiz=quiz)
    if search:
        learners = [learner for learner in learners if matches(learner, search)]
    if grouped:
        learners.sort(key=by_lms_course)
    page = Paginator(learners, LEARNERS_PER_PAGE).page(number)
    found = quiz_results(quiz=quiz, rule=rule, learners=page.object_list)
    if not grouped:
        return ResultsPage(found, page, [Group("", found.rows, len(learners))], search)
    sizes = Counter(learner.lms_context for learner in learners)
    groups: list[Group] = []
    for row in found.rows:
        context = row.learner.lms_context
        if not groups or groups[-1].label != (context or NOT_FROM_AN_LMS):
            groups.append(Group(context or NOT_FROM_AN_LMS, [], sizes[context]))
        groups[-1].rows.append(row)
    return ResultsPage(found, page, groups, search)
