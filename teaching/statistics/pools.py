"""Statistics of quizzes that draw from pools: per question or problem, whatever item an attempt
drew it into (grading.draws).

The quiz's items that draw from pools give way, in the statistics, to one entry per member any
attempt drew (an unsaved item carrying the member, keyed by `entry_key`), at the place of the
first item drawing from its pool. A member's figures are those of the attempts that drew it (an
attempt that never saw a question neither got it right nor wrong), each attempt's score for the
item it drew the member into counting for the member, against the rest of the quiz in those
attempts (as the best-known LMS breaks a random question's statistics down per question); its
intended weight is its points over the quiz's. The quiz level reads the quiz's own items, each
pool item scoring what the attempt drew into it, as for any quiz.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt
from django.db.models import Q

from courses.models import Problem, Question, Quiz, QuizItem
from grading.models import AttemptDraw
from teaching.statistics import figures as quiz_statistics
from teaching.statistics.figures import QuizReport

FloatArray = npt.NDArray[np.float64]


def entry_key(item: QuizItem) -> int | str:
    """An item's key in the statistics: its id, or for a pool member (an unsaved item carrying
    the member, from drawn_members) "question-<id>" or "problem-<id>", whatever item drew it."""
    if not item.pool_id:
        return item.pk
    return f"question-{item.question_id}" if item.question_id else f"problem-{item.problem_id}"


def drawn_members(items: list[QuizItem]) -> list[QuizItem]:
    """The items with those drawing from pools replaced by one unsaved item per member any
    attempt drew (questions, then problems, each by id), at the place of the first item drawing
    from the member's pool and worth its points; a member of two pools the quiz draws from sits
    with the first of them. Three queries when a pool item exists, else none."""
    firsts: dict[int, QuizItem] = {}  # pool id -> the first item drawing from it
    for item in items:
        if item.pool_id:
            firsts.setdefault(item.pool_id, item)
    if not firsts:
        return items
    drawn = (
        AttemptDraw.objects.filter(quiz_item__in=[i for i in items if i.pool_id])
        .order_by()
        .values_list("quiz_item__pool_id", "question_id", "problem_id")
        .distinct()
    )
    place = {pool_id: index for index, pool_id in enumerate(firsts)}
    home: dict[tuple[int | None, int | None], int] = {}  # (question, problem) -> pool id
    for pool_id, question_id, problem_id in drawn:
        key = (question_id, problem_id)
        if key not in home or place[pool_id] < place[home[key]]:
            home[key] = pool_id
    questions = Question.objects.in_bulk({q for q, _ in home if q})
    problems = Problem.objects.in_bulk({p for _, p in home if p})

    def member(first: QuizItem, **content: Question | Problem) -> QuizItem:
        return QuizItem(
            pk=first.pk,
            quiz_id=first.quiz_id,
            pool_id=first.pool_id,
            points=first.points,
            order=first.order,
            **content,
        )

    kept: list[QuizItem] = []
    for item in items:
        if not item.pool_id:
            kept.append(item)
        elif firsts[item.pool_id] is item:
            mine = [key for key, pool_id in home.items() if pool_id == item.pool_id]
            kept += [member(item, question=questions[q]) for q in sorted(q for q, _ in mine if q)]
            kept += [member(item, problem=problems[p]) for p in sorted(p for _, p in mine if p)]
    return kept


def member_of_draw(*, quiz: Quiz) -> dict[tuple[int, int], str]:
    """(attempt id, pool item id) -> the entry_key of the member the attempt drew. One query."""
    rows = AttemptDraw.objects.filter(attempt__quiz=quiz).order_by()
    return {
        (attempt_id, item_id): f"question-{question_id}" if question_id else f"problem-{problem_id}"
        for attempt_id, item_id, question_id, problem_id in rows.values_list(
            "attempt_id", "quiz_item_id", "question_id", "problem_id"
        )
    }


def answered(item: QuizItem) -> Q:
    """The responses that count for an entry: to the item, or for a pool member, to any item
    of its quiz that drew it."""
    if not item.pool_id:
        return Q(quiz_item=item)
    pool_items = Q(quiz_item__quiz_id=item.quiz_id, quiz_item__pool__isnull=False)
    if item.question_id:
        return pool_items & Q(question_id=item.question_id)
    return pool_items & Q(variant__problem_id=item.problem_id)


# What a response's row reads besides, in a quiz with pool items, to name the member it
# answered (answer_entry): the question, or the problem of its variant.
ANSWERED_FIELDS = ("question_id", "variant__problem_id")


def answer_entry(
    pool_items: Collection[int],
) -> Callable[[int, int | None, int | None], int | str]:
    """The entry a response counts for, from its item, question and variant's problem ids: its
    item, or for a response to a pool item the member it answered (as `answered` selects)."""

    def entry(item_id: int, question_id: int | None, problem_id: int | None) -> int | str:
        if item_id not in pool_items:
            return item_id
        return f"question-{question_id}" if question_id else f"problem-{problem_id}"

    return entry


def pooled_report(
    *,
    slots: Sequence[QuizItem],
    entries: Sequence[QuizItem],
    attempt_ids: Sequence[int],
    scores: FloatArray,
    totals: Sequence[float],
    guesses: Sequence[float | None],
    drawn: dict[tuple[int, int], str],
) -> QuizReport:
    """The statistics of a quiz with pool items (see the module docstring): `scores` and
    `guesses` are per entry (columns of `entries`), `slots` the quiz's own items."""
    columns = {entry_key(entry): index for index, entry in enumerate(entries)}
    by_slot = np.full((len(attempt_ids), len(slots)), np.nan)
    drew: dict[str, list[tuple[int, int]]] = defaultdict(list)  # key -> (row, slot index)
    for row, attempt_id in enumerate(attempt_ids):
        for index, slot in enumerate(slots):
            key = drawn.get((attempt_id, slot.pk)) if slot.pool_id else slot.pk
            if key is not None and key in columns:
                by_slot[row, index] = scores[row, columns[key]]
                if slot.pool_id:
                    drew[str(key)].append((row, index))
    marks = [float(slot.points) for slot in slots]
    slot_guesses = [None if s.pool_id else guesses[columns[s.pk]] for s in slots]
    whole = quiz_statistics.quiz_statistics(by_slot, marks, totals, slot_guesses)
    figures = {slot.pk: whole.items[index] for index, slot in enumerate(slots)}
    items = []
    for position, entry in enumerate(entries, start=1):
        if entry.pool_id:
            # The attempts that drew the member, the member first and then the quiz's items,
            # the item each drew it into left empty: the rest of the quiz is the rest.
            drawn_at = drew.get(str(entry_key(entry)), [])
            rows = [row for row, _ in drawn_at]
            column = columns[entry_key(entry)]
            sub = np.column_stack([scores[rows, column], by_slot[rows]])
            for position_in_sub, (_, index) in enumerate(drawn_at):
                sub[position_in_sub, 1 + index] = np.nan
            alone = quiz_statistics.quiz_statistics(
                sub,
                [float(entry.points), *marks],
                [totals[row] for row in rows],
                [guesses[column], *slot_guesses],
            ).items[0]
            found = replace(alone, intended_weight=entry.points / sum(marks))
        else:
            found = figures[entry.pk]
        items.append(replace(found, position=position))
    return QuizReport(quiz=whole.quiz, items=tuple(items))
