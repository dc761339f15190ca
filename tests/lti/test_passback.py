"""Grade passback (AGS): the full login → launch → attempt → score flow against the test
platform's stubbed token and score endpoints; retries, outages, refusals, resend, line items."""

from __future__ import annotations

import json
from datetime import timedelta
from urllib.parse import parse_qs

import jwt
import pytest
import requests
import responses
from django.contrib.admin.sites import site
from django.core.management import call_command
from django.tasks import default_task_backend
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone

from grading import engine
from grading.models import Attempt, PracticeStreak
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_expire_if_overdue, attempt_submit
from grading.services.practice import practice_answer_submit, practice_variant_new
from grading.services.responses import response_submit
from lti.admin import ScorePassbackAdmin, resend
from lti.models import LineItem, LinkTarget, PassbackOutcome, ScorePassback
from lti.passback_send import retry_delay
from lti.tasks import passback_deliver, score_passback_deliver
from tests.factories import InstructorFactory, UserFactory
from tests.lti.fake_lms import INSTRUCTOR, launch_as

pytestmark = pytest.mark.django_db

LINEITEM_URL = "https://lms.example.edu/api/lti/courses/101/line_items/55"
SCORES_URL = LINEITEM_URL + "/scores"


@pytest.fixture(autouse=True)
def _empty_task_queue():
    default_task_backend.clear()
    yield
    default_task_backend.clear()


def queued_passback_ids() -> list[int]:
    return [
        result.args[0]
        for result in default_task_backend.results
        if result.task.name == score_passback_deliver.name
    ]


def tool_jwks(client) -> dict:
    return client.get(reverse("lti:jwks")).json()


def verify_with_tool_jwks(client, token: str, *, audience: str) -> dict:
    """Verify a JWT softgrade signed, with the key its JWKS publishes under the token's kid."""
    kid = jwt.get_unverified_header(token)["kid"]
    (jwk,) = [key for key in tool_jwks(client)["keys"] if key["kid"] == kid]
    return jwt.decode(token, jwt.PyJWK(jwk), algorithms=["RS256"], audience=audience)


def stub_token_endpoint(lms, platform, client, seen: list) -> None:
    def answer(request):
        form = {k: v[0] for k, v in parse_qs(request.body).items()}
        assert form["grant_type"] == "client_credentials"
        assert form["client_assertion_type"] == (
            "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
        )
        claims = verify_with_tool_jwks(
            client, form["client_assertion"], audience=platform.token_url
        )
        assert claims["iss"] == claims["sub"] == platform.client_id
        assert claims["jti"]
        seen.append(form["scope"])
        return 200, {}, json.dumps({"access_token": "token-abc", "expires_in": 3600})

    lms.add_callback(responses.POST, platform.token_url, callback=answer)


def learner_submits(client, platform, quiz, *, answer_all: bool = True, **claims) -> Attempt:
    """A learner launches, takes the quiz in softgrade and submits; the hook runs at commit."""
    response = launch_as(client, platform, custom={"softgrade_quiz": quiz.slug}, **claims)
    assert response.status_code == 302
    user = response.wsgi_request.user
    attempt = attempt_start(user=user, quiz=quiz)
    if answer_all:
        for item in quiz.items.select_related("question").all():
            if item.question_id:
                correct = [c.pk for c in item.question.choices.all() if c.is_correct]
                response_submit(attempt=attempt, item=item, choice_ids=correct)
    return attempt


def submit(attempt: Attempt, django_capture_on_commit_callbacks) -> Attempt:
    with django_capture_on_commit_callbacks(execute=True):
        return attempt_submit(attempt=attempt)


def submitted(client, platform, quiz, capture) -> Attempt:
    """A learner launched from a link whose line item the LMS named, and submitted."""
    return submit(learner_submits(client, platform, quiz, lineitem=LINEITEM_URL), capture)


