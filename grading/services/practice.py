"""Practice: fresh variants of a problem for a learner, their answers and mastery streaks."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Max, Q
from django.utils import timezone
from django.utils.translation import gettext

from courses.models import Problem, Quiz
from grading import policy
from grading.families import practice_seed
from grading.models import Attempt, PracticeStreak, Response, SolutionReveal, Variant
from grading.services.errors import PracticeRefused, ServiceError, SolutionRevealed
from grading.services.hooks import hooks_after_commit
from grading.services.replays import (
    DOUBLE_SUBMIT_WINDOW,
    answer_fingerprint,
    mark_replayed,
    replay_of_key,
    response_create,
)
from grading.services.variants import variant_unsaved
from grading.services.verdicts import variant_grade, verdict_fields


def practice_refusal(
    *, user: AbstractBaseUser, problem: Problem, now: datetime | None = None
) -> policy.PracticeRefusal | None:
    """Why this learner may not practise this problem now (grading.policy decides), or None."""
    now = now or timezone.now()
    open_exams = []
    if not problem.exam_only:
        open_exams = [
            policy.OpenExam(title=title, deadline=deadline)
            for title, deadline in Attempt.objects.counted()
            .filter(
                Q(deadline__isnull=True) | Q(deadline__gt=now),
                # an item of the exam, or one the attempt drew from a pool (grading/draws.py)
                Q(quiz__items__problem=problem) | Q(draws__problem=problem),
                user=user,
                status=Attempt.Status.IN_PROGRESS,
                quiz__mode=Quiz.Mode.EXAM,
            )
            .values_list("quiz__title", "deadline")
            .distinct()
        ]
    return policy.practice_refusal(
        problem_title=problem.title, exam_only=problem.exam_only, open_exams=open_exams, now=now
    )


def practice_check(*, user: AbstractBaseUser, problem: Problem) -> None:
    """Raise PracticeRefused, with the reason and until when, when practice is refused now."""
    refusal = practice_refusal(user=user, problem=problem)
    if refusal:
        raise PracticeRefused(refusal)


def practice_variant_new(*, user: AbstractBaseUser, problem: Problem) -> Variant:
    """A fresh variant of a problem for a learner: the next counter, a server-derived seed.

    Refused (PracticeRefused) for an exam-only problem or during an exam that uses it."""
    practice_check(user=user, problem=problem)
    return _practice_variant_make(user=user, problem=problem)


def _practice_variant_make(*, user: AbstractBaseUser, problem: Problem) -> Variant:
    for _ in range(3):  # a concurrent request may take the same counter; try the next one
        last = Variant.objects.filter(
            user=user, problem=problem, attempt__isnull=True, counter__isnull=False
        ).aggregate(last=Max("counter"))["last"]
        counter = (last or 0) + 1
        seed = practice_seed(user_id=user.pk, problem_id=problem.pk, counter=counter)
        variant = variant_unsaved(problem=problem, seed=seed, user=user, counter=counter)
        try:
            with transaction.atomic():
                variant.save(force_insert=True)
                return variant
        except IntegrityError:
            continue
    raise ServiceError(gettext("Could not create a new variant; please try again."))


def practice_variant_current(*, user: AbstractBaseUser, problem: Problem) -> Variant:
    """The learner's latest practice variant of the problem, or a first one; refused as
    practice_variant_new is."""
    practice_check(user=user, problem=problem)
    latest = (
        Variant.objects.filter(user=user, problem=problem, attempt__isnull=True)
        .order_by("-counter")
        .first()
    )
    return latest or _practice_variant_make(user=user, problem=problem)


def practice_answer_submit(
    *,
    user: AbstractBaseUser,
    variant: Variant,
    text: str,
    idempotency_key: str = "",
    decimal: str = ".",
) -> Response:
    """Grade a practice answer and move the mastery streak.

    The streak moves as streak_move decides. Invalid input is kept but costs no try and does not
    touch the streak. Refused, recording nothing, while practice on the problem is (an exam-only
    problem, or an exam of the learner's in progress that uses it), and on a variant whose worked
    solution the learner revealed (SolutionRevealed).
    """
    if variant.user_id != user.pk or variant.attempt_id is not None:
        raise ServiceError(gettext("That variant is not one of your practice variants."))
    # Before the replay too: nothing about this problem is graded or returned while refused.
    practice_check(user=user, problem=variant.problem)
    fingerprint = answer_fingerprint("practice", variant.pk, text)
    replay = replay_of_key(user=user, idempotency_key=idempotency_key, fingerprint=fingerprint)
    if replay:
        return replay
    graded = variant_grade(variant=variant, text=text, decimal=decimal)
    now = timezone.now()
    with transaction.atomic():
        if SolutionReveal.objects.filter(variant=variant).exists():
            raise SolutionRevealed(
                gettext(
                    "You have seen the worked solution of these numbers, so they take no more "
                    "answers: ask for a new variant."
                )
            )
        earlier = list(
            Response.objects.filter(variant=variant, counts_as_try=True).order_by(
                "created_at", "id"
            )
        )
        if (
            graded.status != "invalid"
            and earlier
            and earlier[-1].text == text
            and now - earlier[-1].created_at < DOUBLE_SUBMIT_WINDOW
        ):
            return mark_replayed(earlier[-1])
        response = response_create(
            idempotency_key=idempotency_key,
            fingerprint=fingerprint,
            user=user,
            variant=variant,
            text=text,
            **verdict_fields(graded, quiz=None),
        )
        if not response.counts_as_try:
            # Unreadable, or a near miss given back: the streak has seen no try.
            return response
        streak_move(
            user=user,
            problem=variant.problem,
            event=(
                STREAK_FIRST_TRY_RIGHT
                if graded.status == "correct" and not earlier
                else STREAK_RIGHT_AGAIN
                if graded.status == "correct"
                else STREAK_WRONG
            ),
            now=now,
        )
    return response


# What happened on a practice variant, as the streak sees it.
STREAK_FIRST_TRY_RIGHT = "first_try_right"  # right at the first counted try on fresh numbers
STREAK_RIGHT_AGAIN = "right_again"  # right, after earlier tries on the same numbers
STREAK_WRONG = "wrong"
STREAK_SOLUTION_SHOWN = "solution_shown"  # the learner revealed the variant's worked solution


def streak_move(*, user: AbstractBaseUser, problem: Problem, event: str, now: datetime) -> None:
    """Move the learner's mastery streak on a problem: the one place that decides it. Call
    inside a transaction.

    A streak counts first-try correct answers on fresh variants: a wrong answer ends it, and so
    does revealing a worked solution (the learner was shown the way, not found it); a correct
    answer on a variant already tried leaves it unchanged. Only answers count as tries.
    """
    streak, _ = PracticeStreak.objects.select_for_update().get_or_create(user=user, problem=problem)
    if event != STREAK_SOLUTION_SHOWN:
        streak.tries_total += 1
    if event in (STREAK_FIRST_TRY_RIGHT, STREAK_RIGHT_AGAIN):
        streak.correct_total += 1
    if event == STREAK_FIRST_TRY_RIGHT:
        streak.current += 1
        streak.best = max(streak.best, streak.current)
        if streak.current >= PracticeStreak.MASTERY and streak.mastered_at is None:
            streak.mastered_at = now
            hooks_after_commit("SOFTGRADE_MASTERY_CHANGED_HOOKS", streak=streak)
    elif event in (STREAK_WRONG, STREAK_SOLUTION_SHOWN):
        streak.current = 0
    streak.save()
