"""A quiz's results learner by learner: which attempts count under the rule chosen, each one's
score per item, and the LMS course each learner came from. The results grid and the gradebook
export both read `quiz_results`, so the page and the file never disagree.

A fixed number of queries whatever the number of learners, attempts and items: the items, the
learners (those with an attempt; the learners an LMS sent to the quiz, one query per provider
that settings name; the course's roles and the learners among those who made no attempt), the
given learners' attempts and, for the grid, their answers (every save: the counted ones score,
all of them time the items) and the overrides of the quiz's attempts. The grid reads every
learner the search keeps (its sort, status filter and mean row need all their scores:
teaching/results/pages.py) and renders a page of them; the gradebook reads all, without answers.

Time on an item (`item_times`) is read off the answers' timestamps, the only clock an attempt
keeps: softgrade does not know when a learner looks at an item, only when they save an answer.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import NamedTuple, Protocol

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.utils.module_loading import import_string
from django.utils.translation import gettext, gettext_noop

from courses.models import Quiz, QuizItem
from grading import scores
from grading.models import Attempt, Response
from teaching.models import CourseRole

# Where a learner who never came through an LMS is listed when the grid groups by LMS course.
NOT_FROM_AN_LMS = gettext_noop("Not from an LMS (site sign-ups and API learners)")


class AttemptRule(StrEnum):
    """Which of a learner's attempts at a quiz count: one submitted attempt, or every attempt."""

    FIRST = "first"
    BEST = "best"
    LAST = "last"
    ALL = "all"

    @property
    def label(self) -> str:
        return {
            AttemptRule.FIRST: gettext("First submitted attempt"),
            AttemptRule.BEST: gettext("Best attempt (the score sent to the LMS)"),
            AttemptRule.LAST: gettext("Last submitted attempt"),
            AttemptRule.ALL: gettext("Every attempt, in progress too"),
        }[self]


def attempts_counted(rule: AttemptRule, attempts: Iterable[Attempt]) -> list[Attempt]:
    """Of one learner's attempts at a quiz, those the rule counts, by number.

    First, best and last pick one submitted attempt (an attempt in progress has no grade yet);
    best is grading.scores.best_of, the attempt whose score the LMS is sent. All is every
    attempt, in progress ones too.
    """
    mine = sorted(attempts, key=lambda a: a.number)
    if rule is AttemptRule.ALL:
        return mine
    submitted = [a for a in mine if a.status == Attempt.Status.SUBMITTED]
    if not submitted:
        return []
    if rule is AttemptRule.FIRST:
        return [submitted[0]]
    if rule is AttemptRule.LAST:
        return [submitted[-1]]
    return [scores.best_of(submitted)]


def time_taken(attempt: Attempt) -> timedelta | None:
    """From the start to the submission (or to the deadline, for an attempt closed by it);
    None while in progress."""
    if attempt.submitted_at is None:
        return None
    return attempt.submitted_at - attempt.started_at


# Answers saved within this long of each other were saved together (one click on a sheet of
# answers writes them all at once, microseconds apart); nobody answers two items in a second.
SAVED_TOGETHER = timedelta(seconds=1)

# How the pages and the README state it to instructors (the pages translate it when shown).
ITEM_TIME_DEFINITION = gettext_noop(
    "Time on an item adds up, for each answer saved to it (invalid ones too), the time since "
    "the learner's previous save in the attempt, to any item, or since the attempt started; "
    "answers saved together share that time equally. It counts reading and any pause before a "
    "save, and leaves out the time after the last save, so an attempt's items add up to less "
    "than its time taken."
)


class SavedAnswer(Protocol):
    quiz_item_id: int
    created_at: datetime


def item_times(*, started_at: datetime, answers: Iterable[SavedAnswer]) -> dict[int, timedelta]:
    """Time on each item of one attempt (quiz item id -> time), as ITEM_TIME_DEFINITION says;
    items without an answer are left out. The times add up to the start's distance from the
    last save.

    >>> from types import SimpleNamespace as Saved
    >>> t = datetime(2026, 1, 1)
    >>> saved = [Saved(quiz_item_id=7, created_at=t + timedelta(seconds=30)),
    ...          Saved(quiz_item_id=8, created_at=t + timedelta(seconds=40))]
    >>> item_times(started_at=t, answers=saved)
    {7: datetime.timedelta(seconds=30), 8: datetime.timedelta(seconds=10)}
    """
    saves: list[list[SavedAnswer]] = []
    for answer in sorted(answers, key=lambda answer: answer.created_at):
        if saves and answer.created_at - saves[-1][-1].created_at <= SAVED_TOGETHER:
            saves[-1].append(answer)
        else:
            saves.append([answer])
    times: dict[int, timedelta] = defaultdict(timedelta)
    previous = started_at
    for save in saves:
        share = max(save[-1].created_at - previous, timedelta(0)) / len(save)
        for answer in save:
            times[answer.quiz_item_id] += share
        previous = save[-1].created_at
    return dict(times)


