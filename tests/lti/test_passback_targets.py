"""A score goes only where the learner launched: to the links (and their line items) they opened,
never to another link to the same quiz or practice set, in their course or another one."""

from __future__ import annotations

import dataclasses
import json

import pytest
import responses
from django.test import Client

from grading.models import Attempt
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.responses import response_submit
from lti.models import LinkLaunch, LinkTarget, ScorePassback
from lti.tasks import passback_deliver
from tests.lti.fake_lms import launch_as
from tests.lti.test_passback import first_problem_mastered, stub_token_endpoint

pytestmark = pytest.mark.django_db

COURSE_2 = "course-202"
LINEITEM_1 = "https://lms.example.edu/api/lti/courses/101/line_items/1"
LINEITEM_2 = "https://lms.example.edu/api/lti/courses/101/line_items/2"
LINEITEM_2_ELSEWHERE = "https://lms.example.edu/api/lti/courses/202/line_items/2"
LEARNER = "learner-sub-1"
CLASSMATE = "learner-sub-2"


def launch(platform, *, sub: str, link: str, custom: dict, lineitem: str, context=None):
    """One learner's launch, in a browser of their own; returns the signed-in user."""
    if context is not None:
        platform = dataclasses.replace(platform, context_id=context)
    response = launch_as(
        Client(), platform, sub=sub, resource_link_id=link, custom=custom, lineitem=lineitem
    )
    assert response.status_code == 302, response.content
    return response.wsgi_request.user


def quiz_submitted(user, quiz, capture) -> Attempt:
    attempt = attempt_start(user=user, quiz=quiz)
    for item in quiz.items.select_related("question").all():
        if item.question_id:
            correct = [c.pk for c in item.question.choices.all() if c.is_correct]
            response_submit(attempt=attempt, item=item, choice_ids=correct)
    with capture(execute=True):
        return attempt_submit(attempt=attempt)


def score_posts(lms) -> list[str]:
    return [c.request.url for c in lms.calls if c.request.url.endswith("/scores")]


def deliver_all(lms, platform, client) -> None:
    stub_token_endpoint(lms, platform, client, [])
    for url in (LINEITEM_1, LINEITEM_2, LINEITEM_2_ELSEWHERE):
        lms.add(responses.POST, url + "/scores", status=200, json={})
    for passback in ScorePassback.objects.all():
        passback_deliver(passback_id=passback.pk)


def test_two_links_to_one_quiz_in_one_course_only_the_launched_one_gets_the_score(
    client, platform, quiz, lms, django_capture_on_commit_callbacks
):
    custom = {"softgrade_quiz": quiz.slug}
    # A classmate opens link 1, so it exists with its column; the learner opens link 2 only.
    launch(platform, sub=CLASSMATE, link="link-1", custom=custom, lineitem=LINEITEM_1)
    learner = launch(platform, sub=LEARNER, link="link-2", custom=custom, lineitem=LINEITEM_2)
    link_1 = LinkTarget.objects.get(resource_link__id_on_platform="link-1")
    link_2 = LinkTarget.objects.get(resource_link__id_on_platform="link-2")
    assert link_1.resource_link.context_id == link_2.resource_link.context_id

    attempt = quiz_submitted(learner, quiz, django_capture_on_commit_callbacks)

    passback = ScorePassback.objects.get()
    assert (passback.target, passback.lti_user.sub) == (link_2, LEARNER)
    assert passback.score_given == attempt.score > 0
    deliver_all(lms, platform, client)
    assert score_posts(lms) == [LINEITEM_2 + "/scores"]
    assert json.loads(lms.calls[-1].request.body)["userId"] == LEARNER


def test_two_links_to_one_quiz_in_two_courses_only_the_launched_one_gets_the_score(
    client, platform, quiz, lesson, lms, django_capture_on_commit_callbacks
):
    custom = {"softgrade_quiz": quiz.slug}
    launch(platform, sub=CLASSMATE, link="link-1", custom=custom, lineitem=LINEITEM_1)
    # The learner belongs to both courses (they opened a practice set in the first one), but
    # opened the quiz only through link 2, in the second course.
    launch(
        platform,
        sub=LEARNER,
        link="practice-1",
        custom={"softgrade_practice": lesson.slug},
        lineitem=None,
    )
    learner = launch(
        platform,
        sub=LEARNER,
        link="link-2",
        custom=custom,
        lineitem=LINEITEM_2_ELSEWHERE,
        context=COURSE_2,
    )
    link_1 = LinkTarget.objects.get(resource_link__id_on_platform="link-1")
    link_2 = LinkTarget.objects.get(resource_link__id_on_platform="link-2")
    assert link_1.resource_link.context_id != link_2.resource_link.context_id
    assert link_1.resource_link.context.memberships.filter(user__sub=LEARNER).exists()

    quiz_submitted(learner, quiz, django_capture_on_commit_callbacks)

    assert [p.target for p in ScorePassback.objects.all()] == [link_2]
    deliver_all(lms, platform, client)
    assert score_posts(lms) == [LINEITEM_2_ELSEWHERE + "/scores"]


def test_a_learner_who_launched_both_links_gets_the_score_in_both(
    client, platform, quiz, lms, django_capture_on_commit_callbacks
):
    custom = {"softgrade_quiz": quiz.slug}
    launch(platform, sub=LEARNER, link="link-1", custom=custom, lineitem=LINEITEM_1)
    learner = launch(platform, sub=LEARNER, link="link-2", custom=custom, lineitem=LINEITEM_2)

    quiz_submitted(learner, quiz, django_capture_on_commit_callbacks)

    deliver_all(lms, platform, client)
    assert sorted(score_posts(lms)) == [LINEITEM_1 + "/scores", LINEITEM_2 + "/scores"]


def test_mastery_goes_only_to_the_practice_link_the_learner_launched(
    client, platform, lesson, lms, django_capture_on_commit_callbacks
):
    custom = {"softgrade_practice": lesson.slug, "softgrade_mastery_passback": "true"}
    launch(platform, sub=CLASSMATE, link="link-1", custom=custom, lineitem=LINEITEM_1)
    learner = launch(platform, sub=LEARNER, link="link-2", custom=custom, lineitem=LINEITEM_2)
    first_problem_mastered(learner, lesson, django_capture_on_commit_callbacks)

    passback = ScorePassback.objects.get()
    assert passback.target.resource_link.id_on_platform == "link-2"
    deliver_all(lms, platform, client)
    assert score_posts(lms) == [LINEITEM_2 + "/scores"]


def test_each_launch_is_recorded_once_per_learner_and_link(platform, quiz):
    custom = {"softgrade_quiz": quiz.slug}
    learner = launch(platform, sub=LEARNER, link="link-2", custom=custom, lineitem=LINEITEM_2)
    first = LinkLaunch.objects.get()
    again = launch(platform, sub=LEARNER, link="link-2", custom=custom, lineitem=LINEITEM_2)

    assert again.pk == learner.pk
    row = LinkLaunch.objects.get()
    assert (row.pk, row.user, row.lti_user.sub) == (first.pk, learner, LEARNER)
    assert row.target.resource_link.id_on_platform == "link-2"
    assert row.first_launched_at == first.first_launched_at
    assert row.last_launched_at >= first.last_launched_at
