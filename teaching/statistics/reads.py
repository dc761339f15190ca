"""How the statistics read the responses of a quiz's counted attempts (teaching.statistics.data
says what they read and why): the attempts a rule counts as a query the responses' reads filter
by, the score matrix's rows, the response analysis's rows, and the API's grouped counts, each in
one query. In a quiz with pool items, a pool item's response counts for the member it answered
(teaching.statistics.pools.answer_entry).
"""

from __future__ import annotations

from collections import defaultdict
from operator import attrgetter
from typing import Any

from django.db.models import (
    CharField,
    Count,
    Exists,
    F,
    IntegerField,
    OuterRef,
    QuerySet,
    TextField,
    Value,
)
from django.db.models.fields.json import KT, KeyTransform
from django.db.models.functions import NullIf

from courses.models import Quiz, QuizItem
from grading import scores
from grading.models import Attempt, Response
from teaching.results.reads import AttemptRule
from teaching.statistics.pools import ANSWERED_FIELDS, answer_entry, answered, entry_key
from teaching.statistics.responses import ResponseGroup, ResponseRow, TypedAnswer

# The attempts statistics count: one per learner (the first submitted), or every submitted one.
RULES = (AttemptRule.FIRST, AttemptRule.ALL)
# What the scoring rules (grading.scores.Scored) read of a response, and the attempt it is in.
_SCORED_FIELDS = ("id", "attempt_id", "quiz_item_id", "score", "counts_as_try", "created_at")
# What the response analysis reads besides (teaching.statistics.responses.ResponseRow).
_ANALYSED_FIELDS = ("id", "user_id", "attempt_id", "quiz_item_id", "status", "misconception")


def counted_query(*, quiz: Quiz, rule: AttemptRule) -> QuerySet[Attempt]:
    """The submitted attempts `rule` counts, as a query the responses' reads filter by too, so
    the database never hands over the answers of attempts the statistics leave out (two thirds
    of them for first attempts when learners make three). First: no earlier submitted attempt of
    the same learner, the rule of teaching.results.reads.attempts_counted, which still picks from
    what this returns (one attempt per learner, so it agrees by construction)."""
    if rule not in RULES:
        raise ValueError(f"Statistics count first or all submitted attempts, not {rule!r}.")
    submitted = Attempt.objects.counted().filter(scores.SUBMITTED, quiz=quiz)
    if rule is AttemptRule.ALL:
        return submitted
    earlier = Attempt.objects.counted().filter(
        scores.SUBMITTED, quiz=quiz, user=OuterRef("user"), number__lt=OuterRef("number")
    )
    return submitted.filter(~Exists(earlier))


def _diagnosis() -> NullIf:
    """The generic diagnosis read out of Response.detail by the database, as text with no JSON
    to decode per row; SQLite gives a JSON null as "null"."""
    return NullIf(KT("detail__diagnosis"), Value("null"), output_field=TextField())


def of_counted(*, quiz: Quiz, rule: AttemptRule, item: QuizItem | None) -> QuerySet[Response]:
    """The responses to the attempts `rule` counts (to one entry when given: pool_statistics.
    answered), unordered."""
    rows = Response.objects.filter(attempt__in=counted_query(quiz=quiz, rule=rule).values("pk"))
    if item is not None:
        rows = rows.filter(answered(item))
    return rows.order_by()


def scored_rows(*, quiz: Quiz, rule: AttemptRule) -> list[Any]:
    """Every response to the attempts `rule` counts, oldest first, as named rows of the fields
    the scoring rules read (_SCORED_FIELDS). One query.

    Named rows, not model instances: a quiz of 3,000 learners has tens of thousands of
    responses, and building a model instance for each costs ten times the query itself.
    """
    found = of_counted(quiz=quiz, rule=rule, item=None)
    # Sorted here: the database would spill the rows to disk to sort them.
    return sorted(
        found.values_list(*_SCORED_FIELDS, named=True), key=attrgetter("created_at", "id")
    )


