"""Roster sync (Names and Role Provisioning Services): an instructor fetches a course's members
and their roles from the LMS; every sync, done or failed, is a `RosterSync` row."""

from __future__ import annotations

import logging

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from lti_tool.models import LtiContext

from lti import platform
from lti.models import RosterSync

logger = logging.getLogger("softgrade.lti")


def roster_sync(*, context: LtiContext, requested_by: AbstractBaseUser | None) -> RosterSync:
    """Fetch the course roster from the LMS and store its members and roles; the outcome is a
    RosterSync row either way."""
    sync = RosterSync(context=context, requested_by=requested_by, status=RosterSync.Status.DONE)
    if not context.memberships_url:
        sync.status = RosterSync.Status.FAILED
        sync.detail = "The LMS did not offer a roster service for this course."
    else:
        try:
            members = platform.memberships(
                registration=context.deployment.registration,
                memberships_url=context.memberships_url,
            )
            valid = [m for m in members if m.get("user_id") and isinstance(m.get("roles"), list)]
            for member in valid:
                member.setdefault("status", "Active")
            with transaction.atomic():
                context.update_memberships(valid)
            sync.members = len(valid)
            sync.active_members = sum(1 for m in valid if m["status"] == "Active")
        except platform.PlatformError as error:
            sync.status = RosterSync.Status.FAILED
            sync.detail = error.message[:2000]
            logger.warning("LTI roster sync for context %s failed: %s", context.pk, error.message)
    sync.finished_at = timezone.now()
    sync.save()
    return sync
