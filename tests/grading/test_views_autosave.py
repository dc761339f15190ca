"""The exam page's autosave: the sheet's own form sent asking for JSON gets JSON back."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import timezone

from courses.models import QuizItem
from grading.models import Attempt, Response
from tests.grading.test_views import token_in
from tests.grading.test_views_quiz import results_url, start, take_url

pytestmark = pytest.mark.django_db

JSON = {"HTTP_ACCEPT": "application/json"}
# session, learner, attempt; the service: items, choices, responses, variants; BEGIN, UPDATE,
# INSERT responses, INSERT choices, COMMIT (tests/grading/test_services_sheets.py pins those).
# The quiz's item ids are no longer read first: the form's field names give them (was 13).
STATEMENTS_PER_SHEET_SAVE = 12


def autosave(client, attempt: Attempt, answers: dict, token: str, action: str = "save"):
    data = {"action": action, "token": token}
    data.update({f"item-{item.pk}-answer": value for item, value in answers.items()})
    return client.post(reverse("attempt-save", kwargs={"pk": attempt.pk}), data, **JSON)


@pytest.fixture
def exam(learner_client, shipped_bank):
    attempt = start(learner_client, "attention-exam")
    item = attempt.quiz.items.filter(problem__isnull=False).order_by("order").first()
    token = token_in(learner_client.get(take_url(attempt)).content.decode())
    return attempt, item, token


def test_a_save_answers_json_with_a_fresh_token_and_queues_no_message(learner_client, exam):
    attempt, item, token = exam
    response = autosave(learner_client, attempt, {item: "4"}, token)
    assert response.status_code == 200
    body = response.json()
    assert body["code"] == "saved"
    assert body["saved"] == 1
    assert body["unreadable"] == 0
    assert body["token"]
    assert body["token"] != token
    assert not list(get_messages(response.wsgi_request))

    # The next change goes with the fresh token; the same request sent again records nothing.
    for _ in range(2):
        again = autosave(learner_client, attempt, {item: "5"}, body["token"])
        assert again.json()["code"] == "saved"
    assert list(Response.objects.filter(attempt=attempt).values_list("text", flat=True)) == [
        "4",
        "5",
    ]


def test_a_failed_save_sent_again_unchanged_is_recorded_once(learner_client, exam):
    attempt, item, token = exam
    for _ in range(3):
        assert autosave(learner_client, attempt, {item: "4"}, token).json()["saved"] in (0, 1)
    assert Response.objects.filter(attempt=attempt).count() == 1


def test_an_unreadable_answer_is_reported(learner_client, exam):
    attempt, item, token = exam
    body = autosave(learner_client, attempt, {item: "9^9^9"}, token).json()
    assert body["saved"] == 0
    assert body["unreadable"] == 1
    assert "could not be read" in body["message"]


def test_after_the_deadline_the_save_is_refused_with_where_the_result_is(learner_client, exam):
    attempt, item, token = exam
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    response = autosave(learner_client, attempt, {item: "4"}, token)
    assert response.status_code == 409
    assert response.json()["code"] == "attempt_closed"
    assert "Time is up" in response.json()["message"]
    assert response.json()["location"] == results_url(attempt)
    assert not Response.objects.filter(attempt=attempt).exists()
    attempt.refresh_from_db()
    assert attempt.status == Attempt.Status.SUBMITTED
    assert attempt.late


def test_a_browser_form_still_gets_the_redirect(learner_client, exam):
    attempt, item, token = exam
    response = learner_client.post(
        reverse("attempt-save", kwargs={"pk": attempt.pk}),
        {"action": "save", "token": token, f"item-{item.pk}-answer": "4"},
        HTTP_ACCEPT="text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    )
    assert response.status_code == 302
    assert response.url == take_url(attempt)


def test_a_bad_action_is_a_json_error(learner_client, exam):
    attempt, _, token = exam
    response = autosave(learner_client, attempt, {}, token, action="delete")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"


def test_the_exam_page_loads_the_autosave_and_the_health_address(learner_client, exam):
    attempt, _, _ = exam
    html = learner_client.get(take_url(attempt)).content.decode()
    assert 'id="sheet" data-submit-once data-autosave' in html
    assert "js/autosave.js" in html
    assert 'data-health="/health/"' in html


def test_a_script_save_of_a_whole_sheet_costs_the_same_statements_whatever_its_size(
    learner_client, shipped_bank, django_assert_num_queries
):
    """The page's script saves the whole sheet on exam day: the session, the learner, the
    attempt, the quiz's item ids, then the service's reads and its one write."""
    attempt = start(learner_client, "attention-exam")
    token = token_in(learner_client.get(take_url(attempt)).content.decode())
    data = {"action": "save", "token": token}
    for item in attempt.quiz.items.all():
        if item.problem_id:
            data[f"item-{item.pk}-answer"] = "4"
        else:
            data[f"item-{item.pk}-choice"] = str(item.question.choices.first().pk)
    with django_assert_num_queries(STATEMENTS_PER_SHEET_SAVE):
        response = learner_client.post(
            reverse("attempt-save", kwargs={"pk": attempt.pk}), data, **JSON
        )
    assert response.json()["saved"] == attempt.quiz.items.count()


def test_a_field_of_an_item_not_in_the_quiz_is_ignored(learner_client, shipped_bank):
    # A page older than an edit of the quiz: its other answers are saved, that one is not.
    attempt = start(learner_client, "attention-exam")
    token = token_in(learner_client.get(take_url(attempt)).content.decode())
    problem = attempt.quiz.items.filter(problem__isnull=False).first()
    foreign = QuizItem.objects.exclude(quiz=attempt.quiz).first()
    data = {
        "action": "save",
        "token": token,
        f"item-{problem.pk}-answer": "4",
        f"item-{foreign.pk}-answer": "4",
        "item-x-answer": "4",
    }
    response = learner_client.post(reverse("attempt-save", kwargs={"pk": attempt.pk}), data, **JSON)
    assert response.json()["saved"] == 1
    assert list(Response.objects.values_list("quiz_item", flat=True)) == [problem.pk]
