"""A formula problem's mistake through the API: the misconception's code and the mistake's own
feedback, never the mistake's internal code."""

from __future__ import annotations

import pytest

from grading.models import Variant
from tests.grading.test_formula_mistakes_shown import CODE, _mistake_text, formula_problem

pytestmark = pytest.mark.django_db
__all__ = ["formula_problem"]  # the fixture, shared with the page test


def test_the_api_verdict_names_the_misconception_never_the_code(lms, formula_problem):
    client = lms.client()
    variant = client.post(
        "/api/v1/variants/", {"problem": formula_problem.slug, "learner": "stud-1"}, format="json"
    ).json()
    text = _mistake_text(Variant.objects.get(pk=variant["id"]), CODE)
    verdict = client.post(
        f"/api/v1/variants/{variant['id']}/answers/", {"text": text}, format="json"
    )
    assert verdict.status_code == 201
    body = verdict.content.decode()
    assert verdict.json()["misconception"] == "std-for-variance"
    assert verdict.json()["feedback"].startswith("Check whether you halved something.")
    assert "internal-" not in body
