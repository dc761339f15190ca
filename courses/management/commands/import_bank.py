from pathlib import Path

from django.contrib.auth import get_user_model
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
        parser.add_argument(
            "--by",
            metavar="USERNAME",
            help="Who changes the points of quizzes learners have attempted (an instructor of "
            "the quiz's course): their attempts are regraded in their name, audited.",
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="Say what the import would do, regrades of attempted quizzes included, and "
            "change nothing.",
        )

    def handle(self, *args, paths, by, dry_run, **options):
        files = [file for path in (paths or [BANKS_DIR]) for file in bank_paths(path)]
        if not files:
            raise CommandError("No bank files found.")
        missing = [str(f) for f in files if not f.exists()]
        if missing:
            raise CommandError(f"No such bank file: {', '.join(missing)}")
        user = None
        if by is not None:
            user = get_user_model().objects.filter(username=by).first()
            if user is None:
                raise CommandError(f"No user named {by!r}: --by names who regrades attempts.")
        try:
            summaries = bank_import(paths=files, by=user, dry_run=dry_run)
        except BankError as exc:
            for issue in exc.issues:
                self.stderr.write(str(issue))
            raise CommandError(
                f"The bank was not imported: {len(exc.issues)} error(s); nothing was changed."
            ) from exc
        done = "Would import (dry run, nothing changed):" if dry_run else "Imported"
        for summary in summaries:
            self.stdout.write(self.style.SUCCESS(f"{done} {summary}"))
