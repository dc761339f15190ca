"""Grade passback (Assignment and Grade Services): scores go back to the LMS gradebook columns
of the links a learner launched from.

Scores owed to an LMS are rows (`ScorePassback`) before anything is sent, and the sending is a
background task: an LMS that is slow or down never blocks a learner or loses a score. Each try's
outcome is kept; a retryable failure is tried again later with exponential backoff, for as long
as it takes; a refusal waits for an instructor's "resend".

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
from lti import platform
from lti.content import content_line_item
from lti.models import LineItem, LinkLaunch, LinkTarget, PassbackOutcome, ScorePassback

logger = logging.getLogger("softgrade.lti")

# Retries: 30 s, 1 min, 2 min, … doubling up to 6 hours, then every 6 hours until the LMS answers.
RETRY_FIRST_DELAY = timedelta(seconds=30)
RETRY_MAX_DELAY = timedelta(hours=6)


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


def passback_schedule(*, passback: ScorePassback, when: datetime | None) -> None:
    """Put the passback's delivery on the task queue; a queue failure leaves the row queued,
    for `manage.py lti_passback_sweep` to pick up."""
    from lti.tasks import score_passback_deliver  # the task module imports this one

    try:
        task = score_passback_deliver.using(run_after=when) if when else score_passback_deliver
        task.enqueue(passback.pk)
    except Exception:
        logger.exception("LTI passback %s could not be queued; the sweep will retry", passback.pk)


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


def retry_delay(try_count: int) -> timedelta:
    """How long to wait after the n-th failed try: doubling from 30 s, at most 6 hours."""
    return min(RETRY_FIRST_DELAY * (2 ** max(try_count - 1, 0)), RETRY_MAX_DELAY)


def _line_item_url(*, target: LinkTarget) -> str:
    """The link's line item: known, found on the LMS, or made there once.

    The link's row is locked while this runs, so two learners' scores for one new link make
    one line item, and a line item the LMS already has for the link is found, not duplicated.
    """
    target = LinkTarget.objects.select_for_update().get(pk=target.pk)
    known = LineItem.objects.filter(target=target).first()
    if known is not None:
        return known.url
    context = target.resource_link.context
    registration = context.deployment.registration
    if not context.lineitems_url:
        raise platform.PlatformError(
            "The LMS gave this link no gradebook column and no line items service.",
            retryable=False,
        )
    proposed = content_line_item(
        target.quiz if target.kind == LinkTarget.Kind.QUIZ else target.lesson
    )
    found = platform.line_item_find(
        registration=registration,
        lineitems_url=context.lineitems_url,
        resource_link_id=target.resource_link.id_on_platform,
        resource_id=proposed.resource_id,
    )
    created = found is None
    if found is None:
        found = platform.line_item_create(
            registration=registration,
            lineitems_url=context.lineitems_url,
            resource_link_id=target.resource_link.id_on_platform,
            resource_id=proposed.resource_id,
            label=proposed.label,
            score_maximum=proposed.score_maximum,
        )
    LineItem.objects.create(
        target=target,
        url=found.url,
        label=found.label or proposed.label,
        score_maximum=found.score_maximum,
        created_by_softgrade=created,
    )
    return found.url


def score_payload(passback: ScorePassback) -> dict:
    """The AGS score body for one passback."""
    return {
        "userId": passback.lti_user.sub,
        "scoreGiven": passback.score_given,
        "scoreMaximum": passback.score_maximum,
        "timestamp": passback.scored_at.isoformat(timespec="milliseconds"),
        "activityProgress": passback.activity_progress,
        "gradingProgress": "FullyGraded",
    }


def passback_deliver(*, passback_id: int, now: datetime | None = None) -> ScorePassback | None:
    """Try once to send a queued score; record the outcome; schedule the next try if it failed.

    A passback that is no longer queued, or whose next try is not yet due (a duplicate task),
    is left alone.
    """
    now = now or timezone.now()
    retry_at = None
    with transaction.atomic():
        passback = (
            ScorePassback.objects.select_for_update()
            .select_related("lti_user", "target__resource_link__context__deployment__registration")
            .filter(pk=passback_id)
            .first()
        )
        if passback is None or passback.status != ScorePassback.Status.QUEUED:
            return passback
        if passback.next_try_at and passback.next_try_at > now + timedelta(seconds=1):
            return passback
        registration = passback.target.resource_link.context.deployment.registration
        passback.try_count += 1
        try:
            lineitem_url = _line_item_url(target=passback.target)
            http_status = platform.score_post(
                registration=registration, lineitem_url=lineitem_url, score=score_payload(passback)
            )
        except platform.PlatformError as error:
            passback.last_error = error.message[:2000]
            if error.retryable:
                retry_at = now + retry_delay(passback.try_count)
                passback.next_try_at = retry_at
                result = PassbackOutcome.Result.WILL_RETRY
            else:
                passback.status = ScorePassback.Status.REFUSED
                passback.next_try_at = None
                result = PassbackOutcome.Result.REFUSED
            PassbackOutcome.objects.create(
                passback=passback,
                result=result,
                http_status=error.status,
                detail=error.message[:2000],
                created_at=now,
            )
            logger.warning(
                "LTI passback %s try %s failed (%s): %s",
                passback.pk,
                passback.try_count,
                result,
                error.message,
            )
        else:
            passback.status = ScorePassback.Status.SENT
            passback.sent_at = now
            passback.next_try_at = None
            passback.last_error = ""
            PassbackOutcome.objects.create(
                passback=passback,
                result=PassbackOutcome.Result.SENT,
                http_status=http_status,
                created_at=now,
            )
        passback.save()
        if retry_at is not None:
            transaction.on_commit(lambda: passback_schedule(passback=passback, when=retry_at))
    return passback


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
