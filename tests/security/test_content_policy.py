"""A page whose policy allows one more origin keeps every other directive of the site's."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpResponse
from django.utils.csp import CSP

from security.content_policy import policy_text, relax


def directives(header: str) -> dict[str, str]:
    return {part.split(" ", 1)[0]: part for part in header.split("; ")}


def test_a_relaxed_page_differs_from_an_ordinary_one_in_that_directive_only(client, db, settings):
    ordinary = client.get("/")["Content-Security-Policy"]
    response = HttpResponse()
    relax(response, "frame-ancestors", [CSP.SELF, "https://lms.example.edu"])
    relaxed = directives(response["Content-Security-Policy"])
    assert relaxed.pop("frame-ancestors") == "frame-ancestors 'self' https://lms.example.edu"
    expected = directives(ordinary)
    expected.pop("frame-ancestors")
    assert relaxed == expected


def test_a_second_layer_adds_to_the_first():
    response = HttpResponse()
    relax(response, "form-action", [CSP.SELF, "https://lms.example.edu"])
    relax(response, "frame-ancestors", [CSP.SELF, "https://lms.example.edu"])
    found = directives(response["Content-Security-Policy"])
    assert found["form-action"] == "form-action 'self' https://lms.example.edu"
    assert found["frame-ancestors"] == "frame-ancestors 'self' https://lms.example.edu"
    # WSGI servers take plain strings only (an enum member as a header name is refused).
    assert [type(name) for name in response.headers] == [str, str]


def test_policy_text_follows_the_setting_format():
    policy = {
        "default-src": [CSP.SELF],
        "img-src": {"data:", CSP.SELF},
        "upgrade-insecure-requests": True,
        "report-uri": "/csp-report/",
        "sandbox": None,
        "worker-src": [],
    }
    assert policy_text(policy) == (
        "default-src 'self'; img-src 'self' data:; upgrade-insecure-requests; "
        "report-uri /csp-report/"
    )


def test_a_policy_asking_for_a_nonce_is_refused_rather_than_weakened():
    with pytest.raises(ImproperlyConfigured, match="script-src asks for a nonce"):
        policy_text({"script-src": [CSP.SELF, CSP.NONCE]})
