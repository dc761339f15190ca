"""Background tasks (Django's Tasks framework; the database backend runs them in `db_worker`)."""

from __future__ import annotations

from django.tasks import task

from lti.passback import passback_deliver


@task()
def score_passback_deliver(passback_id: int) -> str:
    """Try once to send a queued score to its LMS; a failure schedules the next try itself."""
    passback = passback_deliver(passback_id=passback_id)
    return passback.status if passback else "missing"
