"""Sheets saved at the same moment on PostgreSQL leave each answer once and the score a full
rescore gives (the races run in threads with their own connections, tests/api/test_concurrency)."""

from __future__ import annotations

from grading.models import Attempt, Response
from grading.services.attempts import attempt_start
from grading.services.responses import SheetAnswer, attempt_answers_save
from tests.api.test_concurrency import pytestmark as race_marks
from tests.api.test_concurrency import simultaneously
from tests.factories import UserFactory
from tests.grading.test_services_sheets import _exam_of, _rescored, _whole_sheet

pytestmark = race_marks

ROUNDS = 6


def _saving(attempt: Attempt, sheet: dict[int, SheetAnswer], key: str):
    def save():
        # Each request reads its own attempt, as each page request does.
        return attempt_answers_save(
            attempt=Attempt.objects.get(pk=attempt.pk), answers=sheet, idempotency_key=key
        )

    return save


def test_the_same_sheet_sent_twice_at_once_is_saved_once(shipped_bank):
    quiz = _exam_of(6)
    for round_ in range(ROUNDS):
        attempt = attempt_start(user=UserFactory(), quiz=quiz)
        sheet = _whole_sheet(attempt, right=True)
        save = _saving(attempt, sheet, f"page-{round_}")
        first, second = simultaneously(save, save)
        # The one that wrote second finds the sheet saved already: nothing new.
        assert sorted([len(first), len(second)]) in ([0, 6], [6, 6])
        assert Response.objects.filter(attempt=attempt).count() == len(sheet)
        attempt.refresh_from_db()
        assert attempt.score == attempt.max_score == _rescored(attempt)


def test_the_same_unreadable_sheet_twice_at_once_is_stored_once_and_handed_back_twice(
    shipped_bank,
):
    """No counted answer moves the attempt, so the key's unique constraint stops the twin; it
    reads again and hands back the first one's rows."""
    quiz = _exam_of(4)
    for round_ in range(ROUNDS):
        attempt = attempt_start(user=UserFactory(), quiz=quiz)
        sheet = {
            item.pk: SheetAnswer(text="9^9^9") for item in quiz.items.filter(problem__isnull=False)
        }
        save = _saving(attempt, sheet, f"page-{round_}")
        first, second = simultaneously(save, save)
        assert {k: r.pk for k, r in first.items()} == {k: r.pk for k, r in second.items()}
        assert len(first) == len(sheet)
        assert Response.objects.filter(attempt=attempt).count() == len(sheet)


def test_two_sheets_of_different_items_at_once_both_count(shipped_bank):
    quiz = _exam_of(8)
    for round_ in range(ROUNDS):
        attempt = attempt_start(user=UserFactory(), quiz=quiz)
        sheet = list(_whole_sheet(attempt, right=True).items())
        halves = dict(sheet[::2]), dict(sheet[1::2])
        first, second = simultaneously(
            _saving(attempt, halves[0], f"a-{round_}"), _saving(attempt, halves[1], f"b-{round_}")
        )
        assert (set(first), set(second)) == (set(halves[0]), set(halves[1]))
        attempt.refresh_from_db()
        assert attempt.score == attempt.max_score == _rescored(attempt)
