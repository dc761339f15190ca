"""Delete expired LTI login nonces, so the table holds only logins still under way."""

from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from lti.launch.login import NONCE_SWEEP_GRACE, launch_nonces_sweep


class Command(BaseCommand):
    help = "Delete LTI login nonces expired for more than an hour (run it every hour or so)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--grace-minutes",
            type=int,
            default=int(NONCE_SWEEP_GRACE.total_seconds() // 60),
            help="Only nonces expired for longer than this are deleted (default 60).",
        )

    def handle(self, *args, **options):
        if options["grace_minutes"] < 0:
            raise CommandError(_("--grace-minutes cannot be negative."))
        count = launch_nonces_sweep(grace=timedelta(minutes=options["grace_minutes"]))
        self.stdout.write(
            ngettext(
                "Deleted %(count)s expired LTI login nonce.",
                "Deleted %(count)s expired LTI login nonces.",
                count,
            )
            % {"count": count}
        )
