"""How API callers prove who they are: an integration's API key, or a learner's site session."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import SessionAuthentication, get_authorization_header

from integrations import services
from integrations.models import ApiKey


class KeyClient:
    """Stands in for request.user when an integration calls with its key: authenticated, and
    no Django user of its own (it acts for the learners it provisioned)."""

    is_authenticated = True
    is_anonymous = False
    is_active = True
    is_staff = False
    is_superuser = False
    pk = None

    def __init__(self, key: ApiKey):
        self.key = key

    def __str__(self) -> str:
        return f"API key {self.key}"


class ApiKeyAuthentication:
    """`Authorization: Bearer sg_…`; a missing header leaves the request to session sign-in."""

    keyword = b"bearer"

    def authenticate(self, request):
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != self.keyword:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(
                _(
                    "Send the key as `Authorization: Bearer <key>`, with nothing else in the "
                    "header."
                ),
                code="invalid_api_key",
            )
        try:
            token = parts[1].decode("ascii")
        except UnicodeDecodeError as exc:
            raise exceptions.AuthenticationFailed(
                _("This API key is not valid."), code="invalid_api_key"
            ) from exc
        try:
            key = services.api_key_authenticate(token=token)
        except services.InvalidApiKey as exc:
            raise exceptions.AuthenticationFailed(exc.message, code=exc.code) from exc
        return KeyClient(key), key

    def authenticate_header(self, request) -> str:
        return 'Bearer realm="softgrade"'

    def scope(self, request):
        """What a request this accepted reaches (api.scope.request_scope): the key's own."""
        # Imported here: the scope module reaches rest_framework.views, whose import reads
        # the authentication classes from settings, this one among them.
        from integrations.api.scope import KeyScope

        return KeyScope(request.auth)


class CsrfFailed(exceptions.PermissionDenied):
    default_code = "csrf_failed"


class LearnerSessionAuthentication(SessionAuthentication):
    """A learner signed in to the site; unsafe methods need the CSRF token, as on the site."""

    def enforce_csrf(self, request):
        try:
            super().enforce_csrf(request)
        except exceptions.PermissionDenied as exc:
            raise CsrfFailed(
                f"{exc.detail} Send the csrftoken cookie's value in an X-CSRFToken header."
            ) from exc


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = ApiKeyAuthentication
    name = "apiKey"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "sg_<prefix>_<secret>",
            "description": "An integration's API key, made by an instructor in the admin.",
        }


class LearnerSessionScheme(OpenApiAuthenticationExtension):
    target_class = LearnerSessionAuthentication
    name = "learnerSession"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "cookie",
            "name": "sessionid",
            "description": "A learner signed in to the site; unsafe methods need X-CSRFToken.",
        }
