"""What one API request reaches.

A learner signed in to the site reaches every course and only their own records: that is
`Scope`. A credential that reaches less (an integration's API key: integrations.api.scope)
brings its own Scope, which the authentication that accepted the request gives
(`request_scope`). What a scope does not reach answers 404, so a caller cannot even learn that
another caller's learner or attempt exists.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from django.utils.translation import gettext as _
from rest_framework import exceptions


class Scope:
    """A learner signed in to the site: every course, their own records, acting for themselves."""

    key = None  # the API key a narrower scope is for; a session has none

    def __init__(self, *, user: AbstractBaseUser):
        self.user = user

    def courses(self, queryset: QuerySet, course_path: str = "") -> QuerySet:
        """Only rows whose course (reached through `course_path`) the caller may see."""
        return queryset

    def owned(self, queryset: QuerySet, user_path: str = "user") -> QuerySet:
        """Only rows of the caller's learners: here, the signed-in learner's own."""
        return queryset.filter(**{user_path: self.user})

    def learner_user(self, external_id: str | None) -> AbstractBaseUser:
        """The user a learner-facing request acts for: the signed-in learner."""
        if external_id:
            raise exceptions.ValidationError(
                {"learner": [_("A signed-in learner acts for themselves; leave learner out.")]}
            )
        return self.user

    def learner_filter(self, queryset: QuerySet, external_id: str | None, user_path="user"):
        """Narrow to one learner by external id; a signed-in learner sees only their own."""
        if external_id:
            raise exceptions.ValidationError(
                {"learner": [_("A signed-in learner sees only their own records; leave it out.")]}
            )
        return queryset


def request_scope(request) -> Scope:
    """What the request reaches: the scope its authentication gives (`scope(request)`), or, for
    a site session, the signed-in learner's."""
    scope_of = getattr(request.successful_authenticator, "scope", None)
    return scope_of(request) if scope_of is not None else Scope(user=request.user)
