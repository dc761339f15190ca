"""What an API key reaches: its own courses and the learners its integration provisioned.

ApiKeyAuthentication gives this scope to the requests it accepts (api.scope.request_scope).
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import exceptions
from rest_framework.permissions import BasePermission

from api.errors import not_found
from api.scope import Scope
from integrations import services
from integrations.models import ApiKey


class ApiKeyRequired(BasePermission):
    """Endpoints that serve the integration itself (provisioning, grades), not one learner."""

    message = gettext_lazy("This endpoint is for integrations: call it with an API key.")

    def has_permission(self, request, view) -> bool:
        return isinstance(request.auth, ApiKey)


class KeyScope(Scope):
    def __init__(self, key: ApiKey):
        self.key: ApiKey = key
        self.user = None

    def courses(self, queryset: QuerySet, course_path: str = "") -> QuerySet:
        """Only rows whose course (reached through `course_path`) the key may see."""
        # A join through the key's courses (one key, so no row is repeated): cheaper to plan
        # than an IN (subquery), and this filter is on every request.
        lookup = "api_keys" if course_path in ("", "pk") else f"{course_path}__api_keys"
        return queryset.filter(**{lookup: self.key.pk})

    def owned(self, queryset: QuerySet, user_path: str = "user") -> QuerySet:
        """Only rows of the learners the key's integration provisioned."""
        return queryset.filter(
            **{f"{user_path}__integration_learner__integration_id": self.key.integration_id}
        )

    def learner_user(self, external_id: str | None) -> AbstractBaseUser:
        """The user a learner-facing request acts for: the learner it names."""
        if not external_id:
            raise exceptions.ValidationError(
                {"learner": [_("Name the learner (their external_id) this request acts for.")]}
            )
        learner = services.learner_find(integration=self.key.integration, external_id=external_id)
        if learner is None:
            raise not_found(
                _("No learner %(external_id)s has been provisioned by this integration.")
                % {"external_id": repr(external_id)},
                field="learner",
            )
        return learner.user

    def learner_filter(self, queryset: QuerySet, external_id: str | None, user_path="user"):
        """Narrow to one of the integration's learners by external id, or leave as is.

        The integration is named too: a queryset that is not narrowed to its learners (grades
        list every learner of the key's courses) must not match another integration's learner
        who happens to have the same external id."""
        if not external_id:
            return queryset
        learner = f"{user_path}__integration_learner"
        return queryset.filter(
            **{
                f"{learner}__integration_id": self.key.integration_id,
                f"{learner}__external_id": external_id,
            }
        )
