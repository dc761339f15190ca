"""Misconception profiles: which named misconceptions each learner showed, and whether they later
answered the same family of items right; and for a course, per misconception, how many learners
showed it and how many of them later got its family right.

Pure Python, no Django import. The data layer hands over a course's counted tries (`TryRow`, one
per Response that counts as a try), in the order they were made.

**Family.** Problems of one engine family share it (dot-variance, softmax…); a formula problem is
a family of its own, and so is a question. **Instance.** What a learner answered: a variant (its
numbers) for a problem, an attempt's sitting of a question.

**Later right.** A learner who showed misconception M on family F later answered F right when a
correct try on F, on another instance, follows their last try showing M there: a new variant
answered right (not the same numbers retried after the feedback). In the course summary a learner
counts as later right on M when that holds for every family they showed M in.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

CORRECT = "correct"


@dataclass(frozen=True, slots=True)
class TryRow:
    """One counted try: Response.id, .user_id, its family and instance (see the module
    docstring), .status, .misconception ("" when none) and .attempt_id (None in practice)."""

    response: int
    learner: int
    family: str
    instance: Hashable
    status: str
    misconception: str = ""
    attempt: int | None = None


@dataclass(frozen=True, slots=True)
class Shown:
    """A learner showed `misconception` on `family` `times` times; `last` is the latest such
    try (and its attempt); `later_right` the first correct try on the family, on another
    instance, after it (None: not yet)."""

    learner: int
    misconception: str
    family: str
    times: int
    first: int
    last: int
    last_attempt: int | None
    later_right: int | None


@dataclass(frozen=True, slots=True)
class MisconceptionSummary:
    """One misconception across a course: the learners who showed it, those who later answered
    right every family they showed it in, and the families it came up in."""

    misconception: str
    learners: tuple[int, ...]
    later_right: tuple[int, ...]
    families: tuple[str, ...]
    tries: int  # tries that showed it

    @property
    def still_showing(self) -> tuple[int, ...]:
        right = set(self.later_right)
        return tuple(learner for learner in self.learners if learner not in right)


def profiles(rows: Iterable[TryRow]) -> dict[int, tuple[Shown, ...]]:
    """Per learner, each (misconception, family) they showed, most shown first."""
    by_learner: dict[int, list[TryRow]] = defaultdict(list)
    for row in rows:
        by_learner[row.learner].append(row)
    return {learner: _profile(learner, tries) for learner, tries in by_learner.items()}


def _profile(learner: int, tries: list[TryRow]) -> tuple[Shown, ...]:
    showings: dict[tuple[str, str], list[tuple[int, TryRow]]] = defaultdict(list)
    for position, row in enumerate(tries):
        if row.misconception:
            showings[(row.misconception, row.family)].append((position, row))
    found = []
    for (misconception, family), shown in showings.items():
        last_position, last = shown[-1]
        later = next(
            (
                row.response
                for row in tries[last_position + 1 :]
                if row.family == family and row.status == CORRECT and row.instance != last.instance
            ),
            None,
        )
        found.append(
            Shown(
                learner=learner,
                misconception=misconception,
                family=family,
                times=len(shown),
                first=shown[0][1].response,
                last=last.response,
                last_attempt=last.attempt,
                later_right=later,
            )
        )
    return tuple(sorted(found, key=lambda s: (-s.times, s.misconception, s.family)))


def course_summary(found: dict[int, tuple[Shown, ...]]) -> tuple[MisconceptionSummary, ...]:
    """Per misconception, from every learner's profile; most learners first, then by code."""
    learners: dict[str, set[int]] = defaultdict(set)
    not_yet: dict[str, set[int]] = defaultdict(set)
    families: dict[str, set[str]] = defaultdict(set)
    tries: dict[str, int] = defaultdict(int)
    for learner, shown in found.items():
        for row in shown:
            learners[row.misconception].add(learner)
            families[row.misconception].add(row.family)
            tries[row.misconception] += row.times
            if row.later_right is None:
                not_yet[row.misconception].add(learner)
    summaries = [
        MisconceptionSummary(
            misconception=code,
            learners=tuple(sorted(who)),
            later_right=tuple(sorted(who - not_yet[code])),
            families=tuple(sorted(families[code])),
            tries=tries[code],
        )
        for code, who in learners.items()
    ]
    return tuple(sorted(summaries, key=lambda s: (-len(s.learners), s.misconception)))
