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
  answer, invalid input too), as teaching.response_analysis.ResponseRow, the choices picked read
  through the many-to-many table in one query.

The statistics page and the API read `quiz_data`, an item's response analysis page
`item_data`: one reading of the records, so they never disagree.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import numpy as np
import numpy.typing as npt
from django.db.models import Exists, OuterRef, QuerySet, TextField, Value
from django.db.models.fields.json import KT
from django.db.models.functions import NullIf

from courses.models import Choice, Quiz, QuizItem
from grading import scores
from grading.models import Attempt, Response
from teaching import quiz_statistics
from teaching.quiz_statistics import QUIZ_FIGURES, QuizReport, QuizStatistics
from teaching.response_analysis import ItemResponses, ItemSpec, ResponseRow, analyse_responses
from teaching.results import AttemptRule, attempts_counted

FloatArray = npt.NDArray[np.float64]

# The attempts statistics count: one per learner (the first submitted), or every submitted one.
RULES = (AttemptRule.FIRST, AttemptRule.ALL)
RULE_LABELS = {
    AttemptRule.FIRST: "First submitted attempt of each learner",
    AttemptRule.ALL: "Every submitted attempt",
}

NO_ITEMS = "the quiz has no items yet"

_RESPONSE_FIELDS = (
    "id",
    "user_id",
    "attempt_id",
    "quiz_item_id",
    "status",
    "score",
    "counts_as_try",
    "misconception",
    "created_at",
)


@dataclass(frozen=True)
class QuizData:
    """A quiz's counted attempts as the statistics read them."""

    quiz: Quiz
    rule: AttemptRule
    items: list[QuizItem]  # in quiz order
    choices: dict[int, list[Choice]]  # a question item's choices in their authored order
    attempts: list[Attempt]  # the rows of `scores`, each with its learner
    scores: FloatArray  # attempts × items: fractions of each item's maximum, NaN: no answer
    # Every response of the counted attempts, oldest first, as _responses reads them.
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
        """Each item's response analysis, in quiz order. One more query (the choices the
        responses picked) when the quiz has a question: the statistics page needs none."""
        picked = _picked(quiz=self.quiz, rule=self.rule, item=None) if self.choices else {}
        return analyse_responses(self.item_specs(), _rows(self.answers, picked))


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
    submitted = Attempt.objects.filter(scores.SUBMITTED, quiz=quiz)
    if rule is AttemptRule.ALL:
        return submitted
    earlier = Attempt.objects.filter(
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


def _responses(*, quiz: Quiz, rule: AttemptRule, item: QuizItem | None) -> list[Any]:
    """Every response to the attempts `rule` counts (to one item when given), oldest first,
    as rows of the fields the scoring rules (grading.scores.Scored) and the response analysis
    read, the diagnosis read out of `detail` by the database. One query.

    Named rows, not model instances: a quiz of 3,000 learners has tens of thousands of
    responses, and building a model instance for each costs ten times the query itself.
    """
    rows = Response.objects.filter(attempt__in=_counted(quiz=quiz, rule=rule).values("pk"))
    if item is not None:
        rows = rows.filter(quiz_item=item)
    # The key as text, with no JSON to decode per row; SQLite gives a JSON null as "null".
    diagnosis = NullIf(KT("detail__diagnosis"), Value("null"), output_field=TextField())
    found = rows.annotate(diagnosis=diagnosis).order_by()
    # Sorted here: the database would spill rows this wide to disk to sort them.
    return sorted(
        found.values_list(*_RESPONSE_FIELDS, "diagnosis", named=True),
        key=attrgetter("created_at", "id"),
    )


def _picked(*, quiz: Quiz, rule: AttemptRule, item: QuizItem | None) -> dict[int, tuple[int, ...]]:
    """Response id -> the ids of the choices it picked, ascending, for the same responses as
    _responses. One query."""
    counted = _counted(quiz=quiz, rule=rule).values("pk")
    links = Response.choices.through.objects.filter(response__attempt__in=counted)
    if item is not None:
        links = links.filter(response__quiz_item=item)
    picked: dict[int, tuple[int, ...]] = {}
    for response_id, choice_id in links.order_by().values_list("response_id", "choice_id"):
        picked[response_id] = (*picked.get(response_id, ()), choice_id)
    return {
        response: tuple(sorted(ids)) if len(ids) > 1 else ids for response, ids in picked.items()
    }


def _rows(responses: Sequence[Any], picked: dict[int, tuple[int, ...]]) -> list[ResponseRow]:
    # Positional: tens of thousands of rows, and keywords cost a third of the time.
    return [
        ResponseRow(
            row.id,  # response
            row.user_id,  # learner
            row.quiz_item_id,  # item
            row.status,
            row.misconception,
            row.diagnosis or None,
            picked.get(row.id, ()),  # choices
        )
        for row in responses
    ]


def quiz_data(*, quiz: Quiz, rule: AttemptRule = AttemptRule.FIRST) -> QuizData:
    """The quiz's counted attempts, their item scores and responses (see the module docstring).
    Five queries: items, choices, attempts, responses, overrides."""
    items, choices = quiz_items(quiz=quiz)
    attempts = counted_attempts(quiz=quiz, rule=rule)
    # The database filters by the same rule; an attempt submitted between the two reads is
    # left out of the answers too.
    counted = {attempt.pk for attempt in attempts}
    answers = [
        row for row in _responses(quiz=quiz, rule=rule, item=None) if row.attempt_id in counted
    ]
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
    quiz has no such item. Six queries at most."""
    items, choices = quiz_items(quiz=quiz)
    position, item = next(
        ((n, item) for n, item in enumerate(items, start=1) if item.pk == item_id), (0, None)
    )
    if item is None:
        return None
    attempts = {attempt.pk: attempt for attempt in counted_attempts(quiz=quiz, rule=rule)}
    responses = [
        row for row in _responses(quiz=quiz, rule=rule, item=item) if row.attempt_id in attempts
    ]
    picked = _picked(quiz=quiz, rule=rule, item=item) if item.question_id else {}
    spec = ItemSpec(item.pk, tuple(choice.pk for choice in choices.get(item.pk, [])))
    (analysis,) = analyse_responses([spec], _rows(responses, picked))
    return ItemData(
        quiz=quiz,
        rule=rule,
        item=item,
        position=position,
        choices=choices.get(item.pk, []),
        attempts=attempts,
        analysis=analysis,
        attempt_of_response={row.id: row.attempt_id for row in responses},
    )