def response_rows(
    *, quiz: Quiz, rule: AttemptRule, item: QuizItem | None, counted: set[int], pools: set[int]
) -> list[tuple[ResponseRow, int]]:
    """Every response to the attempts `rule` counts (to one entry when given) whose attempt is
    in `counted`, oldest first, as a ResponseRow with the ids of the choices it picked
    (ascending), and the id of its attempt; a response to one of the `pools` items counts for
    the member it answered. One query: the choices are joined, one row per choice picked (or
    one with none)."""
    found = of_counted(quiz=quiz, rule=rule, item=item).annotate(diagnosis=_diagnosis())
    extra = ANSWERED_FIELDS if pools else ()
    entry = answer_entry(pools)
    rows = sorted(
        found.values_list(*_ANALYSED_FIELDS, "diagnosis", *extra, "choices", "created_at"),
        key=lambda row: (row[-1], row[0]),
    )
    by_response: dict[int, tuple[tuple, list[int]]] = {}
    for row in rows:
        if row[2] not in counted:
            continue
        kept = by_response.setdefault(row[0], (row, []))
        if row[-2] is not None:
            kept[1].append(row[-2])
    # Positional: tens of thousands of rows, and keywords cost a third of the time.
    return [
        (
            ResponseRow(
                response,  # id
                row[1],  # learner
                entry(row[3], row[7], row[8]) if pools else row[3],  # item
                row[4],  # status
                row[5],  # misconception
                row[6] or None,  # diagnosis
                tuple(sorted(choices)),
            ),
            row[2],  # attempt
        )
        for response, (row, choices) in by_response.items()
    ]


def typed_answers(
    *, quiz: Quiz, rule: AttemptRule, item: QuizItem, counted: set[int]
) -> list[TypedAnswer]:
    """Every response to one problem entry (as `of_counted` selects it) in the attempts `rule`
    counts whose attempt is in `counted`, oldest first, with the text typed and the value
    grading read (detail["parsed"], decoded by the database's JSON: no row's whole detail is
    read). One query."""
    found = of_counted(quiz=quiz, rule=rule, item=item).annotate(
        diagnosis=_diagnosis(), parsed=KeyTransform("parsed", "detail")
    )
    rows = found.values_list(*_ANALYSED_FIELDS, "diagnosis", "text", "parsed", "created_at")
    key = entry_key(item)
    return [
        TypedAnswer(
            ResponseRow(pk, learner, key, status, misconception, diagnosis or None),
            text,
            parsed,
        )
        for pk, learner, attempt, _, status, misconception, diagnosis, text, parsed, _ in (
            sorted(rows, key=lambda row: (row[-1], row[0]))
        )
        if attempt in counted
    ]


def grouped_counts(
    *, quiz: Quiz, rule: AttemptRule, pools: set[int]
) -> tuple[list[ResponseGroup], dict[tuple[int | str, int], int]]:
    """The responses to the attempts `rule` counts, grouped by item, status, misconception and
    diagnosis with their number, and the number of each item's that picked each choice. One query:
    the two groupings side by side (UNION ALL), a row of the second naming its choice. With
    `pools` items, grouped by what was answered too: a pool item's count for their member."""
    counted = counted_query(quiz=quiz, rule=rule).values("pk")
    none = Value(None, output_field=IntegerField())
    # What a pool item's response answered (pool_statistics.ANSWERED_FIELDS), else nothing.
    asked = {"asked": F("question_id"), "drawn": F("variant__problem_id")} if pools else {}
    groups = (
        of_counted(quiz=quiz, rule=rule, item=None)
        .annotate(diagnosis=_diagnosis(), picked=none, **asked)
        .values("quiz_item_id", "status", "misconception", "diagnosis", "picked", *asked)
        .annotate(responses=Count("id"))
    )
    asked = {"asked": F("response__question_id"), "drawn": none} if pools else {}
    # A picked choice is a row of the many-to-many table, one per response and choice.
    blank = Value("", output_field=CharField())
    picks = (
        Response.choices.through.objects.filter(response__attempt__in=counted)
        .order_by()
        .annotate(
            item=F("response__quiz_item_id"),
            no_status=blank,
            no_misconception=blank,
            no_diagnosis=Value(None, output_field=TextField()),
            picked=F("choice_id"),
            **asked,
        )
        .values("item", "no_status", "no_misconception", "no_diagnosis", "picked", *asked)
        .annotate(responses=Count("id"))
    )
    entry = answer_entry(pools)
    found: list[ResponseGroup] = []
    picked: dict[tuple[int | str, int], int] = defaultdict(int)
    for row in groups.union(picks, all=True).order_by():
        item = row["quiz_item_id"]
        key = entry(item, row["asked"], row["drawn"]) if pools else item
        if row["picked"] is not None:
            picked[(key, row["picked"])] += row["responses"]
            continue
        found.append(
            ResponseGroup(
                key,
                row["status"],
                row["misconception"],
                row["diagnosis"] or None,
                row["responses"],
            )
        )
    return found, picked
