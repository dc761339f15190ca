"""Deep linking: an instructor, launched from the LMS's content picker, chooses a softgrade quiz
or practice set of the courses granted to the LMS (lti.tenancy), and softgrade answers with a
signed message placing it (with its gradebook column when it sends scores)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils import timezone
from django.utils.translation import gettext
from lti_tool.models import LtiRegistration

from courses.models import Lesson, Quiz
from lti import keys, tenancy
from lti.content import CUSTOM_MASTERY_PASSBACK, CUSTOM_PRACTICE, CUSTOM_QUIZ, content_line_item
from lti.launch.claims import (
    DEEP_LINKING_CONTENT_ITEMS,
    DEEP_LINKING_DATA,
    DEEP_LINKING_MESSAGE,
    DEEP_LINKING_RESPONSE,
    DEEP_LINKING_SETTINGS,
    DEPLOYMENT_ID,
    MESSAGE_TYPE,
    VERSION,
)
from lti.launch.verify import VerifiedLaunch


class LtiServiceError(Exception):
    """A request the LTI rules refuse; the message is for people."""

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


@dataclass(frozen=True)
class DeepLinkingResponse:
    return_url: str
    jwt: str


def deep_linking_request(*, launch: VerifiedLaunch) -> dict:
    """What the deep-linking response must echo, kept in the instructor's session."""
    settings_claim = launch.claims[DEEP_LINKING_SETTINGS]
    return {
        "registration_id": launch.registration.pk,
        "deployment_id": launch.claims[DEPLOYMENT_ID],
        # The picker offers, and the response signs, only the courses granted through it.
        "deployment_pk": launch.deployment.pk,
        "return_url": settings_claim["deep_link_return_url"],
        "data": settings_claim.get("data"),
        "accept_lineitem": settings_claim.get("accept_lineitem", True) is not False,
    }


def deep_linking_respond(
    *,
    request_state: dict,
    content: Quiz | Lesson,
    mastery_passback: bool,
    launch_url: str,
    now: datetime | None = None,
) -> DeepLinkingResponse:
    """A signed LtiDeepLinkingResponse placing one quiz or practice set, with its line item."""
    now = now or timezone.now()
    registration = LtiRegistration.objects.active().filter(pk=request_state["registration_id"])
    registration = registration.first()
    if registration is None:
        raise LtiServiceError(
            gettext("This LMS's registration was switched off; nothing was added.")
        )
    if not tenancy.content_granted(
        registration=registration,
        deployment=request_state.get("deployment_pk"),
        content=content,
    ):
        raise LtiServiceError(
            gettext(
                "This content's course is not one softgrade's administrator gave this LMS; "
                "nothing was added."
            )
        )
    line_item = content_line_item(content)
    if isinstance(content, Quiz):
        custom = {CUSTOM_QUIZ: content.slug}
        sends_scores = True
    else:
        custom = {CUSTOM_PRACTICE: content.slug}
        if mastery_passback:
            custom[CUSTOM_MASTERY_PASSBACK] = "true"
        sends_scores = mastery_passback
    item: dict = {
        "type": "ltiResourceLink",
        "title": line_item.label,
        # Every link launches at softgrade's one launch URL; the custom parameters say what.
        "url": launch_url,
        "custom": custom,
    }
    if sends_scores and line_item.score_maximum > 0 and request_state.get("accept_lineitem", True):
        item["lineItem"] = {
            "scoreMaximum": line_item.score_maximum,
            "label": line_item.label,
            "resourceId": line_item.resource_id,
            "tag": "softgrade",
        }
    claims = {
        "iss": registration.client_id,
        "aud": registration.issuer,
        "exp": int((now + timedelta(minutes=5)).timestamp()),
        "iat": int(now.timestamp()),
        "nonce": secrets.token_urlsafe(16),
        MESSAGE_TYPE: DEEP_LINKING_RESPONSE,
        VERSION: "1.3.0",
        DEPLOYMENT_ID: request_state["deployment_id"],
        DEEP_LINKING_CONTENT_ITEMS: [item],
        DEEP_LINKING_MESSAGE: gettext("Added “%(label)s” from softgrade.")
        % {"label": line_item.label},
    }
    if request_state.get("data") is not None:
        claims[DEEP_LINKING_DATA] = request_state["data"]
    return DeepLinkingResponse(
        return_url=request_state["return_url"], jwt=keys.sign(claims, now=now)
    )
