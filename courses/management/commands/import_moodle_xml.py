from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

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
                raise CommandError(f"No pool {pool!r}.")
        try:
            with path.open("rb") as file:
                source = read_source(file)
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc.strerror}") from exc
        try:
            report = moodle_import(
                source=source, file_name=path.name, lesson=found, write=not dry_run, pool=joined
            )
        except MoodleXmlError as exc:
            for issue in exc.issues:
                self.stderr.write(str(issue))
            raise CommandError(
                f"The file was not imported: {len(exc.issues)} error(s); nothing was changed."
            ) from exc
        for line in report.lines():
            self.stdout.write(line)
        self.stdout.write(
            self.style.SUCCESS(
                f"{'Imported' if report.written else 'Would import'} {len(report.imported)} "
                f"item(s) into {found.slug}; {len(report.reported)} question(s) left out."
            )
        )
