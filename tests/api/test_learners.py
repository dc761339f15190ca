"""Provisioning learners by the integration's own ids; one integration never sees another's."""

from __future__ import annotations

import pytest

from integrations.models import Learner

pytestmark = pytest.mark.django_db


def test_provision_creates_then_finds_and_updates(lms):
    client = lms.client()
    created = client.post(
        "/api/v1/learners/",
        {"external_id": "u-42", "name": "Grace", "email": "grace@example.org"},
        format="json",
    )
    assert created.status_code == 201
    assert created.json()["external_id"] == "u-42"
    again = client.post(
        "/api/v1/learners/", {"external_id": "u-42", "email": "g@example.org"}, format="json"
    )
    assert again.status_code == 200
    assert again.json()["name"] == "Grace"
    assert again.json()["email"] == "g@example.org"
    learner = Learner.objects.get(external_id="u-42")
    assert learner.user.email == "g@example.org"
    assert not learner.user.has_usable_password()
    assert Learner.objects.filter(external_id="u-42").count() == 1


def test_lookup_list_and_change(lms):
    client = lms.client()
    assert client.get("/api/v1/learners/stud-1/").json()["name"] == "Ada"
    changed = client.patch("/api/v1/learners/stud-1/", {"name": "Ada L."}, format="json")
    assert changed.json()["name"] == "Ada L."
    assert changed.json()["email"] == "ada@example.org"
    listed = client.get("/api/v1/learners/?external_id=stud-1").json()
    assert [row["external_id"] for row in listed["results"]] == ["stud-1"]


def test_learners_are_invisible_across_integrations(lms, other_lms):
    other = other_lms.client()
    assert other.get("/api/v1/learners/stud-1/").status_code == 404
    assert [r["external_id"] for r in other.get("/api/v1/learners/").json()["results"]] == [
        "other-1"
    ]
    # The same external id in another integration is another learner.
    made = other.post("/api/v1/learners/", {"external_id": "stud-1"}, format="json")
    assert made.status_code == 201
    assert Learner.objects.filter(external_id="stud-1").count() == 2
    # And it cannot act for this integration's learner.
    start = other.post(
        "/api/v1/variants/", {"problem": "other-problem", "learner": "stud-1"}, format="json"
    )
    assert start.status_code == 201
    assert (
        Learner.objects.get(
            integration=other_lms.integration, external_id="stud-1"
        ).user.variants.count()
        == 1
    )
    assert Learner.objects.get(integration=lms.integration).user.variants.count() == 0


@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        ({}, "external_id", "required"),
        ({"external_id": "has space"}, "external_id", "invalid"),
        ({"external_id": "a/b"}, "external_id", "invalid"),
        ({"external_id": "x" * 256}, "external_id", "max_length"),
        ({"external_id": "ok", "email": "not-an-email"}, "email", "invalid"),
        ({"external_id": "ok", "role": "admin"}, "role", "unknown_field"),
        ({"external_id": ["a"]}, "external_id", "invalid"),
    ],
)
def test_bad_provisioning_names_the_field_and_creates_nothing(lms, body, field, code):
    response = lms.client().post("/api/v1/learners/", body, format="json")
    assert response.status_code == 400
    assert response.json() == {"code": code, "message": response.json()["message"], "field": field}
    assert Learner.objects.count() == 1
