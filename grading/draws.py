"""Pools: which member of a pool each pool item of an attempt shows, decided once per attempt.

When an attempt starts, every pool of its quiz lines up its members by a secret key (an HMAC of
the server's secret, a purpose label of its own, the attempt, the pool and the member: the same
derivation as the variant seeds and the orders of grading/ordering.py, so no new source of
randomness), and its items, in stored order, take the first members of that line-up: k items
naming one pool show k different members. Learners can neither choose nor predict their draw;
two attempts draw independently.

The draw is written down (AttemptDraw) when the attempt starts, and every later read takes it
from there: editing the pool changes no attempt already begun. items_as_drawn hands the rest of
grading a pool item carrying the drawn question or problem, so the pages, the API, grading and
the scores read it as any other item; scores stay per item, so each drawn entry is worth its
item's points.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from django.conf import settings
from django.db.models import Prefetch, QuerySet
from django.utils.translation import ngettext

from courses.models import Choice, Pool, Problem, Question, QuizItem
from grading import engine
from grading.models import Attempt, AttemptDraw
from grading.services.errors import QuizNotOpen

POOL_DRAW = "attempt-pool-draw"


class Member(NamedTuple):
    """One member of a pool: ("question", id) or ("problem", id)."""

    kind: str
    id: int


def draw[Entry](members: Iterable[Entry], *, k: int, key: Callable[[Entry], int]) -> list[Entry]:
    """The k members with the smallest keys, smallest first (k distinct members).

    >>> draw("abcd", k=2, key={"a": 3, "b": 1, "c": 2, "d": 0}.get)
    ['d', 'b']
    """
    return sorted(members, key=key)[:k]


def member_key(*, attempt_id: int, pool_id: int, member: Member) -> int:
    """The secret key of one pool member in one attempt."""
    return engine.derive_seed(
        settings.SECRET_KEY, POOL_DRAW, attempt_id, pool_id, member.kind, member.id
    )


def pool_members(pool_ids: Iterable[int]) -> dict[int, list[Member]]:
    """The members of each pool, questions then problems, each by id: two queries."""
    members: dict[int, list[Member]] = defaultdict(list)
    through = Pool.questions.through.objects.filter(pool_id__in=pool_ids).order_by("question_id")
    for pool_id, question_id in through.values_list("pool_id", "question_id"):
        members[pool_id].append(Member("question", question_id))
    through = Pool.problems.through.objects.filter(pool_id__in=pool_ids).order_by("problem_id")
    for pool_id, problem_id in through.values_list("pool_id", "problem_id"):
        members[pool_id].append(Member("problem", problem_id))
    return members


def attempt_draw(*, attempt: Attempt, items: Sequence[QuizItem]) -> list[AttemptDraw]:
    """Draw and record what each pool item of a new attempt shows (inside the start's
    transaction); the items are handed back as drawn, in place. A pool with fewer members than
    the items naming it refuses the start, with the pool's name."""
    slots: dict[int, list[QuizItem]] = defaultdict(list)
    for item in sorted(items, key=lambda item: (item.order, item.pk)):
        if item.pool_id:
            slots[item.pool_id].append(item)
    if not slots:
        return []
    members = pool_members(slots)
    rows = []
    for pool_id, pool_items in slots.items():
        available = members.get(pool_id, [])
        if len(available) < len(pool_items):
            pool = Pool.objects.get(pk=pool_id)
            raise QuizNotOpen(
                ngettext(
                    "This quiz cannot start: its pool “%(pool)s” has %(count)d question or "
                    "problems for %(items)d items. Please tell your instructor.",
                    "This quiz cannot start: its pool “%(pool)s” has %(count)d questions or "
                    "problems for %(items)d items. Please tell your instructor.",
                    len(available),
                )
                % {"pool": pool.title, "count": len(available), "items": len(pool_items)}
            )
        drawn = draw(
            available,
            k=len(pool_items),
            key=lambda m, pool_id=pool_id: member_key(
                attempt_id=attempt.pk, pool_id=pool_id, member=m
            ),
        )
        for item, member in zip(pool_items, drawn, strict=True):
            rows.append(
                AttemptDraw(
                    attempt=attempt,
                    quiz_item=item,
                    question_id=member.id if member.kind == "question" else None,
                    problem_id=member.id if member.kind == "problem" else None,
                )
            )
    AttemptDraw.objects.bulk_create(rows)
    questions = Question.objects.in_bulk([r.question_id for r in rows if r.question_id])
    problems = Problem.objects.in_bulk([r.problem_id for r in rows if r.problem_id])
    for row in rows:
        row.question = questions.get(row.question_id)
        row.problem = problems.get(row.problem_id)
    _show_drawn(items, rows)
    return rows


def items_as_drawn[Items: Sequence[QuizItem]](
    *, attempt: Attempt, items: Items, choices: QuerySet[Choice] | None = None
) -> Items:
    """The attempt's items with each pool item carrying the question or problem the attempt
    drew (changed in place; `choices`, when given, prefetched for the drawn questions). No query
    when no item draws from a pool.

    A drawn item is never saved: it names a pool and a question or problem, which the item's
    check constraint refuses, so a mistaken save fails instead of changing the quiz.
    """
    pool_items = [item.pk for item in items if item.pool_id]
    if not pool_items:
        return items
    rows = AttemptDraw.objects.filter(attempt=attempt, quiz_item_id__in=pool_items).select_related(
        "question", "problem"
    )
    if choices is not None:
        rows = rows.prefetch_related(Prefetch("question__choices", queryset=choices))
    _show_drawn(items, list(rows))
    return items


def _show_drawn(items: Iterable[QuizItem], rows: Iterable[AttemptDraw]) -> None:
    by_item = {row.quiz_item_id: row for row in rows}
    for item in items:
        row = by_item.get(item.pk)
        if row is not None:
            item.question, item.problem = row.question, row.problem
