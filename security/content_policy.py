"""A page's Content-Security-Policy when it must differ from the site's in one directive.

Most pages carry the site's policy (`SECURE_CSP`), written by Django's CSP middleware. A few
must allow one more origin: an LTI session's pages may be framed by its LMS, and the deep
linking return page posts its form to the LMS. Django's middleware leaves a policy header that
another layer has already set (its documented contract), so `relax` writes the whole header
itself, from the site's policy with the change, and keeps the changes on the response so that a
second layer (a view, then the framing middleware) adds to the first instead of undoing it.

The site's policy uses no nonces (scripts and styles come from 'self' only); a policy that asks
for one cannot be written here and is refused rather than weakened or silently broken.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpResponseBase
from django.utils.csp import CSP

# The directives a response has changed so far, kept on the response (our own attribute).
CHANGES_ATTRIBUTE = "softgrade_csp_changes"


def policy_text(policy: dict) -> str:
    """The header value of a policy written as Django's SECURE_CSP is."""
    parts = []
    for directive, values in policy.items():
        if values is None or values is False:
            continue
        if values is True:
            parts.append(directive)
            continue
        values = sorted(values) if isinstance(values, set) else values
        values = [values] if isinstance(values, str) else list(values)
        if CSP.NONCE in values:
            raise ImproperlyConfigured(
                f"{directive} asks for a nonce; softgrade's pages use none (see "
                "security/content_policy.py)"
            )
        if values:
            parts.append(" ".join([directive, *values]))
    return "; ".join(parts)


def relax(response: HttpResponseBase, directive: str, sources: list[str]) -> None:
    """Give this response the site's policy with `directive` set to `sources`, keeping any
    change an earlier layer made to another directive."""
    changes = {**getattr(response, CHANGES_ATTRIBUTE, {}), directive: list(sources)}
    setattr(response, CHANGES_ATTRIBUTE, changes)
    response.headers[str(CSP.HEADER_ENFORCE)] = policy_text({**settings.SECURE_CSP, **changes})
