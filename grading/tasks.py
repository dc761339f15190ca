"""Background tasks (Django's Tasks framework; the database backend runs them in `db_worker`)."""

from __future__ import annotations

import logging
from datetime import datetime

from django.tasks import task

logger = logging.getLogger(__name__)


@task()
def attempt_close(attempt_id: int) -> str:
    """Close an attempt whose time ran out (grading/services/overdue.py)."""
    from grading.services.overdue import attempt_close_when_due  # the services enqueue this

    return attempt_close_when_due(attempt_id=attempt_id)


def attempt_close_schedule(*, attempt_id: int, when: datetime) -> None:
    """Queue the attempt's closing for `when`. A queue failure loses nothing: the sweep
    (`manage.py close_overdue_attempts`) and every read close it all the same."""
    try:
        attempt_close.using(run_after=when).enqueue(attempt_id)
    except Exception:
        logger.exception("Closing attempt %s could not be queued; the sweep will", attempt_id)
