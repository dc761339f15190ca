from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from courses.management.lessons import lesson_named
from courses.models import Pool
from courses.moodle_xml.importer import moodle_import
from courses.moodle_xml.issues import MoodleXmlError
from courses.moodle_xml.reader import read_source


class Command(BaseCommand):
    help = (
        "Import multiple-choice, true/false and numerical questions from a Moodle XML file into "
        "a lesson, in one transaction: a file with any error changes nothing. Questions that do "
        "not map (other types, files, units) are listed by name and left out."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="The Moodle XML file.")
        parser.add_argument("--lesson", required=True, help="The slug of the lesson to add to.")
        parser.add_argument(
            "--pool",
            help="The slug of a pool of the lesson's course that every imported question and "
            "problem also joins.",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Check and report; write nothing."
        )

    def handle(self, *args, path, lesson, dry_run, pool=None, **options):
        found = lesson_named(lesson)
        joined = None
        if pool is not None:
            joined = Pool.objects.select_related("lesson__course").filter(slug=pool).first()
            if joined is None:
                raise CommandError(_("No pool '%(pool)s'.") % {"pool": pool})
        try:
            with path.open("rb") as file:
                source = read_source(file)
        except OSError as exc:
            raise CommandError(
                _("Cannot read %(path)s: %(error)s") % {"path": path, "error": exc.strerror}
            ) from exc
        try:
            report = moodle_import(
                source=source, file_name=path.name, lesson=found, write=not dry_run, pool=joined
            )
        except MoodleXmlError as exc:
            for issue in exc.issues:
                self.stderr.write(str(issue))
            count = len(exc.issues)
            raise CommandError(
                ngettext(
                    "The file was not imported: %(count)s error; nothing was changed.",
                    "The file was not imported: %(count)s errors; nothing was changed.",
                    count,
                )
                % {"count": count}
            ) from exc
        for line in report.lines():
            self.stdout.write(line)
        imported, left_out = len(report.imported), len(report.reported)
        if report.written:
            done = ngettext(
                "Imported %(count)s item into %(lesson)s;",
                "Imported %(count)s items into %(lesson)s;",
                imported,
            )
        else:
            done = ngettext(
                "Would import %(count)s item into %(lesson)s;",
                "Would import %(count)s items into %(lesson)s;",
                imported,
            )
        left = ngettext(
            "%(count)s question left out.", "%(count)s questions left out.", left_out
        ) % {"count": left_out}
        summary = done % {"count": imported, "lesson": found.slug}
        self.stdout.write(self.style.SUCCESS(f"{summary} {left}"))
