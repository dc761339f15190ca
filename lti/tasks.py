"""Background tasks (Django's Tasks framework; the database backend runs them in `db_worker`):
sending a queued score to its LMS, and scheduling the next try when one fails.

The import runs one way: lti.passback (queueing) calls `passback_schedule` here, and this module
calls lti.passback_send for the try itself.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import transaction
from django.tasks import task

from lti.models import ScorePassback
from lti.passback_send import passback_try

logger = logging.getLogger("softgrade.lti")


def passback_schedule(*, passback: ScorePassback, when: datetime | None) -> None:
    """Put the passback's delivery on the task queue; a queue failure leaves the row queued,
    for `manage.py lti_passback_sweep` to pick up."""
    try:
        task = score_passback_deliver.using(run_after=when) if when else score_passback_deliver
        task.enqueue(passback.pk)
    except Exception:
        logger.exception("LTI passback %s could not be queued; the sweep will retry", passback.pk)


def passback_deliver(*, passback_id: int, now: datetime | None = None) -> ScorePassback | None:
    """Try once to send a queued score; record the outcome; schedule the next try if it failed.

    A passback that is no longer queued, or whose next try is not yet due (a duplicate task),
    is left alone.
    """
    with transaction.atomic():
        passback, retry_at = passback_try(passback_id=passback_id, now=now)
        if passback is not None and retry_at is not None:
            transaction.on_commit(lambda: passback_schedule(passback=passback, when=retry_at))
    return passback


@task()
def score_passback_deliver(passback_id: int) -> str:
    """Try once to send a queued score to its LMS; a failure schedules the next try itself."""
    passback = passback_deliver(passback_id=passback_id)
    return passback.status if passback else "missing"
