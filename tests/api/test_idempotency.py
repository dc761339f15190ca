"""Idempotency-Key on answers: a retry returns the first result and records one try; the same
key with a different body is a 409."""

from __future__ import annotations

import pytest

from grading.models import Response
from tests.api.conftest import items_of_kind, problem_answers, start_attempt

pytestmark = pytest.mark.django_db


@pytest.fixture
def answer(lms, practice_quiz):
    return problem_answers(lms.client())


def test_a_retry_returns_the_first_result_and_records_one_try(answer):
    first = answer("12345", "retry-1")
    again = answer("12345", "retry-1")
    assert first.status_code == 201
    assert again.status_code == 200
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert Response.objects.count() == 1
    assert Response.objects.get().counts_as_try


def test_the_same_key_with_another_answer_is_a_conflict(answer):
    answer("12345", "retry-1")
    conflict = answer("54321", "retry-1")
    assert conflict.status_code == 409
    assert conflict.json()["code"] == "idempotency_conflict"
    assert Response.objects.count() == 1


def test_a_retry_after_the_tries_ran_out_still_gets_its_first_result(answer, practice_quiz):
    keys = [f"k{n}" for n in range(practice_quiz.tries_per_item)]
    # Wrong and nowhere near the answer: no near miss, whose try would be given back.
    results = [answer(f"{123457 + n}.7", key).json() for n, key in enumerate(keys)]
    assert answer("9", "one-more").json()["code"] == "no_tries_left"
    assert answer("123457.7", keys[0]).json() == results[0]


def test_different_keys_are_different_tries(answer):
    answer("12345", "a")
    answer("12346", "b")
    assert Response.objects.filter(counts_as_try=True).count() == 2


@pytest.mark.parametrize("key", ["x" * 201, "naïve", "line\nbreak"])
def test_unusable_keys_are_refused_by_name(answer, key):
    response = answer("12345", key)
    assert response.status_code == 400
    assert response.json()["field"] == "Idempotency-Key"
    assert not Response.objects.exists()


def test_a_retry_of_invalid_input_returns_its_first_result(answer):
    """Invalid input is no try, so it is not among the tries read with the attempt: the key's
    unique constraint finds the first row."""
    first = answer("[[", "typo-1")
    again = answer("[[", "typo-1")
    assert first.status_code == 201
    assert first.json()["status"] == "invalid"
    assert again.status_code == 200
    assert again.json() == first.json()
    assert Response.objects.count() == 1


@pytest.fixture
def two_items(lms, practice_quiz):
    client = lms.client()
    attempt = start_attempt(client)
    items = items_of_kind(client, attempt, "problem")[:2]

    def post(item: int, text: str, key: str):
        url = f"/api/v1/attempts/{attempt['id']}/items/{items[item]['id']}/answers/"
        return client.post(url, {"text": text}, format="json", HTTP_IDEMPOTENCY_KEY=key)

    return post


def test_a_key_used_for_another_item_is_a_conflict(two_items):
    assert two_items(0, "12345", "shared").status_code == 201
    conflict = two_items(1, "12345", "shared")
    assert conflict.status_code == 409
    assert conflict.json()["code"] == "idempotency_conflict"
    assert Response.objects.count() == 1


def test_a_key_used_elsewhere_is_a_conflict_even_where_no_try_is_left(two_items, practice_quiz):
    """The first use of a key wins over the quiz's refusal: the caller learns the key is spent."""
    assert two_items(0, "12345", "spent").status_code == 201
    for n in range(practice_quiz.tries_per_item):
        assert two_items(1, str(2000 + n), f"try-{n}").status_code == 201
    assert two_items(1, "777", "fresh").json()["code"] == "no_tries_left"
    conflict = two_items(1, "12345", "spent")
    assert conflict.status_code == 409
    assert conflict.json()["code"] == "idempotency_conflict"
    assert Response.objects.count() == 1 + practice_quiz.tries_per_item
