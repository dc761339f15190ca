"""An instructor's previews are a page of theirs, never in the API: not listed, not found, not
answerable, and a start through the API is one (refused there, 409); and no learner makes one
through the API, whatever the body says."""

from __future__ import annotations

import pytest

from grading.models import Attempt
from grading.services.previews import preview_start
from tests.api.conftest import session_client

pytestmark = pytest.mark.django_db


def test_a_preview_is_not_in_the_api(instructor, practice_quiz):
    preview = preview_start(user=instructor, quiz=practice_quiz)
    client = session_client(instructor)
    assert client.get("/api/v1/attempts/").json()["results"] == []
    assert client.get(f"/api/v1/attempts/{preview.pk}/").status_code == 404
    assert client.get(f"/api/v1/attempts/{preview.pk}/items/").status_code == 404
    item = practice_quiz.items.filter(problem__isnull=False).first()
    answer = client.post(
        f"/api/v1/attempts/{preview.pk}/items/{item.pk}/answers/", {"text": "1"}, format="json"
    )
    assert answer.status_code == 404
    assert not preview.responses.exists()
    # Starting through the API starts no attempt of the instructor's: it resumes the preview,
    # and says where it is taken.
    started = client.post("/api/v1/attempts/", {"quiz": practice_quiz.slug}, format="json")
    assert started.status_code == 409
    assert started.json()["code"] == "preview_on_page"
    assert "counts nowhere" in started.json()["message"]
    assert list(Attempt.objects.all()) == [preview]


def test_a_learner_cannot_ask_the_api_for_a_preview(learner_a, practice_quiz):
    client = session_client(learner_a)
    body = {"quiz": practice_quiz.slug, "preview": True}
    response = client.post("/api/v1/attempts/", body, format="json")
    # The API refuses a field it does not know rather than start an attempt of another kind.
    assert response.status_code == 400
    assert "preview" in response.content.decode()
    assert not Attempt.objects.exists()
