"""A learner's launch lands on the quiz page, which prepares their attempt
(grading/services/prepared.py); their start there starts it, its variants as prepared."""

from __future__ import annotations

import pytest
from django.urls import reverse

from grading.models import Attempt
from tests.lti.fake_lms import launch_as

pytestmark = pytest.mark.django_db


def test_a_launch_prepares_the_attempt_the_learner_then_starts(client, platform, quiz):
    landed = launch_as(client, platform, custom={"softgrade_quiz": quiz.slug})
    assert landed["Location"] == reverse("quiz-detail", args=[quiz.slug])
    assert client.get(landed["Location"]).status_code == 200
    prepared = Attempt.prepared.get(quiz=quiz)
    assert prepared.user.lti_users.get().sub == "learner-sub-1"
    variants = sorted(prepared.variants.values_list("pk", "seed"))
    started = client.post(reverse("attempt-start", args=[quiz.slug]))
    assert started["Location"] == reverse("attempt-take", args=[prepared.pk])
    attempt = Attempt.objects.get(pk=prepared.pk)
    assert attempt.status == Attempt.Status.IN_PROGRESS
    assert sorted(attempt.variants.values_list("pk", "seed")) == variants
    # A second launch before the start would have found the same prepared attempt; after it,
    # the page offers to resume the one in progress and prepares nothing.
    launch_as(client, platform, custom={"softgrade_quiz": quiz.slug})
    page = client.get(reverse("quiz-detail", args=[quiz.slug])).content.decode()
    assert f"Resume attempt {attempt.number}" in page
    assert not Attempt.prepared.exists()
