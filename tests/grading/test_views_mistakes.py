"""The issue's example on the practice page: each likely mistake named with its misconception,
and the right value nowhere in the page while practice keeps it back."""

from __future__ import annotations

import pytest

from courses.models import Misconception, Problem
from grading.models import PracticeStreak, Variant
from grading.services.practice import practice_variant_current
from tests.grading.test_views import practice_url, submit_practice

pytestmark = pytest.mark.django_db

# d_k = 512, σq = 0.5, σk = 1: Var(q·k) = 128.
ISSUE_GIVENS = {"d_k": 512, "sigma_q": 0.5, "sigma_k": 1.0}


def issue_variant(learner) -> Variant:
    problem = Problem.objects.get(slug="dot-variance")
    variant = practice_variant_current(user=learner, problem=problem)
    Variant.objects.filter(pk=variant.pk).update(givens=ISSUE_GIVENS)
    variant.refresh_from_db()
    return variant


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("sqrt(512)", "root-width-for-width"),
        ("512*0.5*1", "sigma-not-squared"),
        ("512", "unit-variance-assumed"),
    ],
)
def test_the_practice_page_names_each_likely_mistake(
    learner_client, learner, shipped_bank, text, code
):
    variant = issue_variant(learner)
    response = submit_practice(learner_client, variant, text)
    assert response.status_code == 302
    html = learner_client.get(response.url).content.decode()
    misconception = Misconception.objects.get(code=code)
    assert misconception.title in html
    assert "128" not in html  # practice has not released the answer
    assert PracticeStreak.objects.get(user=learner).current == 0


def test_the_right_value_is_still_correct_on_the_page(learner_client, learner, shipped_bank):
    variant = issue_variant(learner)
    submit_practice(learner_client, variant, "128")
    html = learner_client.get(practice_url()).content.decode()
    assert "Correct" in html
    assert PracticeStreak.objects.get(user=learner).current == 1
