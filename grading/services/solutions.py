"""Worked solutions: where a practice variant stands with its solution, revealing it, and the
steps themselves (written by grading.engine.solutions; grading.policy decides who sees them)."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from grading import policy
from grading.engine.solutions import worked_solution
from grading.models import Response, SolutionReveal, Variant
from grading.services.errors import ServiceError, SolutionNotAvailable
from grading.services.practice import STREAK_SOLUTION_SHOWN, practice_check, streak_move


@dataclass(frozen=True)
class SolutionState:
    """A practice variant's standing with its worked solution (policy.practice_solution_stage)."""

    stage: str
    wrong_tries: int
    after_tries: int
    reveal: SolutionReveal | None = None


def variant_solution_steps(*, variant: Variant) -> tuple[str, ...]:
    """The worked solution of a variant from its stored givens and grading key, as Markdown
    with $math$ per step. Callers show it only where grading.policy allows."""
    return worked_solution(variant.family, variant.givens, variant.grading_key)


def practice_solution_state(
    *, variant: Variant, tries: list[Response] | None = None
) -> SolutionState:
    """Where a practice variant stands with its worked solution; `tries` (its counted responses)
    saves a query when the caller has them."""
    if tries is None:
        tries = list(Response.objects.filter(variant=variant, counts_as_try=True))
    reveal = SolutionReveal.objects.filter(variant=variant).first()
    wrong = sum(1 for r in tries if r.counts_as_try and r.status == Response.Status.INCORRECT)
    solved = any(r.counts_as_try and r.status == Response.Status.CORRECT for r in tries)
    after_tries = variant.problem.solution_after_tries
    stage = policy.practice_solution_stage(
        wrong_tries=wrong, solved=solved, revealed=reveal is not None, after_tries=after_tries
    )
    return SolutionState(stage=stage, wrong_tries=wrong, after_tries=after_tries, reveal=reveal)


def solution_reveal(
    *, user: AbstractBaseUser, variant: Variant, give_up: bool = False
) -> tuple[SolutionReveal, bool]:
    """Show the learner the worked solution of their practice variant: record who and when, end
    their streak on the problem. Returns (the reveal, whether this call made it); asking again
    returns the first reveal and changes nothing.

    Refused (SolutionNotAvailable, with grading.policy's reason) before the rule allows it, and
    while practice on the problem is refused (PracticeRefused)."""
    if variant.user_id != user.pk or variant.attempt_id is not None:
        raise ServiceError(gettext("That variant is not one of your practice variants."))
    practice_check(user=user, problem=variant.problem)
    with transaction.atomic():
        state = practice_solution_state(variant=variant)
        if state.reveal is not None:
            return state.reveal, False
        refusal = policy.practice_solution_refusal(stage=state.stage, give_up=give_up)
        if refusal:
            raise SolutionNotAvailable(refusal)
        try:
            with transaction.atomic():
                reveal = SolutionReveal.objects.create(
                    user=user, variant=variant, gave_up_early=state.stage == policy.ON_REQUEST
                )
        except IntegrityError:
            # A second request revealed it at the same moment: that reveal stands.
            return SolutionReveal.objects.get(variant=variant), False
        streak_move(
            user=user, problem=variant.problem, event=STREAK_SOLUTION_SHOWN, now=timezone.now()
        )
    return reveal, True