def first_problem_mastered(user, lesson, capture) -> None:
    """The learner answers the lesson's first problem right until it is mastered; the hooks run."""
    problem = lesson.problems.order_by("order").first()
    for _ in range(PracticeStreak.MASTERY):
        variant = practice_variant_new(user=user, problem=problem)
        family = engine.get_family(variant.family)
        answer = engine.format_answer(family.solve(variant.givens).answer)
        with capture(execute=True):
            practice_answer_submit(user=user, variant=variant, text=answer)


def test_full_flow_login_launch_attempt_score_lands(
    client, platform, quiz, lms, django_capture_on_commit_callbacks
):
    scopes: list[str] = []
    stub_token_endpoint(lms, platform, client, scopes)
    scores = lms.add(responses.POST, SCORES_URL, status=200, json={})
    attempt = learner_submits(client, platform, quiz, lineitem=LINEITEM_URL)
    attempt = submit(attempt, django_capture_on_commit_callbacks)
    assert attempt.score > 0

    passback = ScorePassback.objects.get()
    assert passback.status == ScorePassback.Status.QUEUED
    assert queued_passback_ids() == [passback.pk]
    assert not lms.calls or all(c.request.url != SCORES_URL for c in lms.calls)

    # The worker runs the queued task.
    score_passback_deliver.call(passback.pk)

    passback.refresh_from_db()
    assert passback.status == ScorePassback.Status.SENT
    assert passback.try_count == 1
    assert scores.call_count == 1
    request = scores.calls[0].request
    assert request.headers["Content-Type"] == "application/vnd.ims.lis.v1.score+json"
    assert request.headers["Authorization"] == "Bearer token-abc"
    body = json.loads(request.body)
    assert body == {
        "userId": "learner-sub-1",
        "scoreGiven": attempt.score,
        "scoreMaximum": attempt.max_score,
        "timestamp": attempt.submitted_at.isoformat(timespec="milliseconds"),
        "activityProgress": "Completed",
        "gradingProgress": "FullyGraded",
    }
    assert scopes == ["https://purl.imsglobal.org/spec/lti-ags/scope/score"]
    assert [o.result for o in passback.outcomes.all()] == [PassbackOutcome.Result.SENT]
    # The launch named the link's column, so softgrade never made one.
    assert LineItem.objects.get().url == LINEITEM_URL
    assert not [c for c in lms.calls if c.request.url.startswith(platform.lineitems_url + "?")]


def test_platform_500_twice_then_200_lands_one_score_and_records_retries(
    client, platform, quiz, lms, django_capture_on_commit_callbacks
):
    stub_token_endpoint(lms, platform, client, [])
    answers = iter([500, 500, 200])
    lms.add_callback(responses.POST, SCORES_URL, callback=lambda request: (next(answers), {}, "{}"))
    attempt = submitted(client, platform, quiz, django_capture_on_commit_callbacks)
    passback = ScorePassback.objects.get()
    now = timezone.now()
    for expected_delay in (timedelta(seconds=30), timedelta(seconds=60)):
        with django_capture_on_commit_callbacks(execute=True):
            passback_deliver(passback_id=passback.pk, now=now)
        passback.refresh_from_db()
        assert passback.status == ScorePassback.Status.QUEUED
        assert passback.next_try_at == now + expected_delay
        # The retry is on the task queue, deferred until the backoff has passed.
        retry = default_task_backend.results[-1]
        assert retry.args == [passback.pk]
        assert retry.task.run_after == now + expected_delay
        now = passback.next_try_at
    passback_deliver(passback_id=passback.pk, now=now)
    passback.refresh_from_db()
    assert passback.status == ScorePassback.Status.SENT
    assert passback.try_count == 3
    assert [(o.result, o.http_status) for o in passback.outcomes.all()] == [
        ("will_retry", 500),
        ("will_retry", 500),
        ("sent", 200),
    ]
    assert len([c for c in lms.calls if c.request.url == SCORES_URL]) == 3
    # A duplicate task after success sends nothing more.
    passback_deliver(passback_id=passback.pk, now=now + timedelta(hours=1))
    assert len([c for c in lms.calls if c.request.url == SCORES_URL]) == 3
    assert attempt.status == Attempt.Status.SUBMITTED


