"""Rate limits per API key, per signed-in learner and per anonymous address.

The counters live in Django's default cache, which production settings point at a cache shared
by every worker (CACHE_URL), so a limit holds for the whole deployment.
"""

from __future__ import annotations

from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from integrations.models import ApiKey


class _SettingsRate(SimpleRateThrottle):
    def get_rate(self):
        # Read at each request, not at import, so settings overrides (tests, env) take effect.
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)


class ApiKeyThrottle(_SettingsRate):
    scope = "api_key"

    def get_cache_key(self, request, view):
        if isinstance(request.auth, ApiKey):
            return self.cache_format % {"scope": self.scope, "ident": request.auth.pk}
        return None


class LearnerSessionThrottle(_SettingsRate):
    scope = "learner_session"

    def get_cache_key(self, request, view):
        if request.auth is None and request.user.is_authenticated:
            return self.cache_format % {"scope": self.scope, "ident": request.user.pk}
        return None


class AnonymousThrottle(_SettingsRate):
    scope = "anonymous"

    def get_cache_key(self, request, view):
        if request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
