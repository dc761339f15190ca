"""Instructors make keys in the admin: the token is shown once, on the page after saving, and
never again; keys are revoked by an action."""

from __future__ import annotations

import hashlib
import re
import uuid

import pytest
from django.urls import reverse
from lti_tool.models import LtiRegistration

from integrations import services
from integrations.models import ApiKey, Integration, LtiTie
from tests.factories import CourseFactory, InstructorFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(InstructorFactory())
    return client


def test_a_new_key_is_shown_once_and_stored_as_a_digest(admin_client):
    integration = Integration.objects.create(name="Campus LMS")
    course = CourseFactory()
    response = admin_client.post(
        reverse("admin:integrations_apikey_add"),
        {"integration": integration.pk, "name": "gradebook", "courses": [course.pk]},
    )
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    html = response.content.decode()
    token = re.search(r'<code id="api-key-token">([^<]+)</code>', html).group(1)
    key = ApiKey.objects.get()
    assert key.digest == hashlib.sha256(token.encode()).hexdigest()
    assert list(key.courses.all()) == [course]
    assert services.api_key_authenticate(token=token) == key
    change = admin_client.get(reverse("admin:integrations_apikey_change", args=[key.pk]))
    assert token not in change.content.decode()
    assert f"sg_{key.prefix}_" in change.content.decode()
    listing = admin_client.get(reverse("admin:integrations_apikey_changelist"))
    assert token not in listing.content.decode()


def test_revoke_action(admin_client):
    integration = Integration.objects.create(name="Campus LMS")
    key, token = services.api_key_create(integration=integration, name="old", courses=[])
    response = admin_client.post(
        reverse("admin:integrations_apikey_changelist"),
        {"action": "revoke_keys", "_selected_action": [key.pk]},
        follow=True,
    )
    assert "Revoked 1 key" in response.content.decode()
    with pytest.raises(services.RevokedApiKey):
        services.api_key_authenticate(token=token)


def test_admin_pages_render(admin_client):
    integration = Integration.objects.create(name="Campus LMS")
    services.api_key_create(integration=integration, name="sync", courses=[])
    services.learner_provision(integration=integration, external_id="u1", name="Ada")
    for name in ("integration", "apikey", "learner"):
        page = admin_client.get(reverse(f"admin:integrations_{name}_changelist"))
        assert page.status_code == 200, name
    assert (
        admin_client.get(
            reverse("admin:integrations_integration_change", args=[integration.pk])
        ).status_code
        == 200
    )
    assert admin_client.get(reverse("admin:integrations_learner_add")).status_code == 403


def _tie_form(integration: Integration, registration_id: int) -> dict[str, str]:
    """The integration's change form with one LTI registration tied in its inline."""
    return {
        "name": integration.name,
        "notes": "",
        "api_keys-TOTAL_FORMS": "0",
        "api_keys-INITIAL_FORMS": "0",
        "lti_ties-TOTAL_FORMS": "1",
        "lti_ties-INITIAL_FORMS": "0",
        "lti_ties-0-registration": str(registration_id),
    }


def test_an_lti_registration_is_tied_to_one_integration_at_most(admin_client):
    registration = LtiRegistration.objects.create(
        name="Campus LMS (LTI)", uuid=uuid.uuid4(), issuer="https://lms.example.edu"
    )
    campus = Integration.objects.create(name="Campus LMS")
    other = Integration.objects.create(name="Other LMS")
    for integration in (campus, other):
        admin_client.post(
            reverse("admin:integrations_integration_change", args=[integration.pk]),
            _tie_form(integration, registration.pk),
        )
    # The second integration's form is refused: the registration's users' ids stay with one.
    assert list(LtiTie.objects.values_list("integration__name", "registration_id")) == [
        ("Campus LMS", registration.pk)
    ]
