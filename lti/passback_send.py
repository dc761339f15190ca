"""Sending one queued score to its LMS (Assignment and Grade Services): the link's line item,
found or made once, the score body, one try and its recorded outcome, and how long to wait after
a failure. Nothing here schedules: lti.tasks runs a try and queues the next one.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from lti import platform
from lti.content import content_line_item
from lti.models import LineItem, LinkTarget, PassbackOutcome, ScorePassback

logger = logging.getLogger("softgrade.lti")

# Retries: 30 s, 1 min, 2 min, … doubling up to 6 hours, then every 6 hours until the LMS answers.
RETRY_FIRST_DELAY = timedelta(seconds=30)
RETRY_MAX_DELAY = timedelta(hours=6)


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


def passback_try(
    *, passback_id: int, now: datetime | None = None
) -> tuple[ScorePassback | None, datetime | None]:
    """Try once to send a queued score and record the outcome; returns the passback and, when
    the try failed in a way worth retrying, when the next try is due (lti.tasks schedules it).

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
            return passback, None
        if passback.next_try_at and passback.next_try_at > now + timedelta(seconds=1):
            return passback, None
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
    return passback, retry_at
