"""Make a one-time dynamic registration link, as the setup page's button does, for a server
without a staff member at a browser:

    manage.py lti_registration_link --base-url https://softgrade.example.edu [--days 1]
"""

from __future__ import annotations

from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse

from lti.dynamic_registration import INVITE_LIFETIME, invite_create
from lti.registrations import https_url_error

MAX_DAYS = 30


class Command(BaseCommand):
    help = (
        "Print a one-time LTI Dynamic Registration link for an LMS administrator. It works "
        "once, until it expires; only its hash is kept."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--base-url",
            required=True,
            help="softgrade's https address as the LMS reaches it, e.g. https://softgrade.example.edu",
        )
        parser.add_argument(
            "--days",
            type=int,
            default=INVITE_LIFETIME.days,
            help=f"how long the link works (1 to {MAX_DAYS} days; default {INVITE_LIFETIME.days})",
        )

    def handle(self, *args, **options):
        base_url = options["base_url"].rstrip("/")
        error = https_url_error(base_url, label="base URL", length=500)
        if error:
            raise CommandError(error)
        if not 1 <= options["days"] <= MAX_DAYS:
            raise CommandError(f"--days must be from 1 to {MAX_DAYS}.")
        invite, token = invite_create(created_by=None, lifetime=timedelta(days=options["days"]))
        self.stdout.write(base_url + reverse("lti:register", args=[token]))
        self.stderr.write(
            f"Works once, until {invite.expires_at:%Y-%m-%d %H:%M} UTC: give it to the LMS "
            "administrator as the tool's registration URL."
        )
