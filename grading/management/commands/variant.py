from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from grading import engine
from grading.families import variant_data

from ._batch import LineError, problem_by_slug, run_batch, seed_value, single


def variant_json(request: dict, *, reveal: bool) -> dict:
    """One variant as JSON; with reveal (an instructor's tool), its grading key, answer and the
    mistakes offered for it too."""
    problem = problem_by_slug(request.get("problem"))
    seed = seed_value(request.get("seed"))
    try:
        data = variant_data(problem, seed)
    except (engine.ParamError, engine.UnknownFamily) as exc:
        raise LineError(f"problem {problem.slug!r} cannot make variants: {exc}") from exc
    family = engine.get_family(problem.family)
    out = {
        "problem": problem.slug,
        "family": problem.family,
        "seed": seed,
        "givens": data.givens,
        "prompt": family.prompt(data.givens),
    }
    if reveal:
        out["grading_key"] = data.grading_key
        out["answer"] = data.answer.tolist()
        out["mistakes"] = {code: value.tolist() for code, value in data.mistakes.items()}
    return out


class Command(BaseCommand):
    help = (
        "Print one variant of a problem as JSON (with --reveal, its grading key, answer and "
        "mistakes too)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", nargs="?", help="The problem's slug.")
        parser.add_argument("--seed", type=int, help="The variant's seed (a whole number ≥ 0).")
        parser.add_argument(
            "--reveal", action="store_true", help="Include grading key, answer and mistakes."
        )
        parser.add_argument(
            "--batch",
            action="store_true",
            help='Read JSON lines {"problem", "seed"} on stdin; write one JSON line per line.',
        )

    def handle(self, *args, slug, seed, reveal, batch, **options):
        if batch:
            run_batch(self.stdout, lambda request: variant_json(request, reveal=reveal))
            return
        if not slug or seed is None:
            raise CommandError(_("Give a problem slug and --seed N (or use --batch)."))
        single(
            self.stdout,
            lambda request: variant_json(request, reveal=reveal),
            {
                "problem": slug,
                "seed": seed,
            },
        )
