"""Setting and removing a learner's accommodation at a quiz (extra minutes, extra attempts, a
due date of their own), audited: the row keeps who set it last and when, and each change is
logged with who, what and why.

Who may: the course's instructors and superusers, the same people who may change a learner's
score (grading.overrides.may_change_scores asks the project's rule), so the teaching pages, the
admin and this service agree. An attempt the learner has in progress follows the change at
once: its deadline is worked out again from its start with the new rules.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from functools import partial

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from accounts.moments import moment_text
from courses.models import Quiz
from grading import accommodations
from grading.accommodation_models import REASON_MAX_LENGTH, QuizAccommodation
from grading.models import Attempt
from grading.overrides import may_change_scores
from grading.services.closing import attempt_closes_at, attempt_expire_if_overdue
from grading.services.errors import ServiceError
from grading.tasks import attempt_close_schedule

logger = logging.getLogger("softgrade.accommodations")

# Bounds that catch a slip of the keyboard (minutes typed as seconds), not a policy.
MAX_EXTRA_MINUTES = 7 * 24 * 60
MAX_EXTRA_ATTEMPTS = 100

NOTHING_CHANGED = gettext_noop(
    "Give extra minutes, extra attempts or a due date of the learner's own."
)


class AccommodationNotAllowed(ServiceError):
    code = "permission_denied"


class AccommodationRefused(ServiceError):
    """The accommodation asked for is refused; `problems` maps each field (None for the whole)
    to why, so a form can show each beside its field."""

    code = "accommodation_refused"

    def __init__(self, problems: dict[str | None, str]):
        self.problems = problems
        super().__init__(" ".join(problems.values()))


@dataclass(frozen=True)
class AccommodationTerms:
    """What an instructor asks for: extra minutes and attempts (0 for none), a due date of the
    learner's own (None: the quiz's), and why."""

    extra_minutes: int = 0
    extra_attempts: int = 0
    closes_at: datetime | None = None
    reason: str = ""


def accommodation_problems(
    *, quiz: Quiz, terms: AccommodationTerms, now: datetime
) -> dict[str | None, str]:
    """Why these terms cannot be given at this quiz, by field (None: the terms as a whole)."""
    problems: dict[str | None, str] = {}
    if terms.extra_minutes < 0:
        problems["extra_minutes"] = gettext("Extra minutes cannot be negative.")
    elif terms.extra_minutes > MAX_EXTRA_MINUTES:
        problems["extra_minutes"] = gettext("At most %(count)d extra minutes (a week).") % {
            "count": MAX_EXTRA_MINUTES
        }
    elif terms.extra_minutes and not quiz.time_limit_minutes:
        problems["extra_minutes"] = gettext("This quiz has no time limit to add minutes to.")
    if terms.extra_attempts < 0:
        problems["extra_attempts"] = gettext("Extra attempts cannot be negative.")
    elif terms.extra_attempts > MAX_EXTRA_ATTEMPTS:
        problems["extra_attempts"] = gettext("At most %(count)d extra attempts.") % {
            "count": MAX_EXTRA_ATTEMPTS
        }
    elif terms.extra_attempts and not quiz.attempts_allowed:
        problems["extra_attempts"] = gettext("This quiz has no attempt limit to add attempts to.")
    if terms.closes_at is not None:
        if quiz.opens_at and terms.closes_at <= quiz.opens_at:
            problems["closes_at"] = gettext(
                "The due date must be after the quiz opens (%(opens)s)."
            ) % {"opens": moment_text(quiz.opens_at)}
        else:
            released = accommodations.answers_release_at(quiz)
            # The key is out already: a learner who may answer after that would answer with it.
            if released is not None and released <= now < terms.closes_at:
                problems["closes_at"] = gettext(
                    "Correct answers to this quiz were released at %(released)s: a due date "
                    "after now would let this learner answer with the answer key out. Change "
                    "when the quiz releases its answers first."
                ) % {"released": moment_text(released)}
    if len(terms.reason) > REASON_MAX_LENGTH:
        problems["reason"] = gettext("Keep the reason under %(count)d characters.") % {
            "count": REASON_MAX_LENGTH
        }
    if not problems and not (terms.extra_minutes or terms.extra_attempts or terms.closes_at):
        problems[None] = gettext(NOTHING_CHANGED)
    return problems


def _authorize(*, by: AbstractBaseUser, quiz: Quiz) -> None:
    if not may_change_scores(user=by, quiz=quiz):
        raise AccommodationNotAllowed(
            gettext("Only the course's instructors may set a learner's accommodations.")
        )


def _retime_attempt_in_progress(*, quiz: Quiz, learner: AbstractBaseUser, now: datetime) -> None:
    """Work out the deadline of the learner's attempt in progress again with their rules now.

    An attempt whose time had already run out is closed as it was; a shorter limit never puts
    the deadline before now, so no answer already saved falls after it. A close moment moved
    earlier (or set where there was none) is queued again: the task queued at the start waits
    for the old one. One moved later needs nothing: that task queues itself again when it runs.
    """
    current = Attempt.objects.filter(
        user=learner, quiz=quiz, status=Attempt.Status.IN_PROGRESS
    ).first()
    if current is None or attempt_expire_if_overdue(attempt=current, now=now):
        return
    current.quiz = quiz
    closed_at_before = attempt_closes_at(current)
    rules = accommodations.learner_rules(quiz=quiz, user=learner)
    deadline = accommodations.attempt_deadline(rules=rules, started_at=current.started_at)
    if deadline is not None and deadline < now:
        deadline = now
    Attempt.objects.filter(pk=current.pk, status=Attempt.Status.IN_PROGRESS).update(
        deadline=deadline
    )
    current.deadline = deadline
    closes_at = attempt_closes_at(current)
    if closes_at is not None and (closed_at_before is None or closes_at < closed_at_before):
        transaction.on_commit(
            partial(attempt_close_schedule, attempt_id=current.pk, when=closes_at), robust=True
        )


def accommodation_set(
    *,
    quiz: Quiz,
    learner: AbstractBaseUser,
    terms: AccommodationTerms,
    by: AbstractBaseUser,
    now: datetime | None = None,
) -> QuizAccommodation:
    """Give the learner these terms at the quiz, replacing any they had; refused with the
    reasons by field (AccommodationRefused) or for want of the right (AccommodationNotAllowed)."""
    now = now or timezone.now()
    _authorize(by=by, quiz=quiz)
    terms = AccommodationTerms(
        extra_minutes=terms.extra_minutes,
        extra_attempts=terms.extra_attempts,
        closes_at=terms.closes_at,
        reason=(terms.reason or "").strip(),
    )
    problems = accommodation_problems(quiz=quiz, terms=terms, now=now)
    if problems:
        raise AccommodationRefused(problems)
    with transaction.atomic():
        accommodation, created = QuizAccommodation.objects.update_or_create(
            quiz=quiz,
            learner=learner,
            defaults={
                "extra_minutes": terms.extra_minutes,
                "extra_attempts": terms.extra_attempts,
                "closes_at": terms.closes_at,
                "reason": terms.reason,
                "set_by": by,
                "set_by_username": by.get_username(),
            },
        )
        _retime_attempt_in_progress(quiz=quiz, learner=learner, now=now)
    logger.info(
        "accommodation %s: quiz=%s learner=%s extra_minutes=%d extra_attempts=%d "
        "closes_at=%s by=%s reason=%r",
        "added" if created else "changed",
        quiz.slug,
        learner.get_username(),
        terms.extra_minutes,
        terms.extra_attempts,
        terms.closes_at.isoformat() if terms.closes_at else "-",
        by.get_username(),
        terms.reason,
    )
    return accommodation


def accommodation_remove(
    *, accommodation: QuizAccommodation, by: AbstractBaseUser, now: datetime | None = None
) -> None:
    """Take the accommodation away: the learner is held to the quiz's own rules again (an
    attempt in progress included, though never with a deadline before now)."""
    now = now or timezone.now()
    quiz, learner = accommodation.quiz, accommodation.learner
    _authorize(by=by, quiz=quiz)
    with transaction.atomic():
        accommodation.delete()
        _retime_attempt_in_progress(quiz=quiz, learner=learner, now=now)
    logger.info(
        "accommodation removed: quiz=%s learner=%s by=%s",
        quiz.slug,
        learner.get_username(),
        by.get_username(),
    )
