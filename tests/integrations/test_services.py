"""API keys and learners as services: hashed, found by prefix, revocable, used recently."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from courses.models import Course
from integrations import services
from integrations.models import ApiKey, Integration, Learner
from tests.factories import CourseFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def integration():
    return Integration.objects.create(name="Campus LMS")


def test_a_key_is_stored_only_as_its_digest(integration):
    course = CourseFactory()
    key, token = services.api_key_create(integration=integration, name="sync", courses=[course])
    assert token.startswith(f"sg_{key.prefix}_")
    assert len(token) > 50
    assert key.digest == hashlib.sha256(token.encode()).hexdigest()
    stored_row = ApiKey.objects.filter(pk=key.pk).values()[0]
    assert not any(token in str(value) for value in stored_row.values())
    assert list(key.courses.all()) == [course]
    assert services.api_key_authenticate(token=token) == key


@pytest.mark.parametrize(
    "mangle",
    [
        lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"),
        lambda t: t.replace("sg_", "xx_", 1),
        lambda t: t[:10],
        lambda t: "",
        lambda t: "sg_" + "0" * 12 + "_" + t.split("_", 2)[2],
    ],
)
def test_anything_but_the_exact_token_is_refused(integration, mangle):
    _, token = services.api_key_create(integration=integration, name="sync", courses=[])
    with pytest.raises(services.InvalidApiKey):
        services.api_key_authenticate(token=mangle(token))


def test_revoked_keys_stop_working_at_once(integration):
    key, token = services.api_key_create(integration=integration, name="sync", courses=[])
    services.api_key_revoke(key=key)
    first = ApiKey.objects.get(pk=key.pk).revoked_at
    assert first is not None
    with pytest.raises(services.RevokedApiKey):
        services.api_key_authenticate(token=token)
    services.api_key_revoke(key=ApiKey.objects.get(pk=key.pk))
    assert ApiKey.objects.get(pk=key.pk).revoked_at == first


def test_last_use_is_recorded_once_a_minute(integration):
    key, token = services.api_key_create(integration=integration, name="sync", courses=[])
    assert key.last_used_at is None
    now = timezone.now()
    services.api_key_authenticate(token=token, now=now)
    assert ApiKey.objects.get(pk=key.pk).last_used_at == now
    services.api_key_authenticate(token=token, now=now + timedelta(seconds=30))
    assert ApiKey.objects.get(pk=key.pk).last_used_at == now
    later = now + timedelta(minutes=2)
    services.api_key_authenticate(token=token, now=later)
    assert ApiKey.objects.get(pk=key.pk).last_used_at == later


def test_provisioning_is_idempotent_per_integration(integration):
    first, created = services.learner_provision(
        integration=integration, external_id="u1", name="Ada", email="ada@example.org"
    )
    again, created_again = services.learner_provision(integration=integration, external_id="u1")
    assert (created, created_again) == (True, False)
    assert again == first
    assert again.name == "Ada"
    other = Integration.objects.create(name="Other")
    elsewhere, _ = services.learner_provision(integration=other, external_id="u1")
    assert elsewhere.user != first.user
    assert Learner.objects.count() == 2


def test_the_commands_make_and_revoke_a_key(capsys, shipped_bank):
    call_command("api_key_create", "--integration", "Campus LMS", "--course", "attention-math")
    token = capsys.readouterr().out.strip()
    key = services.api_key_authenticate(token=token)
    assert list(key.courses.all()) == [Course.objects.get(slug="attention-math")]
    with pytest.raises(CommandError, match="No course"):
        call_command("api_key_create", "--integration", "Campus LMS", "--course", "nope")
    call_command("api_key_revoke", token[:15])
    with pytest.raises(services.RevokedApiKey):
        services.api_key_authenticate(token=token)