def test_platform_down_for_good_keeps_the_score_queued_and_visible(
    client, platform, quiz, lms, django_capture_on_commit_callbacks
):
    stub_token_endpoint(lms, platform, client, [])
    lms.add(responses.POST, SCORES_URL, body=requests.ConnectionError("connection refused"))
    attempt = submitted(client, platform, quiz, django_capture_on_commit_callbacks)
    passback = ScorePassback.objects.get()
    now = timezone.now()
    for _ in range(12):
        passback_deliver(passback_id=passback.pk, now=now)
        passback.refresh_from_db()
        now = passback.next_try_at
    assert passback.status == ScorePassback.Status.QUEUED
    assert passback.try_count == 12
    assert passback.outcomes.count() == 12
    assert "connection refused" in passback.last_error
    # Backoff doubles, then stays at six hours: the score is retried for as long as it takes.
    assert retry_delay(12) == timedelta(hours=6)
    assert retry_delay(3) == timedelta(minutes=2)
    # The learner's result is untouched and their pages work.
    results = client.get(reverse("attempt-results", args=[attempt.pk]))
    assert results.status_code == 200
    attempt.refresh_from_db()
    assert attempt.status == Attempt.Status.SUBMITTED
    # Instructors see it waiting, with its tries.
    teacher = InstructorFactory()
    client.force_login(teacher)
    page = client.get(reverse("lti:link-instructor", args=[passback.target.pk])).content.decode()
    assert "Queued" in page
    assert ">12<" in page
    admin_page = client.get(reverse("admin:lti_scorepassback_change", args=[passback.pk]))
    assert admin_page.status_code == 200
    assert "connection refused" in admin_page.content.decode()


def test_a_learner_whose_lms_is_unreachable_submits_without_waiting(
    client, platform, quiz, lms, django_capture_on_commit_callbacks
):
    """Submitting never calls the LMS: the hook only writes a row and queues a task."""
    attempt = learner_submits(client, platform, quiz, lineitem=LINEITEM_URL)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("attempt-submit", args=[attempt.pk]))
    assert response.status_code == 302
    assert ScorePassback.objects.get().status == ScorePassback.Status.QUEUED
    assert not [c for c in lms.calls if c.request.method == "POST"]


def test_a_refusal_is_recorded_and_resend_queues_it_again(
    client, platform, quiz, lms, django_capture_on_commit_callbacks
):
    stub_token_endpoint(lms, platform, client, [])
    lms.add(responses.POST, SCORES_URL, status=422, json={"error": "user not in course"})
    submitted(client, platform, quiz, django_capture_on_commit_callbacks)
    passback = ScorePassback.objects.get()
    passback_deliver(passback_id=passback.pk)
    passback.refresh_from_db()
    assert passback.status == ScorePassback.Status.REFUSED
    assert passback.next_try_at is None
    assert passback.outcomes.get().http_status == 422

    lms.replace(responses.POST, SCORES_URL, status=200, json={})
    default_task_backend.clear()
    admin_user = InstructorFactory()
    request = RequestFactory().post("/")
    request.user = admin_user
    request._messages = type("Messages", (), {"add": lambda *a, **k: None})()
    with django_capture_on_commit_callbacks(execute=True):
        resend(
            ScorePassbackAdmin(ScorePassback, site),
            request,
            ScorePassback.objects.filter(pk=passback.pk),
        )
    assert queued_passback_ids() == [passback.pk]
    score_passback_deliver.call(passback.pk)
    passback.refresh_from_db()
    assert passback.status == ScorePassback.Status.SENT
    assert [o.result for o in passback.outcomes.all()] == ["refused", "sent"]


