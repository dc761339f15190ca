"""The one exception for a login or launch softgrade refuses (docs/lti.md lists every one), and
the log line each refusal leaves for the administrator."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping

import jwt
from django.utils.translation import gettext

logger = logging.getLogger("softgrade.lti")


class LaunchRefused(Exception):
    """A login or launch softgrade refuses: `message` for the learner, `reason` for the log."""

    def __init__(self, message: str, *, reason: str, status: int = 400):
        self.message = message
        self.reason = reason
        self.status = status
        super().__init__(f"{reason}: {message}")


def content_not_granted() -> LaunchRefused:
    """A launch naming content outside the courses granted to its LMS (lti.tenancy)."""
    return LaunchRefused(
        gettext(
            "This LMS may not open this softgrade content: its course is not one softgrade's "
            "administrator gave this LMS. Ask your LMS administrator."
        ),
        reason="content_not_granted",
        status=403,
    )


def refusal_log(refusal: LaunchRefused, *, step: str, params: Mapping[str, str]) -> None:
    """One log line per refusal, with what an administrator needs to find the cause."""
    issuer = params.get("iss", "")
    if not issuer and params.get("id_token"):
        try:
            issuer = jwt.decode(params["id_token"], options={"verify_signature": False}).get(
                "iss", ""
            )
        except jwt.PyJWTError:
            issuer = "(unreadable id_token)"
    logger.warning(
        "LTI %s refused (%s): reason=%s issuer=%s detail=%s",
        step,
        refusal.status,
        refusal.reason,
        json.dumps(issuer),
        refusal.message,
    )
