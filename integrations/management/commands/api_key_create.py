"""Make an API key from the command line (the admin does the same): prints the token once."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from courses.models import Course
from integrations import services
from integrations.models import Integration


class Command(BaseCommand):
    help = (
        "Create an API key for an integration (created if new), reaching the given courses. "
        "Prints the key once: only its digest is stored."
    )

    def add_arguments(self, parser):
        parser.add_argument("--integration", required=True, help="The integration's name.")
        parser.add_argument(
            "--course",
            action="append",
            required=True,
            dest="courses",
            metavar="SLUG",
            help="A course slug the key reaches; repeat for more.",
        )
        parser.add_argument("--name", default="command line", help="What uses the key.")

    def handle(self, *args, integration: str, courses: list[str], name: str, **options):
        found = {course.slug: course for course in Course.objects.filter(slug__in=courses)}
        missing = [slug for slug in courses if slug not in found]
        if missing:
            raise CommandError(_("No course with slug %(slugs)s.") % {"slugs": ", ".join(missing)})
        owner, created = Integration.objects.get_or_create(name=integration)
        if created:
            self.stderr.write(_("Created integration '%(name)s'.") % {"name": owner.name})
        key, token = services.api_key_create(integration=owner, name=name, courses=found.values())
        self.stderr.write(
            f"API key {key.name!r} for {owner.name!r} reaching {', '.join(courses)}; "
            "copy it now, it is not shown again:"
        )
        self.stdout.write(token)
