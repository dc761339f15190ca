from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from courses.bank.importer import BANKS_DIR, bank_import, bank_paths
from courses.bank.issues import BankError


class Command(BaseCommand):
    help = (
        "Import lesson bank files (YAML), upserting by slug in one transaction. "
        "A bank with any error changes nothing; every error is listed with its location."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "paths",
            nargs="*",
            type=Path,
            help=f"Bank files or folders of *.yaml files (default: {BANKS_DIR}).",
        )

    def handle(self, *args, paths, **options):
        files = [file for path in (paths or [BANKS_DIR]) for file in bank_paths(path)]
        if not files:
            raise CommandError("No bank files found.")
        missing = [str(f) for f in files if not f.exists()]
        if missing:
            raise CommandError(f"No such bank file: {', '.join(missing)}")
        try:
            summaries = bank_import(paths=files)
        except BankError as exc:
            for issue in exc.issues:
                self.stderr.write(str(issue))
            raise CommandError(
                f"The bank was not imported: {len(exc.issues)} error(s); nothing was changed."
            ) from exc
        for summary in summaries:
            self.stdout.write(self.style.SUCCESS(f"Imported {summary}"))
