"""Deleting a learner's attempt: its own permission, and a log row that outlives the attempt."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils.translation import gettext as _

from grading.models import Attempt, AttemptDeletion, Response
from grading.overrides import REASON_MAX_LENGTH
from grading.services.errors import ServiceError
from grading.services.hooks import hooks_after_commit

DELETE_PERMISSION = "grading.delete_attempt_record"


class AttemptDeletionNotAllowed(ServiceError):
    code = "permission_denied"


def may_delete_attempts(*, user: AbstractBaseUser) -> bool:
    """Only holders of the permission (granted by hand; superusers hold every permission):
    being staff, or holding the model's plain delete permission, is not enough."""
    return bool(user.is_active and user.has_perm(DELETE_PERMISSION))


def attempt_delete(*, attempt: Attempt, by: AbstractBaseUser, reason: str = "") -> AttemptDeletion:
    """Delete an attempt with its variants and responses, logging what it was, who and why.

    The LMS is then told the learner's best remaining submitted score, if any is left.
    """
    if not may_delete_attempts(user=by):
        raise AttemptDeletionNotAllowed(
            _(
                "Deleting a learner's attempt needs the permission “%(permission)s”; being "
                "staff is not enough."
            )
            % {"permission": DELETE_PERMISSION}
        )
    reason = (reason or "").strip()
    if len(reason) > REASON_MAX_LENGTH:
        raise ServiceError(
            _("Keep the reason under %(count)s characters.") % {"count": REASON_MAX_LENGTH}
        )
    with transaction.atomic():
        locked = (
            Attempt.objects.select_for_update().select_related("quiz", "user").get(pk=attempt.pk)
        )
        log = AttemptDeletion.objects.create(
            attempt_id=locked.pk,
            learner=locked.user,
            learner_username=locked.user.get_username(),
            quiz=locked.quiz,
            quiz_slug=locked.quiz.slug,
            number=locked.number,
            status=locked.status,
            score=locked.score,
            max_score=locked.max_score,
            started_at=locked.started_at,
            submitted_at=locked.submitted_at,
            responses=locked.responses.count(),
            reason=reason,
            by=by,
            by_username=by.get_username(),
        )
        # Responses first: they PROTECT their variants, which go with the attempt.
        Response.objects.filter(attempt=locked).delete()
        locked.delete()
        if log.status == Attempt.Status.SUBMITTED:
            remaining = (
                Attempt.objects.counted()
                .filter(
                    user_id=log.learner_id, quiz_id=log.quiz_id, status=Attempt.Status.SUBMITTED
                )
                .first()
            )
            if remaining is not None:
                # The hook sends the learner's best submitted attempt, which may have been this one.
                hooks_after_commit("SOFTGRADE_ATTEMPT_SUBMITTED_HOOKS", attempt=remaining)
    return log
