"""A problem's variant for a seed, with everything a regrade needs stored beside the seed."""

from __future__ import annotations

from courses.models import Problem, QuizItem
from grading import engine
from grading.families import attempt_seed, problem_tolerance, variant_data
from grading.models import Attempt, Variant


def variant_unsaved(*, problem: Problem, seed: int, user, **owner) -> Variant:
    """A problem's variant for a seed, with everything a regrade needs stored beside the seed."""
    data = variant_data(problem, seed)
    tolerance = problem_tolerance(problem)
    return Variant(
        problem=problem,
        user=user,
        seed=seed,
        family=problem.family,
        family_version=engine.get_family(problem.family).version,
        params=problem.params,
        givens=data.givens,
        grading_key=data.grading_key,
        atol=tolerance.atol,
        rtol=tolerance.rtol,
        **owner,
    )


def attempt_variant(attempt: Attempt, item: QuizItem, user) -> Variant:
    seed = attempt_seed(attempt_id=attempt.pk, item_id=item.pk)
    return variant_unsaved(
        problem=item.problem, seed=seed, user=user, attempt=attempt, quiz_item=item
    )
