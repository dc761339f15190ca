"""Delete prepared attempts never started: the clean-up behind the quiz page's preparing."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.utils.translation import ngettext

from grading.services.prepared import prepared_attempts_sweep


class Command(BaseCommand):
    help = (
        "Delete, with their draws and variants, the prepared attempts (made when a learner "
        "opened a quiz page) never started: those whose quiz has closed for their learner, and "
        "those older than SOFTGRADE_PREPARED_ATTEMPT_DAYS days. They count nowhere, so nothing "
        "a learner or an instructor sees changes. Run it hourly (compose.yaml's sweeps service "
        "does)."
    )

    def handle(self, *args, **options) -> None:
        deleted = prepared_attempts_sweep()
        self.stdout.write(
            ngettext(
                "Deleted %(count)s prepared attempt never started.",
                "Deleted %(count)s prepared attempts never started.",
                deleted,
            )
            % {"count": deleted}
        )
