"""The records behind a quiz's statistics and response analysis, read in a fixed number of
queries whatever the number of learners, attempts, answers and items.

- **Which attempts**: submitted ones only (an attempt in progress has no grade yet). By default
  each learner's first submitted attempt (teaching.results.attempts_counted's rule, as the
  results grid counts it), as Moodle does; on request every submitted attempt, each counted as
  if another learner had made it (docs/statistics.md).
- **Scores**: per attempt and item, grading.scores.item_scores (the try that counts; an
  instructor's override wins), as a fraction of the item's maximum; NaN where the attempt has
  neither a counted answer nor an override for the item. Totals are `Attempt.score`.
- **Random guess scores**: teaching.quiz_statistics.random_guess_score from each question's kind
  and choices; 0 for a problem.
- **Responses**: every response recorded in the counted attempts (every try, every saved
  answer, invalid input too), as teaching.response_analysis.ResponseRow with the choices picked
  (one query, the many-to-many table joined); or, where only counts are wanted (the API),
  grouped and counted by the database (`QuizData.response_counts`), counted by the same rule.

The statistics page and the API read `quiz_data`, an item's response analysis page
`item_data`: one reading of the records, so they never disagree.

**Speed** (docs/performance.md): a quiz of 3,000 learners has 90,000 responses. The score
matrix reads only the columns the scoring rules read, the API's response counts come grouped
from the database, and no model instance is made per response.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import numpy as np
import numpy.typing as npt
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
from django.db.models.fields.json import KT
from django.db.models.functions import NullIf

from courses.models import Choice, Quiz, QuizItem
from grading import scores
from grading.models import Attempt, Response
from teaching import quiz_statistics
from teaching.quiz_statistics import QUIZ_FIGURES, QuizReport, QuizStatistics
from teaching.response_analysis import (
    ItemCounts,
    ItemResponses,
    ItemSpec,
    ResponseGroup,
    ResponseRow,
    analyse_responses,
    count_responses,
)
from teaching.results import AttemptRule, attempts_counted

FloatArray = npt.NDArray[np.float64]

# The attempts statistics count: one per learner (the first submitted), or every submitted one.
RULES = (AttemptRule.FIRST, AttemptRule.ALL)
RULE_LABELS = {
    AttemptRule.FIRST: "First submitted attempt of each learner",
    AttemptRule.ALL: "Every submitted attempt",
}

NO_ITEMS = "the quiz has no items yet"

# What the scoring rules (grading.scores.Scored) read of a response, and the attempt it is in.
_SCORED_FIELDS = ("id", "attempt_id", "quiz_item_id", "score", "counts_as_try", "created_at")
# What the response analysis reads besides (teaching.response_analysis.ResponseRow).
_ANALYSED_FIELDS = ("id", "user_id", "attempt_id", "quiz_item_id", "status", "misconception")


@dataclass(frozen=True)
class QuizData:
    """A quiz's counted attempts as the statistics read them."""

    quiz: Quiz
    rule: AttemptRule
    items: list[QuizItem]  # in quiz order
    choices: dict[int, list[Choice]]  # a question item's choices in their authored order
    attempts: list[Attempt]  # the rows of `scores`, each with its learner
    scores: FloatArray  # attempts × items: fractions of each item's maximum, NaN: no answer
    # Every response of the counted attempts, oldest first, as _scored reads them (the fields
    # the scoring rules read).
    answers: list[Any]

    @property
    def max_marks(self) -> list[float]:
        return [float(item.points) for item in self.items]

    @property
    def max_score(self) -> float:
        return float(sum(self.max_marks))

    @property
    def totals(self) -> list[float]:
        return [attempt.score for attempt in self.attempts]

    def random_guess_scores(self) -> list[float | None]:
        return [item_guess(item, self.choices.get(item.pk, [])) for item in self.items]

    def item_specs(self) -> list[ItemSpec]:
        return [
            ItemSpec(item.pk, tuple(choice.pk for choice in self.choices.get(item.pk, [])))
            for item in self.items
        ]

    def report(self) -> QuizReport:
        """Moodle's quiz and item statistics of these attempts; for a quiz without items yet,
        the number of attempts and no figure (scores have no maximum)."""
        if not self.items:
            undefined = dict.fromkeys(QUIZ_FIGURES, NO_ITEMS)
            figures = dict.fromkeys(QUIZ_FIGURES)
            level = QuizStatistics(n=len(self.attempts), undefined=undefined, **figures)
            return QuizReport(quiz=level, items=())
        return quiz_statistics.quiz_statistics(
            self.scores, self.max_marks, self.totals, self.random_guess_scores()
        )

    def item_responses(self) -> tuple[ItemResponses, ...]:
        """Each item's response analysis with the learners behind every count, in quiz order.
        One more query (the responses with the choices they picked)."""
        counted = {attempt.pk for attempt in self.attempts}
        rows = _rows(quiz=self.quiz, rule=self.rule, item=None, counted=counted)
        return analyse_responses(self.item_specs(), [row for row, _ in rows])

    def response_counts(self) -> tuple[ItemCounts, ...]:
        """Each item's responses counted as item_responses counts them, without the learners,
        in quiz order: grouped and counted by the database (a few hundred rows instead of one
        per response). One more query."""
        groups, picks = _grouped(quiz=self.quiz, rule=self.rule)
        return count_responses(self.item_specs(), groups, picks)


