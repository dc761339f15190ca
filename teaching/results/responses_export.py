"""A quiz's responses as CSV, beside the gradebook: one line per learner with the attempt the
chosen rule counts (first, best or last submitted, as the gradebook: teaching.results.grades),
and one column per quiz item holding what the learner answered there.

What a learner answered at an item is the answer that counts for its score (grading.scores.
counting_try: the latest saved answer, or the best try with immediate feedback), as the results
grid and the attempt review mark it: for a question the text of the choices picked (in the
authored order, math as plain text, "; " between them), for a problem the value(s) as typed
(a number, a vector, a matrix); empty when the item was not answered (or the learner has no
attempt the rule counts). Invalid input is never an answer that counts.

Instructors see the right answers on every page already; the file adds none. Times are UTC in
ISO 8601, and the column says so. Every cell a spreadsheet would read as a formula is made safe
(teaching.results.gradebook.spreadsheet_safe): names, emails and answers come from learners. A
typed answer that is one plain decimal number ("-0.5", "1e-3") is no formula and stays as typed,
so negative answers read and sort as numbers; "-2+3" is an expression and is prefixed.

The lines are made as the response is sent, CHUNK learners' answers read at a time (two queries
per chunk), so memory stays flat for a quiz of thousands of learners.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from datetime import UTC
from itertools import batched

from django.db.models import Prefetch

from courses.models import Choice, Quiz, QuizItem
from courses.plain_math import plain_math
from grading import scores
from grading.models import Attempt, Response
from teaching.results.gradebook import line_writer, spreadsheet_safe
from teaching.results.grades import quiz_grades
from teaching.results.reads import AttemptRule

COLUMNS = [
    "learner",
    "name",
    "email",
    "lms_course",
    "attempt",
    "score",
    "max_score",
    "submitted_at_utc",
]

# One decimal number and nothing else: what a spreadsheet reads as a number, never a formula.
PLAIN_NUMBER = re.compile(r"-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
CHUNK = 500  # learners whose answers are read at once
CHOICE_SEPARATOR = "; "


def item_heading(number: int, item: QuizItem) -> str:
    """An item's column: its place in the quiz's order, its points and what it is."""
    if item.pool_id:
        what = f"draws from {plain_math(item.pool.title)}"
    elif item.problem_id:
        what = plain_math(item.problem.title)
    else:
        what = item.question.slug
    return f"item {number} ({item.points} pt{'s' if item.points != 1 else ''}): {what}"


def answer_text(response: Response) -> str:
    """What one response answered, as the file writes it."""
    if response.question_id:
        picked = sorted(response.choices.all(), key=lambda choice: (choice.order, choice.pk))
        return CHOICE_SEPARATOR.join(plain_math(choice.text) for choice in picked)
    return response.text


def counting_answers(*, quiz: Quiz, attempts: Sequence[Attempt]) -> dict[int, dict[int, str]]:
    """Attempt id -> quiz item id -> the answer that counts, as text (answer_text); items
    without one are absent. Two queries (the answers, the choices they picked)."""
    rule = scores.scoring_rule(quiz)
    tries: dict[int, dict[int, list[Response]]] = defaultdict(lambda: defaultdict(list))
    answers = (
        Response.objects.filter(
            attempt__in=[attempt.pk for attempt in attempts], counts_as_try=True
        )
        .only("id", "attempt_id", "quiz_item_id", "question_id", "text", "score", "created_at")
        .prefetch_related(Prefetch("choices", queryset=Choice.objects.only("id", "text", "order")))
        .order_by("created_at", "id")
    )
    for response in answers:
        tries[response.attempt_id][response.quiz_item_id].append(response)
    found: dict[int, dict[int, str]] = {}
    for attempt_id, by_item in tries.items():
        found[attempt_id] = {}
        for item_id, item_tries in by_item.items():
            counting = scores.counting_try(rule=rule, tries=item_tries)
            if counting is not None:
                found[attempt_id][item_id] = answer_text(counting)
    return found


def answer_cell(answer: str | None) -> object:
    """An answer as its cell: a plain number as typed, anything else spreadsheet_safe."""
    if answer is not None and PLAIN_NUMBER.fullmatch(answer):
        return answer
    return spreadsheet_safe(answer)


def _utc(value) -> str | None:
    return value.astimezone(UTC).isoformat() if value is not None else None


def response_lines(*, quiz: Quiz, rule: AttemptRule) -> Iterator[str]:
    """The CSV's lines, header first: per learner by name, the attempt `rule` counts with its
    score and, per item, the answer that counts; empty cells when none is submitted."""
    items = list(
        QuizItem.objects.filter(quiz=quiz)
        .select_related("question", "problem", "pool")
        .order_by("order", "id")
    )
    grades = quiz_grades(quiz=quiz, rule=rule)
    writer = line_writer()
    headings = [item_heading(number, item) for number, item in enumerate(items, start=1)]
    yield writer.writerow([spreadsheet_safe(cell) for cell in COLUMNS + headings])
    for chunk in batched(grades, CHUNK):
        attempts = [grade.attempt for _, grade in chunk if grade.attempt is not None]
        for attempt in attempts:
            attempt.quiz = quiz  # the scoring rule reads the quiz's settings
        answers = counting_answers(quiz=quiz, attempts=attempts) if attempts else {}
        for learner, grade in chunk:
            given = answers.get(grade.attempt.pk, {}) if grade.attempt is not None else {}
            cells = [
                learner.username,
                learner.name,
                learner.email,
                learner.lms_context,
                grade.attempt_number,
                grade.score,
                grade.max_score,
                _utc(grade.submitted_at),
            ]
            answered = [answer_cell(given.get(item.pk)) for item in items]
            yield writer.writerow([spreadsheet_safe(cell) for cell in cells] + answered)
