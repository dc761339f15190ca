"""An attempt's sheet stored by two requests at the same moment on PostgreSQL (the waiting room's
preparation and a first page, or two first pages): both succeed, one row, the current key
(the races run in threads with their own connections, tests/api/test_concurrency)."""

from __future__ import annotations

from courses.models import Quiz
from grading import sheets
from grading.models import Attempt, AttemptSheet
from grading.services.attempts import attempt_start
from tests.api.test_concurrency import pytestmark as race_marks
from tests.api.test_concurrency import simultaneously
from tests.factories import UserFactory

pytestmark = race_marks

ROUNDS = 4


def test_a_sheet_stored_twice_at_once_is_one_row_and_both_pages_show_it(shipped_bank):
    quiz = Quiz.objects.get(slug="attention-exam")
    for _ in range(ROUNDS):
        attempt = attempt_start(user=UserFactory(), quiz=quiz)

        def store(pk=attempt.pk):
            # Each request reads its own attempt, as each page request does.
            own = Attempt.objects.select_related("quiz").get(pk=pk)
            sheets.sheet_store(attempt=own)

        def page(pk=attempt.pk):
            own = Attempt.objects.select_related("quiz").get(pk=pk)
            return sheets.sheet_page(attempt=own)

        _, shown = simultaneously(store, page)
        stored = AttemptSheet.objects.get(attempt=attempt)
        assert stored.key == sheets.sheet_key(quiz)
        assert shown.count('class="card item"') == quiz.items.count()
        assert page() == shown
