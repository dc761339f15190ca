from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from grading import engine
from grading.families import problem_tolerance, variant_data

from ._batch import LineError, problem_by_slug, run_batch, seed_value, single


def grade_json(request: dict) -> dict:
    """Grade an answer against one variant: status, score, misconception code and feedback."""
    problem = problem_by_slug(request.get("problem"))
    seed = seed_value(request.get("seed"))
    answer = request.get("answer")
    if not isinstance(answer, str):
        raise LineError("'answer' must be the text a learner typed")
    try:
        data = variant_data(problem, seed)
    except (engine.ParamError, engine.UnknownFamily) as exc:
        raise LineError(f"problem {problem.slug!r} cannot make variants: {exc}") from exc
    verdict = engine.grade(
        engine.get_family(problem.family),
        data.givens,
        answer,
        tolerance=problem_tolerance(problem),
        grading_key=data.grading_key,
    )
    return {
        "problem": problem.slug,
        "seed": seed,
        "status": verdict.status,
        "score": verdict.score,
        "misconception": verdict.misconception,
        "feedback": verdict.feedback,
    }


class Command(BaseCommand):
    help = "Grade an answer to one variant of a problem and print the verdict as JSON."

    def add_arguments(self, parser):
        parser.add_argument("slug", nargs="?", help="The problem's slug.")
        parser.add_argument("--seed", type=int, help="The variant's seed.")
        parser.add_argument("--answer", help="The answer text, as a learner would type it.")
        parser.add_argument(
            "--batch",
            action="store_true",
            help='Read JSON lines {"problem", "seed", "answer"} on stdin; one JSON line out each.',
        )

    def handle(self, *args, slug, seed, answer, batch, **options):
        if batch:
            run_batch(self.stdout, grade_json)
            return
        if not slug or seed is None or answer is None:
            raise CommandError(
                _("Give a problem slug, --seed N and --answer TEXT (or use --batch).")
            )
        single(self.stdout, grade_json, {"problem": slug, "seed": seed, "answer": answer})
