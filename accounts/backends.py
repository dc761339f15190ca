"""Signing in as Django's ModelBackend does, with the person's profile loaded with them.

The middleware reads the profile's time zone on every request (accounts/middleware.py): loaded
in the same query as the user (a LEFT JOIN), it costs no query of its own, and an account with
no profile is known to have none without asking again.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied
from django.views.decorators.debug import sensitive_variables

# The path login() records in the session (views that sign someone in name it too).
ACCOUNT_BACKEND = "accounts.backends.AccountBackend"


class AccountBackend(ModelBackend):
    """ModelBackend, its users fetched with their profile.

    Settings list Django's ModelBackend after this one only so that sessions signed in before it
    keep working. A sign-in this backend refuses is refused outright (PermissionDenied), so the
    same password is not checked a second time by ModelBackend: that would double the cost of
    every failed sign-in (the hasher is deliberately slow).
    """

    @sensitive_variables("password")
    def authenticate(self, request, username=None, password=None, **kwargs):
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is None and password is not None:
            raise PermissionDenied
        return user

    @sensitive_variables("password")
    async def aauthenticate(self, request, username=None, password=None, **kwargs):
        user = await super().aauthenticate(request, username=username, password=password, **kwargs)
        if user is None and password is not None:
            raise PermissionDenied
        return user

    def get_user(self, user_id):
        try:
            user = get_user_model()._default_manager.select_related("profile").get(pk=user_id)
        except get_user_model().DoesNotExist:
            return None
        return user if self.user_can_authenticate(user) else None

    async def aget_user(self, user_id):
        users = get_user_model()._default_manager.select_related("profile")
        try:
            user = await users.aget(pk=user_id)
        except get_user_model().DoesNotExist:
            return None
        return user if self.user_can_authenticate(user) else None