def item_guess(item: QuizItem, choices: Sequence[Choice]) -> float | None:
    """The item's random guess score (quiz_statistics.random_guess_score): a problem scores 0;
    a question from its kind and choices, None for a question with no choices yet."""
    if item.problem_id:
        return quiz_statistics.random_guess_score(quiz_statistics.PROBLEM)
    if not choices:
        return None
    correct = sum(1 for choice in choices if choice.is_correct)
    return quiz_statistics.random_guess_score(item.question.kind, len(choices), correct)


def _counted(*, quiz: Quiz, rule: AttemptRule) -> QuerySet[Attempt]:
    """The submitted attempts `rule` counts, as a query the responses' reads filter by too, so
    the database never hands over the answers of attempts the statistics leave out (two thirds
    of them for first attempts when learners make three). First: no earlier submitted attempt of
    the same learner, the rule of teaching.results.attempts_counted, which still picks from what
    this returns (one attempt per learner, so it agrees by construction)."""
    if rule not in RULES:
        raise ValueError(f"Statistics count first or all submitted attempts, not {rule!r}.")
    submitted = Attempt.objects.counted().filter(scores.SUBMITTED, quiz=quiz)
    if rule is AttemptRule.ALL:
        return submitted
    earlier = Attempt.objects.counted().filter(
        scores.SUBMITTED, quiz=quiz, user=OuterRef("user"), number__lt=OuterRef("number")
    )
    return submitted.filter(~Exists(earlier))


def counted_attempts(*, quiz: Quiz, rule: AttemptRule) -> list[Attempt]:
    """The submitted attempts `rule` counts, by learner and number, each with its learner and
    its quiz set (no query per attempt). One query."""
    by_user: dict[int, list[Attempt]] = defaultdict(list)
    found = _counted(quiz=quiz, rule=rule).select_related("user")
    for attempt in found.order_by("user_id", "number"):
        attempt.quiz = quiz  # the scoring rules read the quiz's settings
        by_user[attempt.user_id].append(attempt)
    if rule is AttemptRule.ALL:
        return [attempt for attempts in by_user.values() for attempt in attempts]
    return [attempts_counted(AttemptRule.FIRST, attempts)[0] for attempts in by_user.values()]


def quiz_items(*, quiz: Quiz) -> tuple[list[QuizItem], dict[int, list[Choice]]]:
    """The quiz's items in quiz order with their question or problem, and each question item's
    choices in order. Two queries (one when the quiz has no question)."""
    items = list(
        QuizItem.objects.filter(quiz=quiz)
        .select_related("question", "problem")
        .order_by("order", "id")
    )
    by_question: dict[int, list[Choice]] = defaultdict(list)
    questions = {item.question_id for item in items if item.question_id}
    if questions:
        for choice in Choice.objects.filter(question_id__in=questions).order_by(
            "question_id", "order", "id"
        ):
            by_question[choice.question_id].append(choice)
    choices = {item.pk: by_question[item.question_id] for item in items if item.question_id}
    return items, choices


def _diagnosis() -> NullIf:
    """The generic diagnosis read out of Response.detail by the database, as text with no JSON
    to decode per row; SQLite gives a JSON null as "null"."""
    return NullIf(KT("detail__diagnosis"), Value("null"), output_field=TextField())


def _of_counted(*, quiz: Quiz, rule: AttemptRule, item: QuizItem | None) -> QuerySet[Response]:
    """The responses to the attempts `rule` counts (to one item when given), unordered."""
    rows = Response.objects.filter(attempt__in=_counted(quiz=quiz, rule=rule).values("pk"))
    if item is not None:
        rows = rows.filter(quiz_item=item)
    return rows.order_by()


def _scored(*, quiz: Quiz, rule: AttemptRule) -> list[Any]:
    """Every response to the attempts `rule` counts, oldest first, as named rows of the fields
    the scoring rules read (_SCORED_FIELDS). One query.

    Named rows, not model instances: a quiz of 3,000 learners has tens of thousands of
    responses, and building a model instance for each costs ten times the query itself.
    """
    found = _of_counted(quiz=quiz, rule=rule, item=None)
    # Sorted here: the database would spill the rows to disk to sort them.
    return sorted(
        found.values_list(*_SCORED_FIELDS, named=True), key=attrgetter("created_at", "id")
    )


