"""Every read that shows attempts closes an overdue one first (grading/services/overdue.py), so
no page, export or API answer shows an attempt whose time ran out as open, with no worker
running: the learner's pages, /teach/, the gradebook CSV, the attempts and grades APIs."""

from __future__ import annotations

import csv
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from courses.models import Choice, Quiz
from grading.models import Attempt, Regrade, Variant
from grading.regrades import quiz_item_regrade
from grading.services.attempts import attempt_start
from grading.services.responses import response_submit
from integrations import services
from integrations.models import Integration
from tests.api.conftest import key_client
from tests.factories import InstructorFactory
from tests.grading.exam_records import Exam, exam_build, instructor_of, true_answer

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam() -> Exam:
    built = exam_build()
    Quiz.objects.filter(pk=built.quiz.pk).update(time_limit_minutes=60)
    built.quiz.refresh_from_db()
    return built


def left_open(exam: Exam, user, *, handling=Quiz.OverdueHandling.SUBMIT) -> Attempt:
    """The learner started two hours ago, saved the right choice (2 points) and left."""
    Quiz.objects.filter(pk=exam.quiz.pk).update(overdue_handling=handling)
    exam.quiz.refresh_from_db()
    two_hours_ago = timezone.now() - timedelta(hours=2)
    attempt = attempt_start(user=user, quiz=exam.quiz, now=two_hours_ago)
    response_submit(
        attempt=attempt,
        item=exam.question_item,
        choice_ids=[exam.choices["A"].pk],
        now=two_hours_ago + timedelta(minutes=5),
    )
    return attempt


def status_of(attempt: Attempt) -> str:
    return Attempt.objects.get(pk=attempt.pk).status


@pytest.mark.parametrize("page", ["home", "history", "quiz-detail"])
def test_the_learner_pages_close_an_overdue_attempt_first(exam, learner, learner_client, page):
    attempt = left_open(exam, learner)
    args = [exam.quiz.slug] if page == "quiz-detail" else []
    body = learner_client.get(reverse(page, args=args)).content.decode()
    assert status_of(attempt) == Attempt.Status.SUBMITTED
    assert "In progress" not in body
    assert f'href="{reverse("attempt-take", args=[attempt.pk])}"' not in body


def test_the_quiz_page_says_what_happens_when_time_runs_out(exam, learner_client):
    body = learner_client.get(reverse("quiz-detail", args=[exam.quiz.slug])).content.decode()
    assert (
        "<dd data-overdue-rule>If you have not submitted, the answers you saved are submitted.</dd>"
        in body
    )


def test_the_learner_results_say_it_was_submitted_automatically(exam, learner, learner_client):
    attempt = left_open(exam, learner)
    body = learner_client.get(reverse("attempt-results", args=[attempt.pk])).content.decode()
    assert "Submitted automatically when time ran out at" in body
    assert 'id="score"><strong>2</strong> of 5 points' in body


def test_the_learner_results_say_an_unsubmitted_attempt_has_no_score(exam, learner, learner_client):
    attempt = left_open(exam, learner, handling=Quiz.OverdueHandling.NO_SCORE)
    body = learner_client.get(reverse("attempt-results", args=[attempt.pk])).content.decode()
    assert status_of(attempt) == Attempt.Status.NEVER_SUBMITTED
    assert "Never submitted: time ran out at" in body
    assert 'id="score"' not in body
    history = learner_client.get(reverse("history")).content.decode()
    assert "Never submitted (time ran out)" in history
    assert "No score" in history


def test_the_results_grid_and_the_gradebook_close_an_overdue_attempt_first(client, exam, learner):
    attempt = left_open(exam, learner)
    client.force_login(instructor_of(exam))
    grid = client.get(reverse("teaching:quiz-results", args=[exam.quiz.slug]))
    assert status_of(attempt) == Attempt.Status.SUBMITTED
    assert "Submitted, time ran out" in grid.content.decode()

    other = left_open(exam, type(learner).objects.create(username="late-too"))
    export = client.get(reverse("teaching:quiz-gradebook", args=[exam.quiz.slug]))
    rows = list(csv.DictReader(b"".join(export.streaming_content).decode().splitlines()))
    assert status_of(other) == Attempt.Status.SUBMITTED
    assert sorted(row["score_points"] for row in rows) == ["2.0", "2.0"]


def test_the_grid_shows_no_score_for_an_attempt_never_submitted(client, exam, learner):
    attempt = left_open(exam, learner, handling=Quiz.OverdueHandling.NO_SCORE)
    client.force_login(instructor_of(exam))
    grid = client.get(reverse("teaching:quiz-results", args=[exam.quiz.slug]) + "?attempts=all")
    assert status_of(attempt) == Attempt.Status.NEVER_SUBMITTED
    (cell,) = re.findall(r"<td data-score>(.*?)</td>", grid.content.decode())
    assert re.sub(r"<[^>]+>", "", cell).startswith("No score:")
    best = client.get(reverse("teaching:quiz-results", args=[exam.quiz.slug])).content.decode()
    assert "No submitted attempt: never submitted when time ran out" in best
    assert "one in progress" not in best
    export = client.get(reverse("teaching:quiz-gradebook", args=[exam.quiz.slug]))
    (row,) = csv.DictReader(b"".join(export.streaming_content).decode().splitlines())
    assert row["score_points"] == ""


