"""Grade passback (Assignment and Grade Services): scores go back to the LMS gradebook columns
of the links a learner launched from.

This module queues: scores owed to an LMS are rows (`ScorePassback`) before anything is sent;
lti.tasks schedules and runs the sending (lti.passback_send) as a background task, so an LMS that
is slow or down never blocks a learner or loses a score. Each try's outcome is kept; a retryable
failure is tried again later with exponential backoff, for as long as it takes; a refusal waits
for an instructor's "resend".

grading reaches this module only through the hooks named in settings
(SOFTGRADE_ATTEMPT_SUBMITTED_HOOKS, SOFTGRADE_MASTERY_CHANGED_HOOKS).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from lti_tool.models import LtiUser

from courses.models import Lesson
from grading import scores
from grading.models import Attempt, PracticeStreak
from lti.models import LinkLaunch, LinkTarget, ScorePassback
from lti.tasks import passback_schedule

logger = logging.getLogger("softgrade.lti")


def _launched_targets(*, user_id: int, targets) -> list[tuple[LinkTarget, LtiUser]]:
    """(link, platform user) pairs: each of these links the learner launched from, in a course
    that takes scores. A link to the same content they never opened gets nothing."""
    launches = (
        LinkLaunch.objects.filter(
            user_id=user_id,
            target__in=targets,
            target__resource_link__context__can_publish_scores=True,
        )
        .select_related("lti_user", "target__resource_link__context__deployment__registration")
        .order_by("pk")
    )
    return [(launch.target, launch.lti_user) for launch in launches]


def _passback_queue(
    *,
    target: LinkTarget,
    lti_user: LtiUser,
    score_given: float,
    score_maximum: float,
    progress: str,
    scored_at: datetime,
    attempt: Attempt | None = None,
) -> ScorePassback:
    now = timezone.now()
    with transaction.atomic():
        # An older score still waiting would only overwrite this one later: it is replaced.
        ScorePassback.objects.filter(
            target=target, lti_user=lti_user, status=ScorePassback.Status.QUEUED
        ).update(status=ScorePassback.Status.SUPERSEDED, next_try_at=None, updated_at=now)
        passback = ScorePassback.objects.create(
            target=target,
            lti_user=lti_user,
            attempt=attempt,
            score_given=score_given,
            score_maximum=score_maximum,
            activity_progress=progress,
            scored_at=scored_at,
            next_try_at=now,
        )
        transaction.on_commit(lambda: passback_schedule(passback=passback, when=None))
    return passback


def attempt_passback_enqueue(*, attempt: Attempt) -> list[ScorePassback]:
    """Queue the learner's quiz score for every LMS link to this quiz they launched from.

    Called by grading after an attempt is submitted (or closed at its deadline); the score sent
    is the learner's best submitted attempt; a preview sends nothing. Never raises: a learner's
    submission stands whatever happens here.
    """
    try:
        # An instructor's preview is never sent: it counts nowhere (grading.services.previews).
        if attempt.status != Attempt.Status.SUBMITTED or attempt.preview:
            return []
        targets = LinkTarget.objects.filter(kind=LinkTarget.Kind.QUIZ, quiz_id=attempt.quiz_id)
        # By the user's id: the submitted attempt's user is not read for a learner with no link.
        pairs = _launched_targets(user_id=attempt.user_id, targets=targets)
        if not pairs:
            return []
        best = scores.best_attempt(user=attempt.user, quiz=attempt.quiz) or attempt
        return [
            _passback_queue(
                target=target,
                lti_user=lti_user,
                score_given=best.score,
                score_maximum=best.max_score,
                progress=ScorePassback.Progress.COMPLETED,
                scored_at=attempt.submitted_at or timezone.now(),
                attempt=best,
            )
            for target, lti_user in pairs
        ]
    except Exception:
        logger.exception("LTI passback for attempt %s could not be queued", attempt.pk)
        return []


def mastery_passback_enqueue(*, streak: PracticeStreak) -> list[ScorePassback]:
    """Queue problems mastered out of the practice set's problems, for each link that asks for
    it and that the learner launched from. Never raises, like the attempt hook."""
    try:
        lesson_id = streak.problem.lesson_id
        targets = LinkTarget.objects.filter(
            kind=LinkTarget.Kind.PRACTICE, lesson_id=lesson_id, mastery_passback=True
        )
        pairs = _launched_targets(user_id=streak.user_id, targets=targets)
        if not pairs:
            return []
        lesson = Lesson.objects.get(pk=lesson_id)
        total = lesson.problems.for_practice().count()
        mastered = PracticeStreak.objects.filter(
            scores.MASTERED, user=streak.user, problem__lesson_id=lesson_id
        ).count()
        return [
            _passback_queue(
                target=target,
                lti_user=lti_user,
                score_given=float(mastered),
                score_maximum=float(total),
                progress=(
                    ScorePassback.Progress.COMPLETED
                    if mastered >= total
                    else ScorePassback.Progress.IN_PROGRESS
                ),
                scored_at=streak.mastered_at or timezone.now(),
            )
            for target, lti_user in pairs
        ]
    except Exception:
        logger.exception("LTI mastery passback for streak %s could not be queued", streak.pk)
        return []


def passback_resend(*, passbacks, now: datetime | None = None) -> int:
    """Queue these scores again now (an instructor's "resend"); returns how many."""
    now = now or timezone.now()
    resent = []
    with transaction.atomic():
        for passback in passbacks:
            passback.status = ScorePassback.Status.QUEUED
            passback.next_try_at = now
            passback.save(update_fields=["status", "next_try_at", "updated_at"])
            resent.append(passback)
        transaction.on_commit(
            lambda: [passback_schedule(passback=passback, when=None) for passback in resent]
        )
    return len(resent)


def passbacks_overdue_requeue(*, now: datetime | None = None, grace: timedelta) -> int:
    """Queue again the queued scores whose next try is overdue by more than `grace` (their task
    was lost, or never queued); returns how many."""
    now = now or timezone.now()
    overdue = list(
        ScorePassback.objects.filter(
            status=ScorePassback.Status.QUEUED, next_try_at__lt=now - grace
        )
    )
    for passback in overdue:
        passback_schedule(passback=passback, when=None)
    return len(overdue)
