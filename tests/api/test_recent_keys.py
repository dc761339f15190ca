"""The answer endpoint may take this process's recent copy of a key, because its own read of the
variant confirms the key: a key revoked, re-issued, moved to another integration or taken off
the course since the copy was made reaches nothing, and gets the same answer as a key read
afresh (401 or 404), with nothing stored. Other endpoints always read the key."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from grading.models import Response
from integrations import services
from integrations.models import ApiKey, Integration
from tests.api.conftest import first_item, problem_answers, start_attempt

pytestmark = pytest.mark.django_db


@pytest.fixture
def answer(lms, practice_quiz):
    """Post answers to a problem item with the LMS's key; the first one leaves a recent copy."""
    post = problem_answers(lms.client())
    assert post("12345").status_code == 201
    return post


def key_of(lms) -> ApiKey:
    return ApiKey.objects.get(integration=lms.integration)


def reads_of_the_key(statements) -> int:
    return sum(
        q["sql"].split(" FROM ")[1].startswith('"integrations_apikey"')
        for q in statements
        if " FROM " in q["sql"]
    )


def test_a_recent_copy_spares_the_key_read(answer):
    with CaptureQueriesContext(connection) as statements:
        assert answer("2").status_code == 201
    assert reads_of_the_key(statements) == 0


def test_a_copy_older_than_its_lifetime_is_read_again(answer, monkeypatch):
    later = services.time.monotonic() + services.RECENT_KEY_SECONDS + 1
    monkeypatch.setattr(services.time, "monotonic", lambda: later)
    with CaptureQueriesContext(connection) as statements:
        assert answer("2").status_code == 201
    assert reads_of_the_key(statements) == 1


def test_a_key_revoked_elsewhere_is_refused_at_once(answer, lms):
    # As another worker would: this process's copy still says the key is in force.
    ApiKey.objects.filter(integration=lms.integration).update(revoked_at=timezone.now())
    response = answer("3")
    assert response.status_code == 401
    assert response.json()["code"] == "api_key_revoked"
    assert Response.objects.count() == 1


def test_a_reissued_key_refuses_the_old_token(answer, lms):
    ApiKey.objects.filter(integration=lms.integration).update(digest="0" * 64)
    response = answer("3")
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_api_key"
    assert Response.objects.count() == 1


def test_a_deleted_key_is_refused(answer, lms):
    ApiKey.objects.filter(integration=lms.integration).delete()
    response = answer("3")
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_api_key"
    assert Response.objects.count() == 1


def test_a_key_moved_to_another_integration_no_longer_reaches_its_learners(answer, lms):
    elsewhere = Integration.objects.create(name="Another LMS")
    ApiKey.objects.filter(integration=lms.integration).update(integration=elsewhere)
    response = answer("3")
    assert response.status_code == 404
    assert Response.objects.count() == 1


def test_a_key_taken_off_the_course_no_longer_reaches_it(answer, lms, course):
    key_of(lms).courses.remove(course)
    response = answer("3")
    assert response.status_code == 404
    assert Response.objects.count() == 1


def test_a_wrong_secret_with_a_known_prefix_is_refused(answer, lms, practice_quiz):
    prefix = lms.token.split("_")[1]
    forged = lms.client()
    forged.credentials(HTTP_AUTHORIZATION=f"Bearer sg_{prefix}_{'A' * 43}")
    attempt = start_attempt(lms.client())
    item = first_item(lms.client(), attempt, "problem")
    url = f"/api/v1/attempts/{attempt['id']}/items/{item['id']}/answers/"
    response = forged.post(url, {"text": "3"}, format="json")
    assert response.status_code == 401
    assert Response.objects.count() == 1


def test_other_endpoints_read_the_key_every_time(answer, lms):
    ApiKey.objects.filter(integration=lms.integration).update(revoked_at=timezone.now())
    response = lms.client().get("/api/v1/attempts/")
    assert response.status_code == 401
    assert response.json()["code"] == "api_key_revoked"


def test_a_question_item_confirms_a_recent_key_before_answering(answer, lms):
    client = lms.client()
    attempt = start_attempt(client)
    question = first_item(client, attempt, "question")
    ApiKey.objects.filter(integration=lms.integration).update(revoked_at=timezone.now())
    url = f"/api/v1/attempts/{attempt['id']}/items/{question['id']}/answers/"
    response = client.post(url, {"choices": [1]}, format="json")
    assert response.status_code == 401
    assert Response.objects.count() == 1


def test_revoking_here_drops_the_copy(answer, lms):
    services.api_key_revoke(key=key_of(lms))
    token = lms.token
    with pytest.raises(services.RevokedApiKey):
        services.api_key_authenticate(token=token, recent=True)
