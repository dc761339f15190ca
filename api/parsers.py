"""JSON bodies only, at most 64 KiB, read strictly: a bad body is a clear 4xx, never a 500."""

from __future__ import annotations

import codecs
import json

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import exceptions, status
from rest_framework.parsers import JSONParser

MAX_BODY_BYTES = 64 * 1024


class BodyTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "body_too_large"
    default_detail = gettext_lazy("The request body is too large.")


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


class BoundedJSONParser(JSONParser):
    """Reads at most MAX_BODY_BYTES (checked before reading when Content-Length says so)."""

    def parse(self, stream, media_type=None, parser_context=None):
        parser_context = parser_context or {}
        request = parser_context.get("request")
        too_large = BodyTooLarge(
            _(
                "The request body is larger than %(size)s KiB; answers and provisioning requests "
                "are far smaller."
            )
            % {"size": MAX_BODY_BYTES // 1024}
        )
        declared = request.META.get("CONTENT_LENGTH") if request is not None else None
        if declared and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            raise too_large
        raw = stream.read(MAX_BODY_BYTES + 1)
        if len(raw) > MAX_BODY_BYTES:
            raise too_large
        encoding = parser_context.get("encoding") or "utf-8"
        try:
            text = codecs.decode(raw, encoding)
        except (UnicodeDecodeError, LookupError) as exc:
            raise exceptions.ParseError(
                _("The request body is not valid %(encoding)s text.") % {"encoding": encoding},
                code="malformed_json",
            ) from exc
        try:
            return json.loads(text, parse_constant=_refuse_constant)
        except json.JSONDecodeError as exc:
            # The parser's own reason (exc.msg) is Python's, in English.
            raise exceptions.ParseError(
                _(
                    "The request body is not valid JSON: %(reason)s at line %(line)s, "
                    "column %(column)s."
                )
                % {"reason": exc.msg, "line": exc.lineno, "column": exc.colno},
                code="malformed_json",
            ) from exc
        except (ValueError, RecursionError) as exc:
            raise exceptions.ParseError(
                _("The request body is not valid JSON: %(reason)s.") % {"reason": exc},
                code="malformed_json",
            ) from exc
