"""The names of the LTI 1.3 claims softgrade reads and writes, and the message types it handles."""

from __future__ import annotations

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
DEPLOYMENT_ID = CLAIM + "deployment_id"
MESSAGE_TYPE = CLAIM + "message_type"
VERSION = CLAIM + "version"
ROLES = CLAIM + "roles"
RESOURCE_LINK = CLAIM + "resource_link"
TARGET_LINK_URI = CLAIM + "target_link_uri"
CUSTOM = CLAIM + "custom"
LAUNCH_PRESENTATION = CLAIM + "launch_presentation"
AGS_ENDPOINT = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"

DEEP_LINKING_CLAIM = "https://purl.imsglobal.org/spec/lti-dl/claim/"
DEEP_LINKING_SETTINGS = DEEP_LINKING_CLAIM + "deep_linking_settings"
DEEP_LINKING_CONTENT_ITEMS = DEEP_LINKING_CLAIM + "content_items"
DEEP_LINKING_MESSAGE = DEEP_LINKING_CLAIM + "msg"
DEEP_LINKING_DATA = DEEP_LINKING_CLAIM + "data"

RESOURCE_LINK_REQUEST = "LtiResourceLinkRequest"
DEEP_LINKING_REQUEST = "LtiDeepLinkingRequest"
DEEP_LINKING_RESPONSE = "LtiDeepLinkingResponse"
