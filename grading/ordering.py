"""The order a learner sees an attempt in: its items, and each question's choices.

Decided here, once. `attempt_order` is the only place that orders an attempt; the attempt page,
the results page and every attempt endpoint of the API read it through
`grading.selectors.attempt_sheet`, so a learner sees one order everywhere, on every reload.

Every item and every choice gets a sort key: an HMAC of the server's secret with a purpose label,
the attempt and the entry's id (the same derivation as the variant seeds, under labels of its
own, so an order tells nothing about a variant's numbers). Learners can neither choose nor
predict their order, two attempts get independent orders, and an entry keeps its key when the
instructor adds or removes another one, so an edit during an exam moves nothing else around.

An attempt records at its start whether its quiz shuffles (`Attempt.shuffle_items`,
`Attempt.shuffle_choices`): changing a quiz's settings never reorders an attempt already begun.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from django.conf import settings

from courses.models import Choice, Question, QuizItem
from grading import engine
from grading.models import Attempt

ITEM_ORDER = "attempt-item-order"
CHOICE_ORDER = "attempt-choice-order"


class ArrangedItem(NamedTuple):
    """One item where this attempt shows it, with its question's choices in this attempt's order
    (empty for a problem)."""

    item: QuizItem
    choices: list[Choice]


def arrange[Entry](
    entries: Iterable[Entry],
    *,
    key: Callable[[Entry], int],
    pinned: Callable[[Entry], bool] = lambda entry: False,
) -> list[Entry]:
    """Entries in stored order, rearranged by their keys; a pinned entry keeps its position.

    >>> arrange("abcd", key={"a": 3, "b": 1, "c": 2, "d": 0}.get, pinned=lambda e: e == "d")
    ['b', 'c', 'a', 'd']
    """
    stored = list(entries)
    moving = iter(sorted((entry for entry in stored if not pinned(entry)), key=key))
    return [entry if pinned(entry) else next(moving) for entry in stored]


def order_key(*, purpose: str, attempt_id: int, entry_id: int) -> int:
    """The secret sort key of one item or choice in one attempt."""
    return engine.derive_seed(settings.SECRET_KEY, purpose, attempt_id, entry_id)


def choice_order(
    *, attempt: Attempt, question: Question, choices: Sequence[Choice]
) -> list[Choice]:
    """A question's choices (in stored order) as this attempt shows them.

    True/false questions keep "True, False": swapping two choices hides nothing, since picking
    by position is then the same as picking by text.
    """
    if not attempt.shuffle_choices or question.kind == Question.Kind.TRUE_FALSE:
        return list(choices)
    return arrange(
        choices,
        key=lambda choice: order_key(
            purpose=CHOICE_ORDER, attempt_id=attempt.pk, entry_id=choice.pk
        ),
        pinned=lambda choice: choice.pinned,
    )


def attempt_order(*, attempt: Attempt, items: Sequence[QuizItem]) -> list[ArrangedItem]:
    """The quiz's items (in stored order, questions with their choices fetched) as this attempt
    shows them. Touches no database: the callers fetch the rows once."""
    if attempt.shuffle_items:
        items = arrange(
            items,
            key=lambda item: order_key(purpose=ITEM_ORDER, attempt_id=attempt.pk, entry_id=item.pk),
        )
    arranged = []
    for item in items:
        choices = []
        if item.question_id:
            stored = list(item.question.choices.all())
            choices = choice_order(attempt=attempt, question=item.question, choices=stored)
        arranged.append(ArrangedItem(item, choices))
    return arranged
