"""A practice variant's worked solution through the API: refused (409, with the reason) until the
rule allows it, then revealed once, recorded, the streak ended and the variant closed."""

from __future__ import annotations

import pytest

from grading.models import PracticeStreak, Response, SolutionReveal, Variant
from tests.api.conftest import session_client

pytestmark = pytest.mark.django_db

# d_k = 512, σq = 0.5, σk = 1: σq²σk² = 0.25 and Var(q·k) = 512 · 0.25 = 128, by hand.
GIVENS = {"d_k": 512, "sigma_q": 0.5, "sigma_k": 1.0}


def fixed_variant(client, learner="stud-1") -> str:
    body = {"problem": "dot-variance"} | ({"learner": learner} if learner else {})
    made = client.post("/api/v1/variants/", body, format="json").json()
    Variant.objects.filter(pk=made["id"]).update(givens=GIVENS)
    return f"/api/v1/variants/{made['id']}"


def wrong(client, base: str, count: int = 1) -> None:
    for _ in range(count):
        # Each a different wrong value: the same text again at once is a double submit.
        tried = Response.objects.filter(variant_id=int(base.rsplit("/", 1)[1])).count()
        answered = client.post(f"{base}/answers/", {"text": f"999{tried}"}, format="json")
        assert answered.json()["status"] == "incorrect"


def test_the_variant_says_where_its_solution_stands(lms):
    client = lms.client()
    base = fixed_variant(client)
    assert client.get(f"{base}/").json()["solution"] == "closed"
    wrong(client, base)
    assert client.get(f"{base}/").json()["solution"] == "on_request"
    wrong(client, base, 2)
    assert client.get(f"{base}/").json()["solution"] == "offered"
    client.post(f"{base}/solution/", {}, format="json")
    assert client.get(f"{base}/").json()["solution"] == "revealed"


def test_refused_with_a_clear_message_before_the_rule_allows_it(lms):
    client = lms.client()
    base = fixed_variant(client)
    early = client.post(f"{base}/solution/", {"give_up": True}, format="json")
    assert early.status_code == 409
    assert early.json()["code"] == "solution_not_available"
    assert "after a wrong try" in early.json()["message"]
    wrong(client, base)
    not_given_up = client.post(f"{base}/solution/", {}, format="json")
    assert not_given_up.status_code == 409
    assert "give up" in not_given_up.json()["message"]
    unrevealed = client.get(f"{base}/solution/")
    assert unrevealed.status_code == 409
    assert "has not been revealed" in unrevealed.json()["message"]
    assert "steps" not in early.json() | not_given_up.json() | unrevealed.json()
    assert not SolutionReveal.objects.exists()


def test_reveal_gives_the_steps_with_the_learners_numbers_and_closes_the_variant(lms):
    client = lms.client()
    base = fixed_variant(client)
    wrong(client, base)
    revealed = client.post(f"{base}/solution/", {"give_up": True}, format="json")
    assert revealed.status_code == 201
    body = revealed.json()
    assert body["problem"] == "dot-variance"
    assert body["gave_up_early"] is True
    assert body["next"] == {"problem": "dot-variance"}
    texts = [step["text"] for step in body["steps"]]
    assert "d_k = 512" in texts[0]
    assert "0.5^2 \\cdot 1^2 = 0.25" in texts[1]
    assert "512 \\cdot 0.25 = 128" in texts[2]
    assert all("<math" in step["html"] for step in body["steps"])
    reveal = SolutionReveal.objects.get()
    assert reveal.user.integration_learner.external_id == "stud-1"
    assert PracticeStreak.objects.get().current == 0
    # Asking again: the same solution, 200; reading it: the same.
    again = client.post(f"{base}/solution/", {}, format="json")
    assert (again.status_code, again.json()) == (200, body)
    assert client.get(f"{base}/solution/").json() == body
    # No more answers on these numbers, even the right one; nothing recorded.
    late = client.post(f"{base}/answers/", {"text": "128"}, format="json")
    assert late.status_code == 409
    assert late.json()["code"] == "solution_revealed"
    assert Response.objects.count() == 1
    # New numbers come from the variants endpoint, as `next` says.
    fresh = client.post("/api/v1/variants/", {**body["next"], "learner": "stud-1"})
    assert fresh.status_code == 201
    assert fresh.json()["solution"] == "closed"


def test_a_bad_body_is_a_400_naming_the_field(lms):
    client = lms.client()
    base = fixed_variant(client)
    wrong(client, base)
    response = client.post(f"{base}/solution/", {"give_up": "perhaps"}, format="json")
    assert (response.status_code, response.json()["field"]) == (400, "give_up")
    unknown = client.post(f"{base}/solution/", {"giveup": True}, format="json")
    assert unknown.status_code == 400
    assert not SolutionReveal.objects.exists()


def test_another_integrations_key_or_learner_finds_nothing(lms, other_lms, learner_a):
    client = lms.client()
    base = fixed_variant(client)
    wrong(client, base, 3)
    assert other_lms.client().post(f"{base}/solution/", {}, format="json").status_code == 404
    assert other_lms.client().get(f"{base}/solution/").status_code == 404
    assert session_client(learner_a).post(f"{base}/solution/", {}).status_code == 404
    assert not SolutionReveal.objects.exists()


def test_a_signed_in_learner_needs_the_csrf_token(learner_a, shipped_bank):
    with_token = session_client(learner_a)
    base = fixed_variant(with_token, learner=None)
    wrong(with_token, base, 3)
    without = session_client(learner_a, csrf=False)
    assert without.post(f"{base}/solution/", {}, format="json").status_code == 403
    assert not SolutionReveal.objects.exists()
    assert with_token.post(f"{base}/solution/", {}, format="json").status_code == 201
