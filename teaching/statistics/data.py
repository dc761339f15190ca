"""The records behind a quiz's statistics and response analysis, read in a fixed number of
queries whatever the number of learners, attempts, answers and items.

- **Which attempts**: submitted ones only (an attempt in progress has no grade yet). By default
  each learner's first submitted attempt (teaching.results.reads.attempts_counted's rule, as the
  results grid counts it), as Moodle does; on request every submitted attempt, each counted as
  if another learner had made it (docs/statistics.md).
- **Scores**: per attempt and item, grading.scores.item_scores (the try that counts; an
  instructor's override wins), as a fraction of the item's maximum; NaN where the attempt has
  neither a counted answer nor an override for the item. Totals are `Attempt.score`.
- **Random guess scores**: teaching.statistics.figures.random_guess_score from each question's kind
  and choices; 0 for a problem.
- **Responses**: every response recorded in the counted attempts (every try, every saved
  answer, invalid input too), as teaching.statistics.responses.ResponseRow with the choices picked
  (one query, the many-to-many table joined); or, where only counts are wanted (the API),
  grouped and counted by the database (`QuizData.response_counts`), counted by the same rule.
- **Pools**: statistics are per question or problem, whatever item an attempt drew it into
  (teaching.statistics.pools): `items` lists one entry per member drawn in place of the pool
  items, and a pool item's responses count for the member they answered.

The statistics page and the API read `quiz_data`, an item's response analysis page
`item_data`: one reading of the records, so they never disagree.

The queries themselves are teaching/statistics_reads.py.

**Speed** (docs/performance.md): a quiz of 3,000 learners has 90,000 responses. The score
matrix reads only the columns the scoring rules read, the API's response counts come grouped
from the database, and no model instance is made per response.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from courses.models import Choice, Quiz, QuizItem
from grading import scores
from grading.models import Attempt
from teaching.results.reads import AttemptRule, attempts_counted
from teaching.statistics import figures as quiz_statistics
from teaching.statistics.figures import QUIZ_FIGURES, QuizReport, QuizStatistics
from teaching.statistics.pools import drawn_members, entry_key, member_of_draw, pooled_report
from teaching.statistics.reads import (
    RULES,
    counted_query,
    grouped_counts,
    response_rows,
    scored_rows,
    typed_answers,
)
from teaching.statistics.responses import (
    ItemCounts,
    ItemResponses,
    ItemSpec,
    ValueTally,
    analyse_responses,
    count_responses,
    typed_values,
)

__all__ = ["RULES", "entry_key"]  # read from here by the views and the export

FloatArray = npt.NDArray[np.float64]

RULE_LABELS = {
    AttemptRule.FIRST: _("First submitted attempt of each learner"),
    AttemptRule.ALL: _("Every submitted attempt"),
}

# Stored English, translated where a page shows it (teaching/templatetags/statistics_display.py).
NO_ITEMS = gettext_noop("the quiz has no items yet")


@dataclass(frozen=True)
class QuizData:
    """A quiz's counted attempts as the statistics read them."""

    quiz: Quiz
    rule: AttemptRule
    items: list[QuizItem]  # in quiz order
    choices: dict[int | str, list[Choice]]  # by entry_key: a question's choices in order
    attempts: list[Attempt]  # the rows of `scores`, each with its learner
    scores: FloatArray  # attempts × items: fractions of each item's maximum, NaN: no answer
    # Every response of the counted attempts, oldest first, as statistics_reads.scored_rows
    # reads them (the fields the scoring rules read).
    answers: list[Any]
    # (attempt id, pool item id) -> the entry_key of the member drawn (member_of_draw).
    drawn: dict[tuple[int, int], str] = field(default_factory=dict)
    # The quiz's own items when some draw from pools (`items` then lists the members drawn).
    slots: list[QuizItem] = field(default_factory=list)

    @property
    def max_marks(self) -> list[float]:
        return [float(item.points) for item in self.items]

    @property
    def max_score(self) -> float:
        return float(sum(item.points for item in self.slots or self.items))

    @property
    def pool_items(self) -> set[int]:
        return {slot.pk for slot in self.slots if slot.pool_id}

    @property
    def totals(self) -> list[float]:
        return [attempt.score for attempt in self.attempts]

    def random_guess_scores(self) -> list[float | None]:
        return [item_guess(item, self.choices.get(entry_key(item), [])) for item in self.items]

    def item_specs(self) -> list[ItemSpec]:
        return [
            ItemSpec(entry_key(item), tuple(c.pk for c in self.choices.get(entry_key(item), [])))
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
        if self.slots:
            return pooled_report(
                slots=self.slots,
                entries=self.items,
                attempt_ids=[attempt.pk for attempt in self.attempts],
                scores=self.scores,
                totals=self.totals,
                guesses=self.random_guess_scores(),
                drawn=self.drawn,
            )
        return quiz_statistics.quiz_statistics(
            self.scores, self.max_marks, self.totals, self.random_guess_scores()
        )

    def item_responses(self) -> tuple[ItemResponses, ...]:
        """Each item's response analysis with the learners behind every count, in quiz order.
        One more query (the responses with the choices they picked)."""
        counted = {attempt.pk for attempt in self.attempts}
        rows = response_rows(
            quiz=self.quiz, rule=self.rule, item=None, counted=counted, pools=self.pool_items
        )
        return analyse_responses(self.item_specs(), [row for row, _ in rows])

    def response_counts(self) -> tuple[ItemCounts, ...]:
        """Each item's responses counted as item_responses counts them, without the learners,
        in quiz order: grouped and counted by the database (a few hundred rows instead of one
        per response). One more query."""
        groups, picks = grouped_counts(quiz=self.quiz, rule=self.rule, pools=self.pool_items)
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


# What the statistics read of an attempt: who and which (the first-attempt rule), its total and
# status. Model instances of these alone: 9,000 attempts with every column and their learners
# cost a third of the statistics of every attempt (docs/performance.md).
_ATTEMPT_FIELDS = ("id", "user_id", "quiz_id", "number", "status", "score")


def counted_attempts(*, quiz: Quiz, rule: AttemptRule, learners: bool = True) -> list[Attempt]:
    """The submitted attempts `rule` counts, by learner and number, each with its quiz set and,
    with `learners`, its learner (no query per attempt); without, only what the statistics read
    (_ATTEMPT_FIELDS). One query."""
    by_user: dict[int, list[Attempt]] = defaultdict(list)
    found = counted_query(quiz=quiz, rule=rule)
    found = found.select_related("user") if learners else found.only(*_ATTEMPT_FIELDS)
    for attempt in found.order_by("user_id", "number"):
        attempt.quiz = quiz  # the scoring rules read the quiz's settings
        by_user[attempt.user_id].append(attempt)
    if rule is AttemptRule.ALL:
        return [attempt for attempts in by_user.values() for attempt in attempts]
    return [attempts_counted(AttemptRule.FIRST, attempts)[0] for attempts in by_user.values()]


def quiz_items(
    *, quiz: Quiz
) -> tuple[list[QuizItem], dict[int | str, list[Choice]], list[QuizItem]]:
    """The quiz's items in quiz order with their question or problem (pool items giving way to
    the members drawn: pool_statistics.drawn_members), each question entry's choices in order
    by entry_key, and the quiz's own items. Two queries (one when the quiz has no question),
    three more with a pool."""
    slots = list(
        QuizItem.objects.filter(quiz=quiz)
        .select_related("question", "problem")
        .order_by("order", "id")
    )
    items = drawn_members(slots)
    by_question: dict[int, list[Choice]] = defaultdict(list)
    questions = {item.question_id for item in items if item.question_id}
    if questions:
        for choice in Choice.objects.filter(question_id__in=questions).order_by(
            "question_id", "order", "id"
        ):
            by_question[choice.question_id].append(choice)
    choices = {entry_key(item): by_question[item.question_id] for item in items if item.question_id}
    return items, choices, slots


def quiz_data(*, quiz: Quiz, rule: AttemptRule = AttemptRule.FIRST) -> QuizData:
    """The quiz's counted attempts, their item scores and responses (see the module docstring).
    Five queries: items, choices, attempts, responses, overrides; four more with a pool."""
    items, choices, slots = quiz_items(quiz=quiz)
    attempts = counted_attempts(quiz=quiz, rule=rule, learners=False)
    # The database filters by the same rule; an attempt submitted between the two reads is
    # left out of the answers too.
    counted = {attempt.pk for attempt in attempts}
    answers = [row for row in scored_rows(quiz=quiz, rule=rule) if row.attempt_id in counted]
    overrides = scores.quiz_item_overrides(quiz=quiz)
    by_attempt: dict[int, list[Any]] = defaultdict(list)
    for response in answers:
        by_attempt[response.attempt_id].append(response)
    matrix = np.full((len(attempts), len(items)), np.nan)
    columns = {entry_key(item): index for index, item in enumerate(items)}
    pooled = any(item.pool_id for item in slots)
    drawn = member_of_draw(quiz=quiz) if pooled else {}
    for row, attempt in enumerate(attempts):
        found = scores.item_scores(
            attempt=attempt,
            responses=by_attempt.get(attempt.pk, []),
            overrides=overrides.get(attempt.pk, {}),
        )
        for item_id, score in found.items():
            key = drawn.get((attempt.pk, item_id), item_id)
            if key in columns:
                matrix[row, columns[key]] = score
    return QuizData(
        quiz=quiz,
        rule=rule,
        items=items,
        choices=choices,
        attempts=attempts,
        scores=matrix,
        answers=answers,
        drawn=drawn,
        slots=slots if pooled else [],
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
    # For a problem: the values typed, most frequent first (responses.typed_values); else none.
    values: tuple[ValueTally, ...] = ()


def item_data(*, quiz: Quiz, rule: AttemptRule, item_id: int, drawn: str = "") -> ItemData | None:
    """An item of the quiz (for a pool, the member whose entry_key is `drawn`) with the
    response analysis of the counted attempts and, for a problem, the values typed; None when
    the quiz has no such item. Five queries at most, three more with a pool."""
    items, choices, slots = quiz_items(quiz=quiz)
    wanted = drawn or item_id
    position, item = next(
        (
            (n, item)
            for n, item in enumerate(items, start=1)
            if item.pk == item_id and entry_key(item) == wanted
        ),
        (0, None),
    )
    if item is None:
        return None
    attempts = {attempt.pk: attempt for attempt in counted_attempts(quiz=quiz, rule=rule)}
    pools = {slot.pk for slot in slots if slot.pool_id}
    rows = response_rows(quiz=quiz, rule=rule, item=item, counted=set(attempts), pools=pools)
    key = entry_key(item)
    spec = ItemSpec(key, tuple(choice.pk for choice in choices.get(key, [])))
    (analysis,) = analyse_responses([spec], [row for row, _ in rows])
    return ItemData(
        quiz=quiz,
        rule=rule,
        item=item,
        position=position,
        choices=choices.get(key, []),
        attempts=attempts,
        analysis=analysis,
        attempt_of_response={row.response: attempt for row, attempt in rows},
        values=typed_values(typed_answers(quiz=quiz, rule=rule, item=item, counted=set(attempts)))
        if item.problem_id
        else (),
    )
