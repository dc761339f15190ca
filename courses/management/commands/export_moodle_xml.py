from pathlib import Path

from django.core.management.base import BaseCommand
from django.utils.translation import ngettext

from courses.management.lessons import lesson_named
from courses.moodle_xml.writer import moodle_export


class Command(BaseCommand):
    help = (
        "Write a lesson's questions and fixed-answer formula problems as Moodle XML; problems "
        "whose numbers are drawn per learner are listed and left out."
    )

    def add_arguments(self, parser):
        parser.add_argument("lesson", help="The lesson's slug.")
        parser.add_argument(
            "--output", "-o", type=Path, help="File to write (default: standard output)."
        )

    def handle(self, *args, lesson, output, **options):
        found = lesson_named(lesson)
        export = moodle_export(lesson=found)
        for line in export.left_out:
            self.stderr.write(line)
        if output:
            output.write_text(export.xml, encoding="utf-8")
            count = len(export.written)
            wrote = ngettext(
                "Wrote %(count)s question to %(file)s",
                "Wrote %(count)s questions to %(file)s",
                count,
            ) % {"count": count, "file": output}
            self.stdout.write(self.style.SUCCESS(wrote))
        else:
            self.stdout.write(export.xml, ending="")