def test_an_expired_token_is_fetched_again(
    client, platform, quiz, lms, django_capture_on_commit_callbacks
):
    scopes: list[str] = []
    stub_token_endpoint(lms, platform, client, scopes)
    answers = iter([401, 200])
    lms.add_callback(responses.POST, SCORES_URL, callback=lambda request: (next(answers), {}, "{}"))
    submitted(client, platform, quiz, django_capture_on_commit_callbacks)
    passback = ScorePassback.objects.get()
    passback_deliver(passback_id=passback.pk)
    passback.refresh_from_db()
    passback_deliver(passback_id=passback.pk, now=passback.next_try_at)
    passback.refresh_from_db()
    assert passback.status == ScorePassback.Status.SENT
    assert len(scopes) == 2  # the 401 dropped the cached token


def test_one_line_item_per_link_made_on_the_lms_when_the_launch_named_none(
    client, platform, quiz, lms, django_capture_on_commit_callbacks
):
    stub_token_endpoint(lms, platform, client, [])
    lms.add(responses.GET, platform.lineitems_url, json=[])
    created = lms.add(
        responses.POST,
        platform.lineitems_url,
        json={"id": LINEITEM_URL, "label": quiz.title, "scoreMaximum": 4},
    )
    lms.add(responses.POST, SCORES_URL, status=200, json={})
    submit(learner_submits(client, platform, quiz), django_capture_on_commit_callbacks)
    client.logout()
    submit(
        learner_submits(client, platform, quiz, sub="learner-sub-2"),
        django_capture_on_commit_callbacks,
    )
    for passback in ScorePassback.objects.order_by("pk"):
        passback_deliver(passback_id=passback.pk)
    assert set(ScorePassback.objects.values_list("status", flat=True)) == {"sent"}
    assert created.call_count == 1
    body = json.loads(created.calls[0].request.body)
    assert body["resourceLinkId"] == "link-1"
    assert body["scoreMaximum"] == float(sum(i.points for i in quiz.items.all()))
    assert body["resourceId"] == f"quiz:{quiz.slug}"
    line_item = LineItem.objects.get()
    assert line_item.created_by_softgrade
    assert line_item.url == LINEITEM_URL


def test_a_line_item_the_lms_already_has_for_the_link_is_reused(
    client, platform, quiz, lms, django_capture_on_commit_callbacks
):
    stub_token_endpoint(lms, platform, client, [])
    lms.add(
        responses.GET,
        platform.lineitems_url,
        json=[
            {"id": LINEITEM_URL, "resourceLinkId": "link-1", "resourceId": f"quiz:{quiz.slug}"},
            {"id": LINEITEM_URL + "9", "resourceLinkId": "other-link"},
        ],
    )
    created = lms.add(responses.POST, platform.lineitems_url, json={"id": "x"})
    lms.add(responses.POST, SCORES_URL, status=200, json={})
    submit(learner_submits(client, platform, quiz), django_capture_on_commit_callbacks)
    passback_deliver(passback_id=ScorePassback.objects.get().pk)
    assert created.call_count == 0
    assert LineItem.objects.get().url == LINEITEM_URL
    assert not LineItem.objects.get().created_by_softgrade


def test_a_newer_score_replaces_one_still_waiting(
    client, platform, quiz, django_capture_on_commit_callbacks
):
    attempt = submit(
        learner_submits(client, platform, quiz, answer_all=False, lineitem=LINEITEM_URL),
        django_capture_on_commit_callbacks,
    )
    assert attempt.score == 0
    second = attempt_start(user=attempt.user, quiz=quiz)
    for item in quiz.items.select_related("question"):
        if item.question_id:
            correct = [c.pk for c in item.question.choices.all() if c.is_correct]
            response_submit(attempt=second, item=item, choice_ids=correct)
    second = submit(second, django_capture_on_commit_callbacks)
    first, newest = ScorePassback.objects.order_by("pk")
    assert first.status == ScorePassback.Status.SUPERSEDED
    assert newest.status == ScorePassback.Status.QUEUED
    assert newest.score_given == second.score > 0
    # The superseded row's task, if it runs, sends nothing.
    assert passback_deliver(passback_id=first.pk).try_count == 0


