"""A learner's grade at a quiz, computed once: the gradebook CSV (teaching.results.gradebook) and
the grades API (teaching.api) both call `grade_of`, so the file an instructor downloads and the
numbers an LMS pulls never disagree.

A grade counts one submitted attempt, chosen by an attempt rule (teaching.results.reads.AttemptRule:
first, best or last); `default_rule` is the one a gradebook counts when none is chosen.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from courses.models import Quiz
from grading.models import Attempt
from teaching.results.reads import AttemptRule, Learner, attempts_counted, quiz_results

# A grade is one attempt's score: every attempt at once is the results grid's view, not a grade.
GRADE_RULES = (AttemptRule.FIRST, AttemptRule.BEST, AttemptRule.LAST)


def default_rule(quiz: Quiz) -> AttemptRule:
    """The rule a gradebook counts when none is chosen, for the CSV, the grid's export link and
    the API alike: best, the score the LMS is sent (grading.scores.best_of). A quiz has no
    scoring rule of its own; were one added, it would be read here."""
    return AttemptRule.BEST


@dataclass(frozen=True)
class Grade:
    """One learner's grade at one quiz under one rule."""

    rule: AttemptRule
    attempts: int  # made, in progress ones too
    submitted_attempts: int
    # The submitted attempt the rule counts; None while none is submitted.
    attempt: Attempt | None
    max_score: float
    last_submitted_at: datetime | None
    updated_at: datetime | None  # the latest change to any of the learner's attempts

    @property
    def score(self) -> float | None:
        return None if self.attempt is None else self.attempt.score

    @property
    def attempt_number(self) -> int | None:
        return None if self.attempt is None else self.attempt.number

    @property
    def submitted_at(self) -> datetime | None:
        return None if self.attempt is None else self.attempt.submitted_at


def grade_of(*, rule: AttemptRule, attempts: Sequence[Attempt], quiz_max: float) -> Grade:
    """A learner's grade from their attempts at one quiz: the attempt `rule` counts (an attempt
    in progress never gives a score: an exam's saved answers are graded before submission) and
    its score out of its own maximum, or out of the quiz's (`quiz_max`) when none counts."""
    if rule not in GRADE_RULES:
        raise ValueError(f"A grade counts one attempt per learner, not {rule!r}.")
    counted = attempts_counted(rule, attempts)
    attempt = counted[0] if counted else None
    submitted = [a.submitted_at for a in attempts if a.status == Attempt.Status.SUBMITTED]
    return Grade(
        rule=rule,
        attempts=len(attempts),
        submitted_attempts=len(submitted),
        attempt=attempt,
        max_score=float(attempt.max_score if attempt is not None else quiz_max),
        last_submitted_at=max((at for at in submitted if at is not None), default=None),
        updated_at=max((a.updated_at for a in attempts), default=None),
    )


def quiz_grades(*, quiz: Quiz, rule: AttemptRule) -> list[tuple[Learner, Grade]]:
    """Every learner of a quiz (teaching.results.reads.quiz_results': whichever way they came, and
    those an LMS sent who made no attempt yet) with their grade, by name."""
    results = quiz_results(quiz=quiz, rule=AttemptRule.ALL, per_item=False)
    learners: dict[int, Learner] = {}
    attempts: dict[int, list[Attempt]] = defaultdict(list)
    for row in results.rows:
        learners.setdefault(row.learner.user_id, row.learner)
        if row.attempt is not None:
            attempts[row.learner.user_id].append(row.attempt)
    return [
        (learner, grade_of(rule=rule, attempts=attempts[user_id], quiz_max=results.max_score))
        for user_id, learner in learners.items()
    ]
