"""Attempts whose time ran out, closed on the server whether or not their learner comes back.

A learner who leaves before the deadline would otherwise keep an attempt in progress forever,
with no score in the results, the gradebook, the grades API or the LMS. Three ways close it,
all through closing.attempt_expire_if_overdue (the submit path: one row lock, so whichever
comes first closes it, and it is scored and passed back once):

- a task enqueued when the attempt starts, to run at its close moment (grading/tasks.py), and
  again when an accommodation moves that moment earlier (services/accommodations.py);
- a sweep, `manage.py close_overdue_attempts`, for any the task missed (a worker that was
  down, a task that could not be queued);
- every read that shows attempts calls overdue_attempts_close first, so no page, export or API
  answer shows an attempt whose time ran out as open, whether the worker runs or not.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from django.utils import timezone

from courses.models import Quiz
from grading.models import Attempt
from grading.services.closing import attempt_closes_at, attempt_expire_if_overdue


def overdue_attempts_close(
    *,
    user: AbstractBaseUser | None = None,
    quiz: Quiz | None = None,
    among: QuerySet[Attempt] | None = None,
    now: datetime | None = None,
) -> int:
    """Close every attempt whose time ran out among the learner's, the quiz's, or `among`
    (all of them when none is given); returns how many this call closed.

    Pages call it before they read attempts: one query on the index of open deadlines
    (Attempt's attempt_open_deadline) when nothing is overdue, whatever the number of attempts.
    """
    now = now or timezone.now()
    rows = Attempt.objects.all() if among is None else among
    if user is not None:
        rows = rows.filter(user=user)
    if quiz is not None:
        rows = rows.filter(quiz=quiz)
    # Past the deadline; the quiz's grace period is checked per attempt (it is the quiz's).
    due = rows.filter(status=Attempt.Status.IN_PROGRESS, deadline__lte=now)
    closed = 0
    for attempt in due.select_related("quiz").order_by("deadline", "pk"):
        closed += attempt_expire_if_overdue(attempt=attempt, now=now)
    return closed


def attempt_close_when_due(
    *, attempt_id: int, now: datetime | None = None
) -> tuple[str, datetime | None]:
    """What the task enqueued at an attempt's start does at its close moment: close it if its
    time ran out. If its deadline moved later since (an accommodation), the new close moment
    comes back with "rescheduled", for grading.tasks to wait for it (this module queues
    nothing, so the task and the closing do not import each other)."""
    now = now or timezone.now()
    attempt = Attempt.objects.select_related("quiz").filter(pk=attempt_id).first()
    if attempt is None:
        return "missing", None
    if attempt_expire_if_overdue(attempt=attempt, now=now):
        return "closed", None
    closes_at = attempt_closes_at(attempt)
    if attempt.status != Attempt.Status.IN_PROGRESS or closes_at is None:
        return "not open", None
    return "rescheduled", closes_at
