"""Fixtures: the test platform registered in softgrade, its endpoints stubbed with `responses`."""

from __future__ import annotations

import json
import uuid

import pytest
import responses
from django.core.cache import cache
from lti_tool.models import LtiDeployment, LtiRegistration

from courses.models import Lesson, Quiz
from tests.lti.fake_lms import TestPlatform


@pytest.fixture(autouse=True)
def _fresh_cache():
    # Cached keysets and access tokens must not leak from one test into the next.
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def lms():
    """The platform's HTTP endpoints, stubbed; unused stubs are fine."""
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


def registered(test_platform: TestPlatform, *, name: str = "Example LMS") -> TestPlatform:
    """The platform with its registration and one active deployment stored in softgrade."""
    test_platform.registration = LtiRegistration.objects.create(
        name=name,
        uuid=uuid.uuid4(),
        issuer=test_platform.issuer,
        client_id=test_platform.client_id,
        auth_url=test_platform.auth_url,
        token_url=test_platform.token_url,
        keyset_url=test_platform.keyset_url,
    )
    test_platform.deployment = LtiDeployment.objects.create(
        registration=test_platform.registration,
        deployment_id=test_platform.deployment_id,
        is_active=True,
    )
    return test_platform


@pytest.fixture
def platform(db, lms) -> TestPlatform:
    """A registered platform with an active deployment, its JWKS served to softgrade."""
    test_platform = registered(TestPlatform())
    lms.add_callback(
        responses.GET,
        test_platform.keyset_url,
        callback=lambda request: (200, {}, json.dumps(test_platform.jwks())),
    )
    return test_platform


@pytest.fixture
def quiz(shipped_bank) -> Quiz:
    return Quiz.objects.filter(items__isnull=False).distinct().order_by("pk").first()


@pytest.fixture
def lesson(shipped_bank) -> Lesson:
    return Lesson.objects.filter(problems__isnull=False).distinct().order_by("pk").first()
