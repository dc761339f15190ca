"""The learners before and after one on the attempt page, in the results grid's order: the
same attempt rule, search, status filter, sort and grouping (teaching.results.query), so an
instructor goes through the attempts as the grid lists them ("learner 4 of 27").

Only the learners with an attempt to open are counted: a learner listed without one (no attempt
the rule counts) has nothing to review. A learner's attempt to open is the first the grid lists
for them (under every attempt, their first in the sort's order).
"""

from __future__ import annotations

from dataclasses import dataclass

from courses.models import Quiz
from grading.models import Attempt
from teaching.results.pages import grid_rows
from teaching.results.query import GridQuery
from teaching.results.reads import Learner


@dataclass(frozen=True)
class Neighbour:
    learner: Learner
    attempt_id: int


@dataclass(frozen=True)
class Neighbours:
    # The learner's place (from 1) among the learners listed with an attempt; None when the
    # grid's query does not list them (a search or a filter that leaves them out).
    position: int | None
    learners: int
    previous: Neighbour | None
    next: Neighbour | None


def attempt_neighbours(*, attempt: Attempt, quiz: Quiz, query: GridQuery) -> Neighbours:
    """Where `attempt`'s learner is in the grid `query` lists, and the learners either side."""
    _, rows = grid_rows(
        quiz=quiz,
        rule=query.rule,
        grouped=query.grouped,
        search=query.search,
        sort=query.sort,
        status=query.status,
    )
    listed: list[Neighbour] = []
    seen: set[int] = set()
    for row in rows:
        if row.attempt is None or row.learner.user_id in seen:
            continue
        seen.add(row.learner.user_id)
        listed.append(Neighbour(row.learner, row.attempt.pk))
    place = next(
        (index for index, entry in enumerate(listed) if entry.learner.user_id == attempt.user_id),
        None,
    )
    if place is None:
        return Neighbours(None, len(listed), None, None)
    return Neighbours(
        position=place + 1,
        learners=len(listed),
        previous=listed[place - 1] if place > 0 else None,
        next=listed[place + 1] if place + 1 < len(listed) else None,
    )
