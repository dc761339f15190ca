"""Make a one-time dynamic registration link, as the setup page's button does, for a server
without a staff member at a browser:

    manage.py lti_registration_link --base-url https://softgrade.example.edu [--days 1] \
        [--course SLUG …]

The registration made through the link is granted the courses given, and no other.
"""

from __future__ import annotations

from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse
from django.utils.translation import gettext as _

from lti.dynamic_registration import INVITE_LIFETIME, invite_create
from lti.management.commands.lti_register import add_course_option
from lti.registrations import RegistrationInvalid, courses_by_slug, https_url_error

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
        add_course_option(parser)
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
            raise CommandError(_("--days must be from 1 to %(most)s.") % {"most": MAX_DAYS})
        try:
            courses = courses_by_slug(options["course_slugs"])
        except RegistrationInvalid as invalid:
            raise CommandError(" ".join([*invalid.errors, _("No link was made.")])) from invalid
        invite, token = invite_create(
            created_by=None, courses=courses.values(), lifetime=timedelta(days=options["days"])
        )
        self.stdout.write(base_url + reverse("lti:register", args=[token]))
        self.stderr.write(
            _(
                "Works once, until %(moment)s UTC: give it to the LMS administrator as the "
                "tool's registration URL."
            )
            % {"moment": f"{invite.expires_at:%Y-%m-%d %H:%M}"}
        )
