"""Grade by item: one quiz item across the learners' counted attempts, a page of learners at a
time (as the results grid pages them), each attempt with the item as its learner saw and answered
it, its score now and its score changes, so an instructor changes scores learner after learner
on one page.

Learners, their order, the search and the paging are the results grid's
(teaching.results.pages, teaching.results.reads.quiz_results); each attempt's item is built as
the attempt review builds it (grading.selectors.ItemRow: the pool member it drew, its choices in
its own order, every answer, the try that counts and the score through grading.scores, an
override included), so the two pages show the same answer and the same score. A fixed number of
queries whatever the number of learners on the page.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from dataclasses import dataclass, field

from django.core.paginator import Page, Paginator
from django.db.models import Prefetch, prefetch_related_objects
from django.utils.translation import gettext

from courses.models import Choice, Misconception, Quiz, QuizItem
from grading import ordering, scores
from grading.models import Attempt, AttemptDraw, Response, ScoreChange, Variant
from grading.selectors import ItemRow, misconceptions_by_code
from teaching.results.pages import LEARNERS_PER_PAGE, matches
from teaching.results.reads import AttemptRule, Learner, quiz_learners, quiz_results


@dataclass
class ItemGrade:
    """One row of the page: a learner and, when the rule counts one, an attempt of theirs with
    the item as it stands in it."""

    learner: Learner
    attempts_made: int
    attempt: Attempt | None
    # The item in the attempt as the attempt review shows it; None without an attempt.
    row: ItemRow | None = None
    changes: list[ScoreChange] = field(default_factory=list)  # oldest first
    # Without a counted attempt: whether the learner has one in progress.
    answering: bool = False
    # The authored misconception the answer that counts names, when it names one.
    misconception: Misconception | None = None

    @property
    def points(self) -> float | None:
        """The item's score in points now (an override included); None when unanswered."""
        if self.row is None or self.row.score is None:
            return None
        return self.row.score * self.row.item.points

    @property
    def overridden(self) -> bool:
        return any(change.kind == ScoreChange.Kind.OVERRIDE for change in self.changes)

    @property
    def history_label(self) -> str:
        """What the row's table of score changes is called, unique on the page."""
        number = self.attempt.number if self.attempt else ""
        return gettext("Score changes of %(learner)s, attempt %(number)s") % {
            "learner": self.learner.name,
            "number": number,
        }

    @property
    def may_override(self) -> bool:
        """Only a submitted attempt's score is overridden (grading.overrides)."""
        return self.attempt is not None and self.attempt.status == Attempt.Status.SUBMITTED


@dataclass(frozen=True)
class ItemGradingPage:
    item: QuizItem
    number: int  # the item's place in the quiz's order, from 1 (the grid's column)
    rule: AttemptRule
    page: Page
    rows: list[ItemGrade]
    search: str
    misconceptions: dict[str, Misconception]  # by code, for every answer on the page

    @property
    def learners(self) -> int:
        """Every learner the search keeps, on all pages."""
        return self.page.paginator.count


def _items_as_drawn(item: QuizItem, attempts: list[Attempt]) -> dict[int, QuizItem]:
    """The item as each attempt shows it, by attempt id: the item itself, or for a pool item a
    copy carrying the question or problem the attempt drew (with its choices). One query for a
    question's choices, or two for a pool's draws."""
    choices = Choice.objects.order_by("order", "id")
    if not item.pool_id:
        if item.question_id:
            prefetch_related_objects([item], Prefetch("question__choices", queryset=choices))
        return {attempt.pk: item for attempt in attempts}
    draws = (
        AttemptDraw.objects.filter(attempt__in=attempts, quiz_item=item)
        .select_related("question", "problem")
        .prefetch_related(Prefetch("question__choices", queryset=choices))
    )
    found = {}
    for draw in draws:
        drawn = copy.copy(item)
        drawn.question, drawn.problem = draw.question, draw.problem
        found[draw.attempt_id] = drawn
    return found


