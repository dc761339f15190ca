from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

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
            raise CommandError(_("No bank files found."))
        missing = [str(f) for f in files if not f.exists()]
        if missing:
            raise CommandError(_("No such bank file: %(files)s") % {"files": ", ".join(missing)})
        user = None
        if by is not None:
            user = get_user_model().objects.filter(username=by).first()
            if user is None:
                raise CommandError(
                    _("No user named '%(name)s': --by names who regrades attempts.") % {"name": by}
                )
        try:
            summaries = bank_import(paths=files, by=user, dry_run=dry_run)
        except BankError as exc:
            for issue in exc.issues:
                self.stderr.write(str(issue))
            count = len(exc.issues)
            raise CommandError(
                ngettext(
                    "The bank was not imported: %(count)s error; nothing was changed.",
                    "The bank was not imported: %(count)s errors; nothing was changed.",
                    count,
                )
                % {"count": count}
            ) from exc
        if dry_run:
            done = _("Would import (dry run, nothing changed): %(summary)s")
        else:
            done = _("Imported %(summary)s")
        for summary in summaries:
            self.stdout.write(self.style.SUCCESS(done % {"summary": summary}))
