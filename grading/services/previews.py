"""An instructor previews a quiz as a learner sees it: a real attempt on the learner's pages,
flagged `preview`, that counts nowhere.

A preview is the quiz as its learners get it (the same items, variants, order, time limit,
feedback and answer release, all decided by grading.policy on the same pages), so an instructor
can check a quiz end to end. It counts nowhere (grading.models.counted_attempt): not against the
attempt limit, not in reports, grades, best scores or LTI passback, and not in the instructor's
own attempts, whose numbers and attempt in progress it leaves alone (previews are numbered in
a series of their own).

Who may preview is SOFTGRADE_PREVIEW_RULE's decision (teaching.access.teaches_quiz: the course's
instructors and teaching assistants, and superusers), so grading never imports the app that
knows course roles; without a rule only active superusers may. The same people never make an
attempt that counts: whatever they start, on the quiz page or through the API, is a preview
(grading.services.attempts.attempt_start_or_resume asks may_preview first, and starts it there).

Opening and closing times do not apply to a preview: an instructor checks a quiz before it opens
more than at any other time, and after it closes to see what learners saw. The time limit does:
a preview runs against the clock as a learner's attempt would, and ends at the quiz's close if
that comes first and is still ahead.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone
from django.utils.translation import gettext

from courses.models import Quiz
from grading.models import Attempt
from grading.services.attempts import may_preview, preview_start_or_resume
from grading.services.errors import ServiceError

# may_preview is asked by every start (grading.services.attempts); the preview pages ask it here.
__all__ = ["PreviewNotAllowed", "may_preview", "preview_start"]


class PreviewNotAllowed(ServiceError):
    code = "permission_denied"


def preview_start(
    *, user: AbstractBaseUser, quiz: Quiz, fresh: bool = False, now: datetime | None = None
) -> Attempt:
    """The user's preview of the quiz in progress, started if there is none; with `fresh`, a
    new one, the preview in progress submitted first (it counts nowhere, so nothing is lost).

    Refused (PreviewNotAllowed, nothing written) unless may_preview. Previews are unlimited and
    start whether the quiz is open or not.
    """
    if not may_preview(user=user, quiz=quiz):
        raise PreviewNotAllowed(gettext("Only the course's instructors may preview its quizzes."))
    now = now or timezone.now()
    return preview_start_or_resume(user=user, quiz=quiz, now=now, fresh=fresh).attempt
