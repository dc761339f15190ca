"""The API's start uses the learner's prepared attempt (grading/services/prepared.py), made when
they opened the quiz's page: 201 with that attempt, its variants as prepared; 200 on resuming."""

from __future__ import annotations

import pytest

from grading.models import Attempt
from grading.services.prepared import attempt_prepare
from integrations.models import Learner
from tests.api.conftest import key_client, session_client

pytestmark = pytest.mark.django_db


def test_an_lms_start_starts_the_learner_s_prepared_attempt(lms, exam):
    user = Learner.objects.get(external_id=lms.learner_id).user
    prepared = attempt_prepare(user=user, quiz=exam)
    variants = sorted(prepared.variants.values_list("pk", "seed"))
    body = {"quiz": exam.slug, "learner": lms.learner_id}
    started = key_client(lms.token).post("/api/v1/attempts/", body)
    assert started.status_code == 201, started.content
    assert started.json()["id"] == prepared.pk
    assert started.json()["status"] == "in_progress"
    assert sorted(Attempt.objects.get(pk=prepared.pk).variants.values_list("pk", "seed")) == (
        variants
    )
    resumed = key_client(lms.token).post("/api/v1/attempts/", body)
    assert (resumed.status_code, resumed.json()["id"]) == (200, prepared.pk)
    assert not Attempt.prepared.exists()


def test_a_learner_s_own_start_starts_their_prepared_attempt(learner_a, exam):
    prepared = attempt_prepare(user=learner_a, quiz=exam)
    started = session_client(learner_a).post("/api/v1/attempts/", {"quiz": exam.slug})
    assert (started.status_code, started.json()["id"]) == (201, prepared.pk)
    assert started.json()["deadline"] is not None


def test_the_api_names_no_prepared_status(learner_a, exam):
    attempt_prepare(user=learner_a, quiz=exam)
    client = session_client(learner_a)
    refused = client.get("/api/v1/attempts/", {"status": "prepared"})
    assert refused.status_code == 400
    assert "prepared" in refused.content.decode()
    schema = client.get("/api/v1/schema/?format=json").content.decode()
    assert '"prepared"' not in schema
    assert "never_submitted" in schema
