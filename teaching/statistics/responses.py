"""Response analysis per item: how often each choice was picked, and for problems how often each
named misconception, each generic diagnosis, correct, invalid and unexplained wrong answers came
up, with counts, shares and the learners behind each.

Pure Python, no Django import. The data layer reads the responses of a quiz in a bounded number
of queries and hands each over as a `ResponseRow`, field for field from `grading.models.Response`;
which rows (every try, or only the tries that count) is its choice, and every row given counts.

Where only the counts are wanted (the statistics API and its CSV), the database may group the
responses instead: `count_responses` takes a `ResponseGroup` per item, status, misconception and
diagnosis with how many responses share them, and each choice's number of picks, and counts them
by the same rule (`outcomes`) as `analyse_responses`, so the two never disagree.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

CORRECT, INCORRECT, INVALID = "correct", "incorrect", "invalid"


@dataclass(frozen=True, slots=True)
class ResponseRow:
    """One stored response: Response.id, .user_id, .quiz_item_id, .status, .misconception,
    .detail["diagnosis"] and the ids of .choices."""

    response: int
    learner: int
    item: int | str  # the item's id; a pool member's key (teaching.statistics.pools.entry_key)
    status: str  # correct, incorrect or invalid ("recorded" is shown, never stored)
    misconception: str = ""  # a named mistake's or a wrong choice's code; "" when none
    diagnosis: str | None = None  # a generic slip's code (sign-flipped, factor-sqrt-dk…)
    choices: tuple[int, ...] = ()  # the choices picked, for a question


@dataclass(frozen=True, slots=True)
class ItemSpec:
    """A quiz item to analyse: QuizItem.id (or a pool member's key) and, for a question, its
    choices' ids in order."""

    item: int | str
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

    item: int | str
    responses: int
    correct: Tally
    incorrect: Tally  # every wrong answer, explained or not
    invalid: Tally
    unexplained: Tally  # wrong, with neither a named misconception nor a diagnosis
    choices: tuple[Tally, ...]  # a question's choices in order, unpicked ones with 0
    misconceptions: tuple[Tally, ...]  # most frequent first
    diagnoses: tuple[Tally, ...]  # most frequent first


@dataclass(frozen=True, slots=True)
class ItemCounts:
    """One item's responses counted every way the statistics API shows them, without the
    learners: (key, count) pairs, choices in order, the others most frequent first."""

    item: int | str
    responses: int
    correct: int
    incorrect: int
    invalid: int
    unexplained: int
    choices: tuple[tuple[int, int], ...]
    misconceptions: tuple[tuple[str, int], ...]
    diagnoses: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class ResponseGroup:
    """`count` responses to `item` sharing a status, a misconception ("" when none) and a
    diagnosis (None when none): rows the database grouped for count_responses."""

    item: int | str
    status: str
    misconception: str
    diagnosis: str | None
    count: int


STATUSES = frozenset((CORRECT, INCORRECT, INVALID))
UNEXPLAINED = "unexplained"


def outcomes(status: str, misconception: str, diagnosis: str | None) -> list[tuple[str, str]]:
    """What one response counts towards, as (kind, key) pairs: its status; when wrong, its
    named misconception and its generic diagnosis, or ("unexplained", …) when it has neither.
    The one rule both analyse_responses and count_responses follow."""
    found = [("status", status)]
    if status != INCORRECT:
        return found
    if misconception:
        found.append(("misconception", misconception))
    if diagnosis:
        found.append(("diagnosis", diagnosis))
    if not misconception and not diagnosis:
        found.append((UNEXPLAINED, UNEXPLAINED))
    return found


def _specs(items: Sequence[ItemSpec]) -> dict[int | str, ItemSpec]:
    specs = {spec.item: spec for spec in items}
    if len(specs) != len(items):
        raise ValueError("an item is listed twice")
    return specs


def _check(specs: Mapping[int | str, ItemSpec], item: int | str, status: str, what: str) -> None:
    if item not in specs:
        raise ValueError(f"{what} answers item {item}, not analysed")
    if status not in STATUSES:
        raise ValueError(f"{what} has status {status!r}")


def analyse_responses(
    items: Sequence[ItemSpec], rows: Iterable[ResponseRow]
) -> tuple[ItemResponses, ...]:
    """Each item's ItemResponses, in the order of `items`; a row for another item is refused."""
    specs = _specs(items)
    by_item: dict[int | str, list[ResponseRow]] = {spec.item: [] for spec in items}
    # Built once: a quiz of 3,000 learners brings tens of thousands of rows.
    choices = {spec.item: frozenset(spec.choices) for spec in items}
    for row in rows:
        _check(specs, row.item, row.status, f"response {row.response}")
        if row.choices and not choices[row.item].issuperset(row.choices):
            unknown = sorted(set(row.choices) - choices[row.item])
            raise ValueError(f"response {row.response} picked {unknown}, not a choice")
        by_item[row.item].append(row)
    return tuple(_item(spec, by_item[spec.item]) for spec in items)


def count_responses(
    items: Sequence[ItemSpec],
    groups: Iterable[ResponseGroup],
    picks: Mapping[tuple[int | str, int], int],
) -> tuple[ItemCounts, ...]:
    """Each item's ItemCounts, in the order of `items`, from grouped responses and the number
    of an item's responses that picked each choice ((item id, choice id) -> count; an unpicked
    choice may be absent); a group for another item is refused."""
    specs = _specs(items)
    tallies: dict[int | str, dict[tuple[str, str], int]] = {
        spec.item: defaultdict(int) for spec in items
    }
    totals = dict.fromkeys(specs, 0)
    for group in groups:
        _check(specs, group.item, group.status, f"a group of {group.count} responses")
        totals[group.item] += group.count
        for outcome in outcomes(group.status, group.misconception, group.diagnosis):
            tallies[group.item][outcome] += group.count
    found = []
    for spec in items:
        tally = tallies[spec.item]
        found.append(
            ItemCounts(
                item=spec.item,
                responses=totals[spec.item],
                correct=tally[("status", CORRECT)],
                incorrect=tally[("status", INCORRECT)],
                invalid=tally[("status", INVALID)],
                unexplained=tally[(UNEXPLAINED, UNEXPLAINED)],
                choices=tuple((c, picks.get((spec.item, c), 0)) for c in spec.choices),
                misconceptions=_ranked_counts(tally, "misconception"),
                diagnoses=_ranked_counts(tally, "diagnosis"),
            )
        )
    return tuple(found)


def _tally(key: int | str, rows: Sequence[ResponseRow], total: int) -> Tally:
    return Tally(
        key=key,
        count=len(rows),
        share=len(rows) / total if total else None,
        learners=tuple(sorted({row.learner for row in rows})),
        responses=tuple(row.response for row in rows),
    )


def _ranked(groups: dict[str, list[ResponseRow]], total: int) -> tuple[Tally, ...]:
    # Most frequent first, then by key: as count_responses ranks.
    ordered = sorted(groups.items(), key=lambda pair: (-len(pair[1]), pair[0]))
    return tuple(_tally(key, rows, total) for key, rows in ordered)


def _item(spec: ItemSpec, rows: list[ResponseRow]) -> ItemResponses:
    total = len(rows)
    by_status: dict[str, list[ResponseRow]] = defaultdict(list)
    picked: dict[int, list[ResponseRow]] = {choice: [] for choice in spec.choices}
    misconceptions: dict[str, list[ResponseRow]] = defaultdict(list)
    diagnoses: dict[str, list[ResponseRow]] = defaultdict(list)
    unexplained: list[ResponseRow] = []
    lists = {"status": by_status, "misconception": misconceptions, "diagnosis": diagnoses}
    for row in rows:
        for choice in dict.fromkeys(row.choices):
            picked[choice].append(row)
        for kind, key in outcomes(row.status, row.misconception, row.diagnosis):
            if kind == UNEXPLAINED:
                unexplained.append(row)
            else:
                lists[kind][key].append(row)
    return ItemResponses(
        item=spec.item,
        responses=total,
        correct=_tally(CORRECT, by_status[CORRECT], total),
        incorrect=_tally(INCORRECT, by_status[INCORRECT], total),
        invalid=_tally(INVALID, by_status[INVALID], total),
        unexplained=_tally(UNEXPLAINED, unexplained, total),
        choices=tuple(_tally(choice, picked[choice], total) for choice in spec.choices),
        misconceptions=_ranked(misconceptions, total),
        diagnoses=_ranked(diagnoses, total),
    )


def _ranked_counts(tally: Mapping[tuple[str, str], int], kind: str) -> tuple[tuple[str, int], ...]:
    """The counts of one kind, most frequent first, then by key (as _ranked orders tallies)."""
    pairs = [(key, count) for (found, key), count in tally.items() if found == kind]
    return tuple(sorted(pairs, key=lambda pair: (-pair[1], pair[0])))


def counts_of(analysis: ItemResponses) -> ItemCounts:
    """The ItemCounts of a full analysis: what count_responses gives for the same responses."""
    return ItemCounts(
        item=analysis.item,
        responses=analysis.responses,
        correct=analysis.correct.count,
        incorrect=analysis.incorrect.count,
        invalid=analysis.invalid.count,
        unexplained=analysis.unexplained.count,
        choices=tuple((int(tally.key), tally.count) for tally in analysis.choices),
        misconceptions=tuple((str(t.key), t.count) for t in analysis.misconceptions),
        diagnoses=tuple((str(t.key), t.count) for t in analysis.diagnoses),
    )


# ---------------------------------------------------------------------------------------------
# The values typed at a numeric item (a problem): what learners typed, most frequent first
# ---------------------------------------------------------------------------------------------

# Values equal to this many significant digits are one value: "0.50", ".5" and "1/2" are 0.5;
# "0.1+0.2" is 0.3 although the floats differ in their last bit.
SIGNIFICANT_DIGITS = 12


@dataclass(frozen=True, slots=True)
class TypedAnswer:
    """One response to a problem: its row, what the learner typed (Response.text) and the
    value grading read (Response.detail["parsed"]: a number, a list, a list of rows; None when
    the text could not be read)."""

    row: ResponseRow
    text: str
    parsed: object = None


@dataclass(frozen=True, slots=True)
class ValueTally:
    """One value learners typed and what it was taken for: its count, share and learners."""

    typed: str  # the most frequent spelling of the value (the first typed among equals)
    spellings: int  # how many different spellings were grouped ("0.50", ".5": 2)
    status: str  # correct, incorrect or invalid
    misconception: str  # the named misconception's code; "" when none
    diagnosis: str | None  # the generic slip's code; None when none
    tally: Tally

    @property
    def correct(self) -> bool:
        return self.status == CORRECT


def _number(value: float) -> float:
    rounded = float(f"{value:.{SIGNIFICANT_DIGITS}g}")
    return 0.0 if rounded == 0 else rounded  # -0.0 is 0


def value_key(answer: TypedAnswer) -> tuple:
    """What makes two answers the same value: the numbers grading read, each to
    SIGNIFICANT_DIGITS, in their shape; for text grading could not read, the text with its
    spacing ignored.

    >>> row = ResponseRow(1, 1, 1, "correct")
    >>> value_key(TypedAnswer(row, "0.50", 0.5)) == value_key(TypedAnswer(row, ".5", 0.5))
    True
    """

    def normal(value: object) -> object:
        if isinstance(value, list):
            return tuple(normal(entry) for entry in value)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return _number(float(value))
        raise TypeError(value)

    if answer.row.status != INVALID and answer.parsed is not None:
        try:
            return ("value", normal(answer.parsed))
        except TypeError:
            pass  # a stored value of another shape: the text says what was typed
    return ("text", " ".join(answer.text.split()))


def typed_values(answers: Iterable[TypedAnswer]) -> tuple[ValueTally, ...]:
    """The values of one problem's responses, one row per value and outcome (learners have
    their own numbers, so one value can be right for one and a misconception for another),
    most frequent first; then right answers first, then by the value as typed."""
    groups: dict[tuple, list[TypedAnswer]] = defaultdict(list)
    total = 0
    for answer in answers:
        row = answer.row
        if row.status not in STATUSES:
            raise ValueError(f"response {row.response} has status {row.status!r}")
        total += 1
        groups[(value_key(answer), row.status, row.misconception, row.diagnosis)].append(answer)
    found = []
    for (_, status, misconception, diagnosis), group in groups.items():
        spellings: dict[str, int] = defaultdict(int)
        for answer in group:
            spellings[answer.text.strip()] += 1
        typed = max(spellings, key=spellings.__getitem__)  # the first of equals: dicts keep order
        found.append(
            ValueTally(
                typed=typed,
                spellings=len(spellings),
                status=status,
                misconception=misconception,
                diagnosis=diagnosis,
                tally=_tally(typed, [answer.row for answer in group], total),
            )
        )
    found.sort(key=lambda value: (-value.tally.count, not value.correct, value.typed))
    return tuple(found)