def test_the_attempt_review_closes_an_overdue_attempt_first(client, exam, learner):
    attempt = left_open(exam, learner)
    client.force_login(instructor_of(exam))
    body = client.get(reverse("teaching:attempt", args=[attempt.pk])).content.decode()
    assert status_of(attempt) == Attempt.Status.SUBMITTED
    assert "submitted automatically when time ran out" in body


def test_the_override_page_closes_an_overdue_attempt_so_it_can_be_overridden(client, exam, learner):
    attempt = left_open(exam, learner)
    client.force_login(instructor_of(exam))
    url = reverse("teaching:item-override", args=[attempt.pk, exam.question_item.pk])
    body = client.get(url).content.decode()
    assert status_of(attempt) == Attempt.Status.SUBMITTED
    assert "An attempt in progress cannot be overridden" not in body


@pytest.mark.parametrize(
    ("handling", "submitted"),
    [(Quiz.OverdueHandling.SUBMIT, "1"), (Quiz.OverdueHandling.NO_SCORE, "0")],
)
def test_the_course_page_closes_the_course_overdue_attempts_first(
    client, exam, learner, handling, submitted
):
    attempt = left_open(exam, learner, handling=handling)
    client.force_login(instructor_of(exam))
    page = client.get(reverse("teaching:course", args=[exam.quiz.lesson.course.slug]))
    assert status_of(attempt) != Attempt.Status.IN_PROGRESS
    body = page.content.decode()
    assert '<td data-count="attempts">1</td>' in body
    assert f'<td data-count="submitted">{submitted}</td>' in body
    assert '<td data-count="in-progress">0</td>' in body


@pytest.mark.parametrize("page", ["statistics", "learner profile"])
def test_the_statistics_and_the_learner_profile_close_overdue_attempts_first(
    client, exam, learner, page
):
    attempt = left_open(exam, learner)
    client.force_login(instructor_of(exam))
    if page == "statistics":
        url = reverse("teaching:quiz-statistics", args=[exam.quiz.slug])
    else:
        course = exam.quiz.lesson.course
        url = reverse("teaching:learner-profile", args=[course.slug, learner.pk])
    assert client.get(url).status_code == 200
    assert status_of(attempt) == Attempt.Status.SUBMITTED


def _key(exam: Exam):
    """An API key for the exam's course and a learner its integration provisioned."""
    integration = Integration.objects.create(name="Campus LMS")
    _, token = services.api_key_create(
        integration=integration, name="sync", courses=[exam.quiz.lesson.course]
    )
    learner = services.learner_provision(integration=integration, external_id="stud-1", name="Ada")[
        0
    ].user
    return key_client(token), learner


def test_the_attempts_api_lists_an_overdue_attempt_closed(exam):
    api, learner = _key(exam)
    attempt = left_open(exam, learner)
    (row,) = api.get("/api/v1/attempts/").json()["results"]
    assert (row["id"], row["status"], row["late"], row["score"]) == (
        attempt.pk,
        "submitted",
        True,
        2.0,
    )


def test_the_grades_api_gives_the_score_of_an_overdue_attempt(exam):
    api, learner = _key(exam)
    left_open(exam, learner)
    (row,) = api.get("/api/v1/grades/").json()["results"]
    assert (row["score"], row["submitted_attempts"]) == (2.0, 1)


def test_the_apis_give_no_score_for_an_attempt_never_submitted(exam):
    api, learner = _key(exam)
    left_open(exam, learner, handling=Quiz.OverdueHandling.NO_SCORE)
    (grade,) = api.get("/api/v1/grades/").json()["results"]
    assert (grade["score"], grade["attempts"], grade["submitted_attempts"]) == (None, 1, 0)
    (row,) = api.get("/api/v1/attempts/").json()["results"]
    assert (row["status"], row["score"]) == ("never_submitted", None)


def test_in_the_grace_period_the_attempt_page_leads_to_submitting(exam, learner, learner_client):
    Quiz.objects.filter(pk=exam.quiz.pk).update(grace_minutes=90)
    attempt = left_open(exam, learner)
    take = learner_client.get(reverse("attempt-take", args=[attempt.pk]), follow=True)
    assert take.redirect_chain == [(reverse("attempt-submit", args=[attempt.pk]), 302)]
    assert "Time is up: answers are no longer saved" in take.content.decode()
    learner_client.post(reverse("attempt-submit", args=[attempt.pk]))
    submitted = Attempt.objects.get(pk=attempt.pk)
    assert (submitted.status, submitted.late, submitted.score) == (
        Attempt.Status.SUBMITTED,
        False,
        2.0,
    )