def _rows(
    *, quiz: Quiz, rule: AttemptRule, item: QuizItem | None, counted: set[int]
) -> list[tuple[ResponseRow, int]]:
    """Every response to the attempts `rule` counts (to one item when given) whose attempt is
    in `counted`, oldest first, as a ResponseRow with the ids of the choices it picked
    (ascending), and the id of its attempt. One query: the choices are joined, one row per
    choice picked (or one with none)."""
    found = _of_counted(quiz=quiz, rule=rule, item=item).annotate(diagnosis=_diagnosis())
    rows = sorted(
        found.values_list(*_ANALYSED_FIELDS, "diagnosis", "choices", "created_at"),
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
                row[3],  # item
                row[4],  # status
                row[5],  # misconception
                row[6] or None,  # diagnosis
                tuple(sorted(choices)),
            ),
            row[2],  # attempt
        )
        for response, (row, choices) in by_response.items()
    ]


def _grouped(
    *, quiz: Quiz, rule: AttemptRule
) -> tuple[list[ResponseGroup], dict[tuple[int, int], int]]:
    """The responses to the attempts `rule` counts, grouped by item, status, misconception and
    diagnosis with their number, and the number of each item's that picked each choice. One query:
    the two groupings side by side (UNION ALL), a row of the second naming its choice."""
    counted = _counted(quiz=quiz, rule=rule).values("pk")
    groups = (
        _of_counted(quiz=quiz, rule=rule, item=None)
        .annotate(diagnosis=_diagnosis(), picked=Value(None, output_field=IntegerField()))
        .values("quiz_item_id", "status", "misconception", "diagnosis", "picked")
        .annotate(responses=Count("id"))
    )
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
        )
        .values("item", "no_status", "no_misconception", "no_diagnosis", "picked")
        .annotate(responses=Count("id"))
    )
    found: list[ResponseGroup] = []
    picked: dict[tuple[int, int], int] = {}
    for row in groups.union(picks, all=True).order_by():
        if row["picked"] is not None:
            picked[(row["quiz_item_id"], row["picked"])] = row["responses"]
            continue
        found.append(
            ResponseGroup(
                row["quiz_item_id"],
                row["status"],
                row["misconception"],
                row["diagnosis"] or None,
                row["responses"],
            )
        )
    return found, picked


def quiz_data(*, quiz: Quiz, rule: AttemptRule = AttemptRule.FIRST) -> QuizData:
    """The quiz's counted attempts, their item scores and responses (see the module docstring).
    Five queries: items, choices, attempts, responses, overrides."""
    items, choices = quiz_items(quiz=quiz)
    attempts = counted_attempts(quiz=quiz, rule=rule)
    # The database filters by the same rule; an attempt submitted between the two reads is
    # left out of the answers too.
    counted = {attempt.pk for attempt in attempts}
    answers = [row for row in _scored(quiz=quiz, rule=rule) if row.attempt_id in counted]
    overrides = scores.quiz_item_overrides(quiz=quiz)
    by_attempt: dict[int, list[Any]] = defaultdict(list)
    for response in answers:
        by_attempt[response.attempt_id].append(response)
    matrix = np.full((len(attempts), len(items)), np.nan)
    columns = {item.pk: index for index, item in enumerate(items)}
    for row, attempt in enumerate(attempts):
        found = scores.item_scores(
            attempt=attempt,
            responses=by_attempt.get(attempt.pk, []),
            overrides=overrides.get(attempt.pk, {}),
        )
        for item_id, score in found.items():
            if item_id in columns:
                matrix[row, columns[item_id]] = score
    return QuizData(
        quiz=quiz,
        rule=rule,
        items=items,
        choices=choices,
        attempts=attempts,
        scores=matrix,
        answers=answers,
    )


@dataclass(frozen=True)
class ItemData:
    """One item's responses in the counted attempts, for its response analysis page."""

    quiz: Quiz
    rule: AttemptRule
    item: QuizItem
    position: int  # 1 for the quiz's first item
    choices: list[Choice]
    attempts: dict[int, Attempt]  # the counted attempts by id, each with its learner
    analysis: ItemResponses
    attempt_of_response: dict[int, int]


def item_data(*, quiz: Quiz, rule: AttemptRule, item_id: int) -> ItemData | None:
    """An item of the quiz with the response analysis of the counted attempts; None when the
    quiz has no such item. Four queries at most."""
    items, choices = quiz_items(quiz=quiz)
    position, item = next(
        ((n, item) for n, item in enumerate(items, start=1) if item.pk == item_id), (0, None)
    )
    if item is None:
        return None
    attempts = {attempt.pk: attempt for attempt in counted_attempts(quiz=quiz, rule=rule)}
    rows = _rows(quiz=quiz, rule=rule, item=item, counted=set(attempts))
    spec = ItemSpec(item.pk, tuple(choice.pk for choice in choices.get(item.pk, [])))
    (analysis,) = analyse_responses([spec], [row for row, _ in rows])
    return ItemData(
        quiz=quiz,
        rule=rule,
        item=item,
        position=position,
        choices=choices.get(item.pk, []),
        attempts=attempts,
        analysis=analysis,
        attempt_of_response={row.response: attempt for row, attempt in rows},
    )
