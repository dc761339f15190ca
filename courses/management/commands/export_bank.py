from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from courses.bank.exporter import bank_export
from courses.models import Lesson


class Command(BaseCommand):
    help = "Write a lesson as a bank file (the format import_bank reads)."

    def add_arguments(self, parser):
        parser.add_argument("lesson", help="The lesson's slug.")
        parser.add_argument(
            "--output", "-o", type=Path, help="File to write (default: standard output)."
        )

    def handle(self, *args, lesson, output, **options):
        try:
            found = Lesson.objects.get(slug=lesson)
        except Lesson.DoesNotExist as exc:
            known = ", ".join(Lesson.objects.values_list("slug", flat=True)) or "none"
            raise CommandError(f"No lesson {lesson!r} (known: {known}).") from exc
        text = bank_export(lesson=found)
        if output:
            output.write_text(text, encoding="utf-8")
            self.stdout.write(self.style.SUCCESS(f"Wrote {output}"))
        else:
            self.stdout.write(text, ending="")
