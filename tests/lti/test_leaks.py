"""Pages reached through an LTI launch never show a variant's private data.

The learner launches into an exam with a problem of every family (an instructor's formula
problem with mistakes included) and works through it in the LMS's frame; the instructor
launches the same link. Every page body is scanned for every string and key of every variant's
grading key (tests/grading/private_data.py), before and after answers are released.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from grading.engine import FAMILIES
from grading.models import Attempt, Variant
from grading.services.closing import attempt_submit
from grading.services.responses import response_submit
from tests.grading.private_data import body, exam_of_every_family, private_leaks
from tests.grading.test_views_leaks import (
    leaks,
    lesson_with_a_formula_problem,
    without_solutions,
)
from tests.lti.fake_lms import INSTRUCTOR, launch_as

pytestmark = pytest.mark.django_db


def test_lti_pages_never_show_a_variants_private_data(client, platform, shipped_bank):
    quiz = exam_of_every_family(lesson_with_a_formula_problem())
    launched = launch_as(client, platform, custom={"softgrade_quiz": quiz.slug})
    assert launched["Location"] == reverse("quiz-detail", args=[quiz.slug])
    pages = [("launch", launched), ("landing", client.get(launched["Location"]))]
    started = client.post(reverse("attempt-start", args=[quiz.slug]), follow=True)
    attempt = Attempt.objects.get(quiz=quiz)
    variants = list(Variant.objects.filter(attempt=attempt).select_related("problem", "quiz_item"))
    assert {v.family for v in variants} == set(FAMILIES)
    for variant in variants:
        response_submit(attempt=attempt, item=variant.quiz_item, text="12345")
    take = reverse("attempt-take", args=[attempt.pk])
    pages += [("started", started), ("take", client.get(take))]
    formula = next(v for v in variants if v.family == "formula")
    for label, response in pages:
        assert response.status_code == 200 or label == "launch", label
        assert private_leaks(body(response), variants) == set(), label
        assert leaks(body(response), formula, typed="12345") == set(), label

    attempt_submit(attempt=attempt)
    results = client.get(reverse("attempt-results", args=[attempt.pk]))
    assert leaks(body(results), formula), "the answer should show once released"
    after = [("results", results), ("take after", client.get(take, follow=True))]
    client.logout()
    teacher = launch_as(
        client,
        platform,
        custom={"softgrade_quiz": quiz.slug},
        sub="teacher-1",
        roles=(INSTRUCTOR,),
    )
    after.append(("instructor view", client.get(teacher["Location"])))
    for label, response in after:
        assert response.status_code == 200, label
        # Released worked solutions show how answers are computed, a formula problem's answer
        # formula included (tests/grading/test_views_leaks.py checks them); nothing else may.
        assert private_leaks(without_solutions(body(response)), variants) == set(), label
