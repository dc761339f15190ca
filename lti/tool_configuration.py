"""What softgrade tells an LMS about itself: its URLs and its LTI tool configuration.

One description serves both ways of registering: the setup page shows it (and serves it as
JSON) for an LMS administrator to enter by hand, and dynamic registration posts it to the LMS
(LTI Dynamic Registration's client metadata with the
`https://purl.imsglobal.org/spec/lti-tool-configuration` claim).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.urls import reverse

from lti.platform import SCOPE_LINEITEM, SCOPE_LINEITEM_READONLY, SCOPE_NRPS, SCOPE_SCORE

TOOL_CONFIGURATION_CLAIM = "https://purl.imsglobal.org/spec/lti-tool-configuration"
TOOL_NAME = "softgrade"
TOOL_DESCRIPTION = "Auto-graded quizzes and practice sets, with scores sent to the gradebook."
# What softgrade asks the LMS for: line items and scores (AGS) and the roster (NRPS).
TOOL_SCOPES = (SCOPE_LINEITEM, SCOPE_LINEITEM_READONLY, SCOPE_SCORE, SCOPE_NRPS)
# The identity claims a launch needs: who the learner is, and their name and email for the
# account softgrade makes for them.
TOOL_CLAIMS = ("iss", "sub", "name", "given_name", "family_name", "email")


@dataclass(frozen=True)
class ToolUrls:
    """softgrade's LTI URLs on the host the LMS reaches it by."""

    login: str
    launch: str
    jwks: str

    @property
    def deep_linking(self) -> str:
        # One launch URL serves both messages; the message type tells them apart.
        return self.launch

    @property
    def domain(self) -> str:
        return urlsplit(self.launch).netloc


def tool_urls(absolute: Callable[[str], str]) -> ToolUrls:
    """The URLs, made absolute by `absolute` (a request's build_absolute_uri)."""
    return ToolUrls(
        login=absolute(reverse("lti:login")),
        launch=absolute(reverse("lti:launch")),
        jwks=absolute(reverse("lti:jwks")),
    )


def tool_configuration(urls: ToolUrls, *, scopes: Iterable[str] = TOOL_SCOPES) -> dict:
    """The tool's client metadata, as LTI Dynamic Registration posts it."""
    return {
        "application_type": "web",
        "response_types": ["id_token"],
        "grant_types": ["implicit", "client_credentials"],
        "initiate_login_uri": urls.login,
        "redirect_uris": [urls.launch],
        "client_name": TOOL_NAME,
        "jwks_uri": urls.jwks,
        "token_endpoint_auth_method": "private_key_jwt",
        "scope": " ".join(scopes),
        TOOL_CONFIGURATION_CLAIM: {
            "domain": urls.domain,
            "description": TOOL_DESCRIPTION,
            "target_link_uri": urls.launch,
            "claims": list(TOOL_CLAIMS),
            "messages": [
                {
                    "type": "LtiDeepLinkingRequest",
                    "target_link_uri": urls.deep_linking,
                    "label": TOOL_NAME,
                },
            ],
        },
    }