@dataclass(frozen=True)
class Learner:
    """Who a row is about: the account's name, and the LMS course they came from, if any."""

    user_id: int
    username: str
    name: str
    email: str
    lms_context: str = ""


def learner_of(user: AbstractBaseUser, lms_context: str = "") -> Learner:
    """A learner's names: the full name an LMS or integration gave, else the user name."""
    return Learner(
        user_id=user.pk,
        username=user.get_username(),
        name=user.get_full_name() or user.get_username(),
        email=user.email,
        lms_context=lms_context,
    )


@dataclass(frozen=True)
class ItemResult:
    """One item of one attempt: points earned, the answer that counts and how many tries."""

    item: QuizItem
    # None when there is no answer that counts (nor an instructor's override).
    points: float | None
    # The counting answer's status (correct, incorrect), "override", or "blank".
    status: str
    tries: int
    misconception: str = ""
    # Time on the item (item_times); None when no answer was saved to it.
    time: timedelta | None = None


@dataclass
class ResultRow:
    learner: Learner
    attempts_made: int
    # None for a learner without an attempt the rule counts.
    attempt: Attempt | None
    items: list[ItemResult] = field(default_factory=list)
    # Without a counted attempt: whether the learner has one in progress (else every attempt
    # they made was closed unsubmitted when time ran out).
    answering: bool = False

    @property
    def time_taken(self) -> timedelta | None:
        return None if self.attempt is None else time_taken(self.attempt)


@dataclass
class QuizResults:
    quiz: Quiz
    rule: AttemptRule
    items: list[QuizItem]
    rows: list[ResultRow]

    @property
    def max_score(self) -> int:
        return sum(item.points for item in self.items)


def lms_contexts(*, quiz: Quiz) -> dict[int, str]:
    """User id -> the LMS course they launched the quiz from, from every provider that
    SOFTGRADE_LEARNER_LMS_CONTEXTS names (the lti app; teaching never imports it)."""
    found: dict[int, str] = {}
    for path in getattr(settings, "SOFTGRADE_LEARNER_LMS_CONTEXTS", ()):
        found.update(import_string(path)(quiz=quiz))
    return found


def _item_results(
    *,
    attempt: Attempt,
    items: list[QuizItem],
    saved: list[AnswerRow],
    overrides: dict[int, float],
) -> list[ItemResult]:
    """Each item's result in the attempt, by grading.scores' rules (counting try, overrides),
    and the time on it, from every answer `saved` (in the order saved)."""
    rule = scores.scoring_rule(attempt.quiz)
    every = [response for response in saved if response.counts_as_try]
    tries: dict[int, list[AnswerRow]] = defaultdict(list)
    for response in every:
        tries[response.quiz_item_id].append(response)
    times = item_times(started_at=attempt.started_at, answers=saved)
    item_scores = scores.item_scores(attempt=attempt, responses=every, overrides=overrides)
    results = []
    for item in items:
        item_tries = tries.get(item.pk, [])
        counting = scores.counting_try(rule=rule, tries=item_tries)
        score = item_scores.get(item.pk)
        if item.pk in overrides:
            status = "override"
        else:
            status = counting.status if counting is not None else "blank"
        results.append(
            ItemResult(
                item=item,
                points=None if score is None else score * item.points,
                status=status,
                tries=len(item_tries),
                misconception=counting.misconception if counting is not None else "",
                time=times.get(item.pk),
            )
        )
    return results


def _learners_by_id(*, quiz: Quiz) -> dict[int, Learner]:
    """Every learner of the quiz by user id: those who made an attempt, and those an LMS
    launched into it who made none yet and hold no role in its course (two to four queries)."""
    contexts = lms_contexts(quiz=quiz)
    users = get_user_model().objects.filter(
        pk__in=Attempt.objects.counted().filter(quiz=quiz).values("user_id")
    )
    learners = {user.pk: learner_of(user, contexts.get(user.pk, "")) for user in users}
    missing = set(contexts) - set(learners)
    if missing:
        # The course's instructors and assistants launch its links too: they are no learners.
        missing -= set(
            CourseRole.objects.filter(course_id=quiz.lesson.course_id)
            .order_by()
            .values_list("user_id", flat=True)
        )
    if missing:
        for user in get_user_model().objects.filter(pk__in=missing):
            learners[user.pk] = learner_of(user, contexts[user.pk])
    return learners


