"""Fixtures: the test platform registered in softgrade, its endpoints stubbed with `responses`."""

from __future__ import annotations

import json
import socket

import pytest
import responses
from django.core.cache import cache

from courses.models import Course, Lesson, Quiz
from lti import outbound
from tests.lti.fake_lms import TestPlatform


@pytest.fixture(autouse=True)
def _fresh_cache():
    # Cached keysets and access tokens must not leak from one test into the next.
    cache.clear()
    yield
    cache.clear()


# A public address (outside every private, reserved and documentation range) for the test
# platform's host names; no test ever connects to it, since `responses` answers every call.
PUBLIC_ADDRESS = "93.184.215.14"


@pytest.fixture(autouse=True)
def dns(monkeypatch) -> dict[str, list[str]]:
    """The addresses each host name resolves to, standing in for DNS in the outbound policy:
    the test platform's hosts are public; a test may point a name anywhere (say, loopback)."""
    names = {"lms.example.edu": [PUBLIC_ADDRESS]}

    def host_addresses(host: str, port: int) -> list[str]:
        if host not in names:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return names[host]

    monkeypatch.setattr(outbound, "host_addresses", host_addresses)
    return names


@pytest.fixture
def lms():
    """The platform's HTTP endpoints, stubbed; unused stubs are fine."""
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


def registered(test_platform: TestPlatform, *, name: str = "Example LMS") -> TestPlatform:
    """The platform with its registration and one active deployment stored in softgrade,
    granted every course there is (a registration reaches only the courses it is granted)."""
    test_platform.register(name=name)
    test_platform.grant(*Course.objects.all())
    return test_platform


@pytest.fixture
def platform(db, lms, shipped_bank) -> TestPlatform:
    """A registered platform with an active deployment, granted the shipped bank's courses,
    its JWKS served to softgrade."""
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
