from pathlib import Path

from django.core.management.base import BaseCommand
from django.utils.translation import gettext as _

from courses.bank.exporter import bank_export
from courses.management.lessons import lesson_named


class Command(BaseCommand):
    help = "Write a lesson as a bank file (the format import_bank reads)."

    def add_arguments(self, parser):
        parser.add_argument("lesson", help="The lesson's slug.")
        parser.add_argument(
            "--output", "-o", type=Path, help="File to write (default: standard output)."
        )

    def handle(self, *args, lesson, output, **options):
        found = lesson_named(lesson)
        text = bank_export(lesson=found)
        if output:
            output.write_text(text, encoding="utf-8")
            self.stdout.write(self.style.SUCCESS(_("Wrote %(file)s") % {"file": output}))
        else:
            self.stdout.write(text, ending="")
