"""Close every attempt whose time ran out: the sweep behind the task each start enqueues."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.utils.translation import ngettext

from grading.services.overdue import overdue_attempts_close


class Command(BaseCommand):
    help = (
        "Close every attempt in progress whose deadline and grace period are over, as its quiz "
        "chooses (submit what was saved, or never submitted: no score). Run it every minute "
        "(compose.yaml's sweeps service does); the task queued at each start usually has."
    )

    def handle(self, *args, **options) -> None:
        closed = overdue_attempts_close()
        self.stdout.write(
            ngettext(
                "Closed %(count)s overdue attempt.", "Closed %(count)s overdue attempts.", closed
            )
            % {"count": closed}
        )