def by_name(learner: Learner) -> tuple[str, str, int]:
    """The grid's order of learners: by name, then user name, then id (names repeat)."""
    return (learner.name.casefold(), learner.username, learner.user_id)


def quiz_learners(*, quiz: Quiz) -> list[Learner]:
    """Every learner of a quiz (see quiz_results), by_name."""
    return sorted(_learners_by_id(quiz=quiz).values(), key=by_name)


class AnswerRow(NamedTuple):
    """What the grid reads of an answer (grading.scores' Scored, and the time it was saved)."""

    id: int
    attempt_id: int
    quiz_item_id: int
    status: str
    score: float
    counts_as_try: bool
    misconception: str
    created_at: datetime


def _saved_answers(*, attempt_ids: list[int]) -> dict[int, list[AnswerRow]]:
    """Every answer of the attempts, invalid ones too (they score nothing but take the
    learner's time), by attempt id in the order saved: one query.

    Plain rows, not model instances: the grid sorts, filters and averages over every learner,
    so at 3,000 learners it reads 30,000 to 90,000 answers a request, and making a Response of
    each was two thirds of the page's CPU (docs/performance.md, "The results grid, sorted")."""
    saved: dict[int, list[AnswerRow]] = defaultdict(list)
    rows = (
        Response.objects.filter(attempt_id__in=attempt_ids)
        .order_by("created_at", "id")
        .values_list(*AnswerRow._fields)
    )
    for row in rows:
        answer = AnswerRow(*row)
        saved[answer.attempt_id].append(answer)
    return saved


def quiz_results(
    *,
    quiz: Quiz,
    rule: AttemptRule,
    per_item: bool = True,
    learners: Sequence[Learner] | None = None,
) -> QuizResults:
    """The quiz's `learners` (all of them, by_name, when None) with the attempts `rule` counts
    (one row per counted attempt; a learner without one gets a row with no attempt), in the
    order given.

    Learners are those who made an attempt, whichever way they came (site sign-up, an
    integration, an LMS), and those an LMS launched into the quiz who made none yet and hold
    no role in its course (quiz_learners). Only the given learners' attempts and answers are
    read, so a page of the grid costs the same whatever the quiz's size. Without `per_item`
    the answers are not read (the gradebook needs only each attempt's score).
    """
    items = list(
        QuizItem.objects.filter(quiz=quiz)
        .select_related("question", "problem", "pool")
        .order_by("order", "id")
    )
    if learners is None:
        learners = quiz_learners(quiz=quiz)
        attempts = Attempt.objects.counted().filter(quiz=quiz)
    else:
        attempts = Attempt.objects.counted().filter(
            quiz=quiz, user_id__in=[learner.user_id for learner in learners]
        )
    by_user: dict[int, list[Attempt]] = defaultdict(list)
    for attempt in attempts.order_by("number"):
        attempt.quiz = quiz  # the rules read the quiz's settings: no query per attempt
        by_user[attempt.user_id].append(attempt)
    counted = {
        learner.user_id: attempts_counted(rule, by_user.get(learner.user_id, []))
        for learner in learners
    }
    saved: dict[int, list[AnswerRow]] = {}
    overrides: dict[int, dict[int, float]] = {}
    if per_item:
        saved = _saved_answers(
            attempt_ids=[attempt.pk for rows in counted.values() for attempt in rows]
        )
        overrides = scores.quiz_item_overrides(quiz=quiz)
    rows = []
    for learner in learners:
        made = len(by_user.get(learner.user_id, []))
        if not counted[learner.user_id]:
            answering = any(
                a.status == Attempt.Status.IN_PROGRESS for a in by_user.get(learner.user_id, [])
            )
            rows.append(
                ResultRow(learner=learner, attempts_made=made, attempt=None, answering=answering)
            )
        for attempt in counted[learner.user_id]:
            results = []
            if per_item:
                results = _item_results(
                    attempt=attempt,
                    items=items,
                    saved=saved.get(attempt.pk, []),
                    overrides=overrides.get(attempt.pk, {}),
                )
            rows.append(ResultRow(learner, made, attempt, results))
    return QuizResults(quiz=quiz, rule=rule, items=items, rows=rows)
