"""An instructor previews a quiz as a learner sees it: a real attempt on the learner's pages,
flagged `preview`, that counts nowhere.

A preview is the quiz as its learners get it (the same items, variants, order, time limit,
feedback and answer release, all decided by grading.policy on the same pages), so an instructor
can check a quiz end to end. It counts nowhere (grading.models.counted_attempt): not against the
attempt limit, not in reports, grades, best scores or LTI passback, and not in the instructor's
own attempts, whose numbers and attempt in progress it leaves alone (previews are numbered in
a series of their own).

Who may preview is SOFTGRADE_PREVIEW_RULE's decision (teaching.access.teaches_quiz: the course's
instructors and teaching assistants, and superusers), so grading never imports the app that
knows course roles; without a rule only active superusers may.

Opening and closing times do not apply to a preview: an instructor checks a quiz before it opens
more than at any other time, and after it closes to see what learners saw. The time limit does:
a preview runs against the clock as a learner's attempt would, and ends at the quiz's close if
that comes first and is still ahead.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.module_loading import import_string

from courses.models import Quiz
from grading import accommodations
from grading.models import Attempt
from grading.services.attempts import (
    attempt_create,
    attempt_in_progress,
    attempt_submit,
    starts_line_up,
)
from grading.services.errors import ServiceError


class PreviewNotAllowed(ServiceError):
    code = "permission_denied"


def may_preview(*, user: AbstractBaseUser | AnonymousUser, quiz: Quiz) -> bool:
    """May this user preview the quiz: SOFTGRADE_PREVIEW_RULE's answer for an active user, or,
    without a rule, an active superuser."""
    if not user.is_authenticated or not user.is_active:
        return False
    path = getattr(settings, "SOFTGRADE_PREVIEW_RULE", None)
    if path is None:
        return bool(user.is_superuser)
    return bool(import_string(path)(user=user, quiz=quiz))


def preview_deadline(*, quiz: Quiz, now: datetime) -> datetime | None:
    """A preview's deadline: a learner's without accommodation (accommodations.attempt_deadline)
    while the quiz's close is ahead; after it, the time limit alone, since a learner would be
    past it too and the preview would end before it began."""
    if quiz.closes_at is not None and quiz.closes_at <= now:
        quiz = Quiz(time_limit_minutes=quiz.time_limit_minutes)
    rules = accommodations.rules_with(quiz=quiz, accommodation=None)
    return accommodations.attempt_deadline(rules=rules, started_at=now)


def preview_start(
    *, user: AbstractBaseUser, quiz: Quiz, fresh: bool = False, now: datetime | None = None
) -> Attempt:
    """The user's preview of the quiz in progress, started if there is none; with `fresh`, a
    new one, the preview in progress submitted first (it counts nowhere, so nothing is lost).

    Refused (PreviewNotAllowed, nothing written) unless may_preview. Previews are unlimited and
    start whether the quiz is open or not.
    """
    if not may_preview(user=user, quiz=quiz):
        raise PreviewNotAllowed("Only the course's instructors may preview its quizzes.")
    now = now or timezone.now()
    current = attempt_in_progress(user=user, quiz=quiz, now=now, preview=True)
    if current is not None and not fresh:
        return current
    items = list(quiz.items.select_related("problem"))
    try:
        with transaction.atomic():
            starts_line_up(user=user)
            current = attempt_in_progress(user=user, quiz=quiz, now=now, preview=True)
            if current is not None and not fresh:
                return current
            if current is not None:
                attempt_submit(attempt=current, now=now)
            last = Attempt.objects.previews().filter(user=user, quiz=quiz).aggregate(Max("number"))
            return attempt_create(
                user=user,
                quiz=quiz,
                items=items,
                number=(last["number__max"] or 0) + 1,
                deadline=preview_deadline(quiz=quiz, now=now),
                preview=True,
            )
    except IntegrityError:
        # A start that did not line up opened a preview at the same moment: resume it.
        current = attempt_in_progress(user=user, quiz=quiz, now=now, preview=True)
        if current is None:
            raise
        return current
