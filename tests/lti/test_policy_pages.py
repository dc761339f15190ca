"""A learner an LMS launches into a quiz lands on softgrade's quiz page, signed in; that page and
the results page it leads to show exactly what grading.policy says, for every combination."""

from __future__ import annotations

import pytest
from django.urls import reverse
from lti_tool.models import LtiUser

from tests.grading import surfaces
from tests.lti.fake_lms import launch_as

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("mode", "feedback", "release", "status", "close"), surfaces.COMBINATIONS)
def test_launched_learner_pages_show_what_the_policy_says(
    client, platform, mode, feedback, release, status, close
):
    quiz = surfaces.make_quiz(mode=mode, feedback=feedback, release=release)
    platform.grant(quiz.lesson.course)
    launched = launch_as(client, platform, custom={"softgrade_quiz": quiz.slug})
    assert launched["Location"] == reverse("quiz-detail", args=[quiz.slug])
    user = LtiUser.objects.get(registration=platform.registration, sub="learner-sub-1").auth_user
    built = surfaces.take(user=user, quiz=quiz, status=status, close=close)
    surfaces.check_pages(client, built)