def test_a_deadline_expiry_passes_the_score_back(
    client, platform, quiz, django_capture_on_commit_callbacks
):
    attempt = learner_submits(client, platform, quiz, lineitem=LINEITEM_URL)
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    attempt.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        assert attempt_expire_if_overdue(attempt=attempt)
    passback = ScorePassback.objects.get()
    assert passback.scored_at == attempt.deadline
    assert passback.attempt_id == attempt.pk


def test_no_passback_for_a_learner_who_never_launched_or_a_course_without_ags(
    client, platform, quiz, django_capture_on_commit_callbacks
):
    launch_as(client, platform, custom={"softgrade_quiz": quiz.slug})
    stranger = UserFactory()
    attempt = attempt_start(user=stranger, quiz=quiz)
    submit(attempt, django_capture_on_commit_callbacks)
    assert not ScorePassback.objects.exists()


def test_practice_mastery_passes_back_when_the_link_asks(
    client, platform, lesson, lms, django_capture_on_commit_callbacks
):
    stub_token_endpoint(lms, platform, client, [])
    scores = lms.add(responses.POST, SCORES_URL, status=200, json={})
    launch_as(
        client,
        platform,
        custom={"softgrade_practice": lesson.slug, "softgrade_mastery_passback": "true"},
        lineitem=LINEITEM_URL,
    )
    user = LinkTarget.objects.get().resource_link.context.memberships.get().user.auth_user
    first_problem_mastered(user, lesson, django_capture_on_commit_callbacks)
    passback = ScorePassback.objects.get()
    assert passback.score_given == 1
    assert passback.score_maximum == lesson.problems.count()
    passback_deliver(passback_id=passback.pk)
    body = json.loads(scores.calls[0].request.body)
    expected = "Completed" if lesson.problems.count() == 1 else "InProgress"
    assert body["activityProgress"] == expected
    assert body["gradingProgress"] == "FullyGraded"


def test_instructor_launch_sees_passbacks_and_outcomes(
    client, platform, quiz, lms, django_capture_on_commit_callbacks
):
    stub_token_endpoint(lms, platform, client, [])
    lms.add(responses.POST, SCORES_URL, status=503)
    submitted(client, platform, quiz, django_capture_on_commit_callbacks)
    passback_deliver(passback_id=ScorePassback.objects.get().pk)
    client.logout()
    response = launch_as(
        client, platform, custom={"softgrade_quiz": quiz.slug}, sub="t", roles=(INSTRUCTOR,)
    )
    # The launch lands on the quiz's results grid, which links the LMS link's own view.
    link_view = reverse("lti:link-instructor", args=[ScorePassback.objects.get().target_id])
    assert f'href="{link_view}"' in client.get(response["Location"]).content.decode()
    page = client.get(link_view).content.decode()
    assert "Failed, will retry (HTTP 503)" in page
    assert "Ada Lovelace" in page


def test_sweep_requeues_passbacks_whose_task_was_lost(
    client, platform, quiz, django_capture_on_commit_callbacks
):
    submitted(client, platform, quiz, django_capture_on_commit_callbacks)
    passback = ScorePassback.objects.get()
    default_task_backend.clear()
    call_command("lti_passback_sweep")
    assert queued_passback_ids() == []  # not overdue yet
    ScorePassback.objects.filter(pk=passback.pk).update(
        next_try_at=timezone.now() - timedelta(hours=1)
    )
    call_command("lti_passback_sweep")
    assert queued_passback_ids() == [passback.pk]


def exploding_hook(**kwargs):
    raise RuntimeError("the LTI hook broke")


def test_a_failing_hook_never_blocks_or_undoes_a_submission(
    platform, quiz, settings, django_capture_on_commit_callbacks, caplog
):
    settings.SOFTGRADE_ATTEMPT_SUBMITTED_HOOKS = ["tests.lti.test_passback.exploding_hook"]
    attempt = attempt_start(user=UserFactory(), quiz=quiz)
    attempt = submit(attempt, django_capture_on_commit_callbacks)
    attempt.refresh_from_db()
    assert attempt.status == Attempt.Status.SUBMITTED
    assert "the LTI hook broke" in caplog.text
