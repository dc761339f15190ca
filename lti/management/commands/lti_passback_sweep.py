"""Queue again the scores whose delivery task was lost (say, a queue outage at submit time)."""

from datetime import timedelta

from django.core.management.base import BaseCommand
from django.utils.translation import ngettext

from lti.passback import passbacks_overdue_requeue


class Command(BaseCommand):
    help = "Re-queue LTI score passbacks whose next try is overdue (run it every few minutes)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--grace-minutes",
            type=int,
            default=15,
            help="Only passbacks overdue by more than this are queued again (default 15).",
        )

    def handle(self, *args, **options):
        count = passbacks_overdue_requeue(grace=timedelta(minutes=options["grace_minutes"]))
        self.stdout.write(
            ngettext(
                "Queued %(count)s overdue score passback again.",
                "Queued %(count)s overdue score passbacks again.",
                count,
            )
            % {"count": count}
        )