def _overrides(item: QuizItem, attempt: Attempt, changes: list[ScoreChange]) -> dict[int, float]:
    """The override in force for the item (grading.scores.item_overrides' rule: the latest
    override of a submitted attempt), as its quiz item id -> score from 0 to 1."""
    if attempt.status != Attempt.Status.SUBMITTED:
        return {}
    found = [change for change in changes if change.kind == ScoreChange.Kind.OVERRIDE]
    if not found:
        return {}
    latest = found[-1].new_score
    return {item.pk: scores.override_fraction(override=latest, points=item.points)}


def _item_rows(
    *, quiz: Quiz, item: QuizItem, number: int, attempts: list[Attempt]
) -> tuple[dict[int, ItemRow], dict[int, list[ScoreChange]], dict[str, Misconception]]:
    """Each attempt's ItemRow for the item and its score changes, by attempt id, and the
    misconceptions the answers name. Five to six queries, whatever the number of attempts."""
    if not attempts:
        return {}, {}, {}
    ids = [attempt.pk for attempt in attempts]
    drawn = _items_as_drawn(item, attempts)
    variants = {
        variant.attempt_id: variant
        for variant in Variant.objects.filter(attempt_id__in=ids, quiz_item=item)
    }
    answers: dict[int, list[Response]] = defaultdict(list)
    for response in (
        Response.objects.filter(attempt_id__in=ids, quiz_item=item)
        .prefetch_related("choices")
        .order_by("created_at", "id")
    ):
        answers[response.attempt_id].append(response)
    changes: dict[int, list[ScoreChange]] = defaultdict(list)
    for change in ScoreChange.objects.filter(attempt_id__in=ids, quiz_item=item).order_by(
        "created_at", "id"
    ):
        changes[change.attempt_id].append(change)
    rule = scores.scoring_rule(quiz)
    rows = {}
    for attempt in attempts:
        shown = drawn.get(attempt.pk, item)
        tries = answers.get(attempt.pk, [])
        counted = [response for response in tries if response.counts_as_try]
        item_scores = scores.item_scores(
            attempt=attempt,
            responses=tries,
            overrides=_overrides(item, attempt, changes.get(attempt.pk, [])),
        )
        choices = []
        if shown.question_id:
            choices = ordering.choice_order(
                attempt=attempt, question=shown.question, choices=list(shown.question.choices.all())
            )
        rows[attempt.pk] = ItemRow(
            number=number,
            item=shown,
            variant=variants.get(attempt.pk),
            choices=choices,
            responses=tries,
            score=item_scores.get(item.pk),
            counting=scores.counting_try(rule=rule, tries=counted),
            tries_left=scores.tries_left(quiz=quiz, tries=tries),
        )
    codes = (response.misconception for tries in answers.values() for response in tries)
    return rows, dict(changes), misconceptions_by_code(codes)


def item_grading_page(
    *, quiz: Quiz, item: QuizItem, rule: AttemptRule, search: str, number: int
) -> ItemGradingPage:
    """Page `number` (from 1) of the learners `search` keeps (all when empty), by name, each
    with the attempts `rule` counts and the item in each. Raises django.core.paginator's
    InvalidPage for a page that does not exist (page 1 always does, empty or not)."""
    learners = quiz_learners(quiz=quiz)
    if search:
        learners = [learner for learner in learners if matches(learner, search)]
    page = Paginator(learners, LEARNERS_PER_PAGE).page(number)
    found = quiz_results(quiz=quiz, rule=rule, per_item=False, learners=page.object_list)
    attempts = [row.attempt for row in found.rows if row.attempt is not None]
    # The item's place in the quiz's order, as the results grid numbers its columns.
    position = [entry.pk for entry in found.items].index(item.pk) + 1
    rows, changes, misconceptions = _item_rows(
        quiz=quiz, item=item, number=position, attempts=attempts
    )
    grades = []
    for row in found.rows:
        shown = rows.get(row.attempt.pk) if row.attempt else None
        counting = shown.counting if shown else None
        grades.append(
            ItemGrade(
                learner=row.learner,
                attempts_made=row.attempts_made,
                attempt=row.attempt,
                row=shown,
                changes=changes.get(row.attempt.pk, []) if row.attempt else [],
                answering=row.answering,
                misconception=misconceptions.get(counting.misconception) if counting else None,
            )
        )
    return ItemGradingPage(
        item=item,
        number=position,
        rule=rule,
        page=page,
        rows=grades,
        search=search,
        misconceptions=misconceptions,
    )
