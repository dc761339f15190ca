"""A key revoked, re-issued, deleted, moved to another integration or taken off the course
reaches nothing from the very next request, whichever endpoint it calls (every request reads its
key): the same answer as a key never seen (401 or 404), with nothing stored."""

from __future__ import annotations

import pytest
from django.utils import timezone

from grading.models import Response
from integrations.models import ApiKey, Integration
from tests.api.conftest import first_item, problem_answers, start_attempt

pytestmark = pytest.mark.django_db


@pytest.fixture
def answer(lms, practice_quiz):
    """Post answers to a problem item with the LMS's key; the first one is stored."""
    post = problem_answers(lms.client())
    assert post("12345").status_code == 201
    return post


def key_of(lms) -> ApiKey:
    return ApiKey.objects.get(integration=lms.integration)


def test_a_key_revoked_elsewhere_is_refused_at_once(answer, lms):
    # As another worker (or the admin) would, between two answers.
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


def test_a_revoked_key_cannot_answer_a_question_item_either(answer, lms):
    client = lms.client()
    attempt = start_attempt(client)
    question = first_item(client, attempt, "question")
    ApiKey.objects.filter(integration=lms.integration).update(revoked_at=timezone.now())
    url = f"/api/v1/attempts/{attempt['id']}/items/{question['id']}/answers/"
    response = client.post(url, {"choices": [1]}, format="json")
    assert response.status_code == 401
    assert Response.objects.count() == 1
