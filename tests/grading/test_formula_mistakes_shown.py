"""What a learner reads for a formula problem's mistake: the misconception's title and
explanation or the mistake's own feedback, never the mistake's internal code."""

from __future__ import annotations

import pytest

from courses.models import Lesson, Misconception, Problem
from grading import engine
from grading.models import Variant
from grading.services.practice import practice_variant_current
from tests.grading.test_views import submit_practice

pytestmark = pytest.mark.django_db

CODE = "internal-halving-xq"
PARAMS = {
    # s = 2 would make both mistakes 2·d_k, named by one of them only (by code): not this test.
    "variables": {"d_k": {"choices": [16, 64]}, "s": {"choices": [3, 5]}},
    "answer": "d_k * s^2",
    "mistakes": {
        CODE: {
            "formula": "d_k * s^2 / 2",
            "misconception": "std-for-variance",
            "feedback": "Check whether you halved something.",
        },
        "internal-plain-xq": {"formula": "d_k * s", "misconception": "std-for-variance"},
    },
    "prompt": "$d_k = {@d_k@}$ and $s = {@s@}$. What is the variance?",
}


@pytest.fixture
def formula_problem(shipped_bank) -> Problem:
    return Problem.objects.create(
        lesson=Lesson.objects.get(),
        title="Variance by formula",
        slug="variance-by-formula",
        family="formula",
        params=PARAMS,
        published=True,
    )


def _mistake_text(variant: Variant, code: str) -> str:
    family = engine.get_family(variant.family)
    return engine.format_answer(family.solve(variant.givens, variant.grading_key).mistakes[code])


@pytest.mark.parametrize("code", [CODE, "internal-plain-xq"])
def test_the_practice_page_shows_the_misconception_never_the_code(
    learner_client, learner, formula_problem, code
):
    variant = practice_variant_current(user=learner, problem=formula_problem)
    response = submit_practice(learner_client, variant, _mistake_text(variant, code))
    html = learner_client.get(response.url).content.decode()
    misconception = Misconception.objects.get(code="std-for-variance")
    assert misconception.title in html
    assert "Not correct" in html
    assert code not in html
    assert "internal-" not in html
    if code == CODE:
        assert "Check whether you halved something." in html
    else:
        assert "That value matches a known mistake." in html
