"""Response analysis per item: how often each choice was picked, and for problems how often each
named misconception, each generic diagnosis, correct, invalid and unexplained wrong answers came
up, with counts, shares and the learners behind each.

Pure Python, no Django import. The data layer reads the responses of a quiz in a bounded number
of queries and hands each over as a `ResponseRow`, field for field from `grading.models.Response`;
which rows (every try, or only the tries that count) is its choice, and every row given counts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

CORRECT, INCORRECT, INVALID = "correct", "incorrect", "invalid"


@dataclass(frozen=True, slots=True)
class ResponseRow:
    """One stored response: Response.id, .user_id, .quiz_item_id, .status, .misconception,
    .detail["diagnosis"] and the ids of .choices."""

    response: int
    learner: int
    item: int
    status: str  # correct, incorrect or invalid ("recorded" is shown, never stored)
    misconception: str = ""  # a named mistake's or a wrong choice's code; "" when none
    diagnosis: str | None = None  # a generic slip's code (sign-flipped, factor-sqrt-dk…)
    choices: tuple[int, ...] = ()  # the choices picked, for a question


@dataclass(frozen=True, slots=True)
class ItemSpec:
    """A quiz item to analyse: QuizItem.id and, for a question, its choices' ids in order."""

    item: int
    choices: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Tally:
    """How often one thing came up among an item's responses, and who it was."""

    key: int | str  # a choice id, a misconception or diagnosis code, or a status
    count: int
    share: float | None  # of the item's responses; None when it has none
    learners: tuple[int, ...]  # distinct, ascending
    responses: tuple[int, ...]  # in the order given


@dataclass(frozen=True, slots=True)
class ItemResponses:
    """One item's responses, counted every way the report shows them."""

    item: int
    responses: int
    correct: Tally
    incorrect: Tally  # every wrong answer, explained or not
    invalid: Tally
    unexplained: Tally  # wrong, with neither a named misconception nor a diagnosis
    choices: tuple[Tally, ...]  # a question's choices in order, unpicked ones with 0
    misconceptions: tuple[Tally, ...]  # most frequent first
    diagnoses: tuple[Tally, ...]  # most frequent first


def analyse_responses(
    items: Sequence[ItemSpec], rows: Iterable[ResponseRow]
) -> tuple[ItemResponses, ...]:
    """Each item's ItemResponses, in the order of `items`; a row for another item is refused."""
    specs = {spec.item: spec for spec in items}
    if len(specs) != len(items):
        raise ValueError("an item is listed twice")
    by_item: dict[int, list[ResponseRow]] = {spec.item: [] for spec in items}
    # Built once: a quiz of 3,000 learners brings tens of thousands of rows.
    choices = {spec.item: frozenset(spec.choices) for spec in items}
    statuses = frozenset((CORRECT, INCORRECT, INVALID))
    for row in rows:
        if row.item not in specs:
            raise ValueError(f"response {row.response} answers item {row.item}, not analysed")
        if row.status not in statuses:
            raise ValueError(f"response {row.response} has status {row.status!r}")
        if row.choices and not choices[row.item].issuperset(row.choices):
            unknown = sorted(set(row.choices) - choices[row.item])
            raise ValueError(f"response {row.response} picked {unknown}, not a choice")
        by_item[row.item].append(row)
    return tuple(_item(spec, by_item[spec.item]) for spec in items)


def _tally(key: int | str, rows: Sequence[ResponseRow], total: int) -> Tally:
    return Tally(
        key=key,
        count=len(rows),
        share=len(rows) / total if total else None,
        learners=tuple(sorted({row.learner for row in rows})),
        responses=tuple(row.response for row in rows),
    )


def _ranked(groups: dict[str, list[ResponseRow]], total: int) -> tuple[Tally, ...]:
    ordered = sorted(groups.items(), key=lambda pair: (-len(pair[1]), pair[0]))
    return tuple(_tally(key, rows, total) for key, rows in ordered)


def _item(spec: ItemSpec, rows: list[ResponseRow]) -> ItemResponses:
    total = len(rows)
    by_status: dict[str, list[ResponseRow]] = defaultdict(list)
    picked: dict[int, list[ResponseRow]] = {choice: [] for choice in spec.choices}
    misconceptions: dict[str, list[ResponseRow]] = defaultdict(list)
    diagnoses: dict[str, list[ResponseRow]] = defaultdict(list)
    unexplained: list[ResponseRow] = []
    for row in rows:
        by_status[row.status].append(row)
        for choice in dict.fromkeys(row.choices):
            picked[choice].append(row)
        if row.status != INCORRECT:
            continue
        if row.misconception:
            misconceptions[row.misconception].append(row)
        if row.diagnosis:
            diagnoses[row.diagnosis].append(row)
        if not row.misconception and not row.diagnosis:
            unexplained.append(row)
    return ItemResponses(
        item=spec.item,
        responses=total,
        correct=_tally(CORRECT, by_status[CORRECT], total),
        incorrect=_tally(INCORRECT, by_status[INCORRECT], total),
        invalid=_tally(INVALID, by_status[INVALID], total),
        unexplained=_tally("unexplained", unexplained, total),
        choices=tuple(_tally(choice, picked[choice], total) for choice in spec.choices),
        misconceptions=_ranked(misconceptions, total),
        diagnoses=_ranked(diagnoses, total),
    )