def test_the_statistics_api_closes_overdue_attempts_first(exam):
    api, learner = _key(exam)
    attempt = left_open(exam, learner)
    assert api.get(f"/api/v1/quizzes/{exam.quiz.slug}/statistics/").status_code == 200
    assert status_of(attempt) == Attempt.Status.SUBMITTED


# --- the regrade, the response analysis, the problem pages, the admin ---------------------------


def _a_made_wrong(exam: Exam) -> None:
    """An author marks choice A wrong in the admin: a regrade as the item stands takes the
    overdue attempt's 2 points away."""
    Choice.objects.filter(pk=exam.choices["A"].pk).update(
        is_correct=False, misconception=exam.choices["B"].misconception
    )


def test_the_regrade_preview_closes_an_overdue_attempt_and_counts_its_loss(client, exam, learner):
    attempt = left_open(exam, learner)
    _a_made_wrong(exam)
    client.force_login(instructor_of(exam))
    body = client.get(reverse("teaching:item-regrade", args=[exam.question_item.pk])).content
    assert status_of(attempt) == Attempt.Status.SUBMITTED
    body = body.decode()
    assert '<dd data-count="lose">1</dd>' in body
    row = body.split(f'<tr data-attempt="{attempt.pk}"', 1)[1].split("</tr>", 1)[0]
    assert "Submitted" in row
    assert "loses 2" in row


def test_the_regrade_apply_closes_an_overdue_attempt_first(
    client, exam, learner, hook_calls, django_capture_on_commit_callbacks
):
    attempt = left_open(exam, learner)
    _a_made_wrong(exam)
    instructor = instructor_of(exam)
    # A preview made while the attempt was still open: the apply finds it closed, so the
    # regrade is no longer the one previewed.
    earlier = quiz_item_regrade(item=exam.question_item, by=instructor, apply=False)
    client.force_login(instructor)
    url = reverse("teaching:item-regrade", args=[exam.question_item.pk])
    hook_calls.clear()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(url, {"digest": earlier.digest})
    assert status_of(attempt) == Attempt.Status.SUBMITTED
    assert not Regrade.objects.exists()
    assert hook_calls == [attempt.pk]  # the close passed the score back; no regrade did
    page = client.get(url).content.decode()
    assert "changed since this preview, so it was not applied" in page


def test_the_response_analysis_closes_an_overdue_attempt_and_counts_it(client, exam, learner):
    attempt = left_open(exam, learner)
    client.force_login(instructor_of(exam))
    url = reverse("teaching:item-responses", args=[exam.quiz.slug, exam.question_item.pk])
    body = client.get(url).content.decode()
    assert status_of(attempt) == Attempt.Status.SUBMITTED
    assert "Every response in 1 submitted attempt:" in body


def test_the_facility_by_parameter_closes_an_overdue_attempt_and_counts_its_variant(
    client, exam, learner
):
    attempt = left_open(exam, learner)
    variant = Variant.objects.get(attempt=attempt, quiz_item=exam.problem_item)
    response_submit(
        attempt=attempt,
        item=exam.problem_item,
        text=repr(true_answer(variant)),
        now=timezone.now() - timedelta(hours=2) + timedelta(minutes=6),
    )
    client.force_login(instructor_of(exam))
    course = exam.quiz.lesson.course
    url = reverse("teaching:problem-parameters", args=[course.slug, exam.problem.slug])
    body = client.get(url, {"source": "quizzes"}).content.decode()
    assert status_of(attempt) == Attempt.Status.SUBMITTED
    assert "1 variant answered by 1 learner: facility 1.00, 1 with full marks." in body


def test_the_new_misconceptions_page_closes_overdue_attempts_first(client, exam, learner):
    attempt = left_open(exam, learner)
    client.force_login(instructor_of(exam))
    course = exam.quiz.lesson.course
    url = reverse("teaching:problem-misconceptions", args=[course.slug, exam.problem.slug])
    assert client.get(url).status_code == 200
    assert status_of(attempt) == Attempt.Status.SUBMITTED


@pytest.mark.parametrize("page", ["list", "attempt"])
def test_the_admin_closes_an_overdue_attempt_before_showing_it(client, exam, learner, page):
    attempt = left_open(exam, learner)
    client.force_login(InstructorFactory())
    if page == "list":
        listing = client.get(
            reverse("admin:grading_attempt_changelist"), {"status__exact": "submitted"}
        )
        assert list(listing.context["cl"].result_list) == [attempt]
    else:
        shown = client.get(reverse("admin:grading_attempt_change", args=[attempt.pk]))
        assert shown.context["original"].status == Attempt.Status.SUBMITTED
    assert status_of(attempt) == Attempt.Status.SUBMITTED
