"""Background tasks of the learner's side (Django's Tasks framework; the database backend runs
them in `db_worker`, `make worker`)."""

from __future__ import annotations

import logging
from datetime import datetime

from django.conf import settings
from django.contrib.auth.forms import PasswordResetForm
from django.tasks import task
from django.utils import translation

from grading.services.overdue import attempt_close_when_due

logger = logging.getLogger(__name__)


@task()
def password_reset_mail_send(
    *, email: str, domain: str, use_https: bool, language: str | None = None
) -> int:
    """Mail a reset link to each active account with a usable password that uses `email`;
    returns how many were sent (0 for an address no account uses).

    The reset page enqueues this for every request it accepts, known address or not, so its
    answer takes the same time either way: looking the accounts up, making their tokens and
    talking to the mail server all happen here, in the worker.

    The mail is in `language`, the one the page that asked for it was in: the worker has no
    request whose language it could follow (None: the site's default language).
    """
    form = PasswordResetForm({"email": email})
    if not form.is_valid():
        return 0
    users = list(form.get_users(form.cleaned_data["email"]))
    if users:
        # Django's own sending: the same templates, token and one-use link as the reset page.
        with translation.override(language or settings.LANGUAGE_CODE):
            form.save(domain_override=domain, use_https=use_https)
    return len(users)


@task()
def attempt_close(attempt_id: int) -> str:
    """Close an attempt whose time ran out (grading/services/overdue.py); one whose close moment
    moved later is queued again for the new moment."""
    outcome, closes_at = attempt_close_when_due(attempt_id=attempt_id)
    if closes_at is not None:
        attempt_close_schedule(attempt_id=attempt_id, when=closes_at)
    return outcome


def attempt_close_schedule(*, attempt_id: int, when: datetime) -> None:
    """Queue the attempt's closing for `when`. A queue failure loses nothing: the sweep
    (`manage.py close_overdue_attempts`) and every read close it all the same."""
    try:
        attempt_close.using(run_after=when).enqueue(attempt_id)
    except Exception:
        logger.exception("Closing attempt %s could not be queued; the sweep will", attempt_id)
