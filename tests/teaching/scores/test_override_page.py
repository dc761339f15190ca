"""Overriding one item's score from the attempt page: through the audited service, with the
history shown, the LMS told, and every refusal changing nothing.

The exam (tests/grading/exam_records.py): a 2-point question and a 3-point problem. The learner
picked B (wrong) and typed 5 % off (wrong under the 1 % tolerance): 0 of 5.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from grading.models import Attempt, ScoreChange
from tests.grading.exam_records import sit

pytestmark = pytest.mark.django_db


@pytest.fixture
def attempt(exam, people):
    attempt = sit(exam, people.learner, choice="B", factor=1.05)
    assert (attempt.score, attempt.max_score) == (0.0, 5.0)
    return attempt


def override_url(attempt, item) -> str:
    return reverse("teaching:item-override", args=[attempt.pk, item.pk])


def attempt_page(client, attempt) -> str:
    response = client.get(reverse("teaching:attempt", args=[attempt.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_an_instructor_overrides_from_the_attempt_page_and_the_lms_is_told(
    client, exam, people, attempt, hook_calls, django_capture_on_commit_callbacks
):
    client.force_login(people.instructor)
    page = attempt_page(client, attempt)
    # Each item of the submitted attempt has its form, posting to the override page.
    assert page.count('class="stacked-form override-form"') == 2
    assert f'action="{override_url(attempt, exam.question_item)}"' in page
    assert 'max="2"' in page
    assert 'max="3"' in page
    # The form says what an override is, so its meaning survives a change of the item's points.
    assert "An override is points: it keeps them if the item's points change later" in page

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            override_url(attempt, exam.question_item),
            {"score": "1.5", "reason": "B is defensible: the prompt did not say which."},
        )
    assert response.status_code == 302
    assert response["Location"] == (
        reverse("teaching:attempt", args=[attempt.pk]) + f"#item-{exam.question_item.pk}"
    )
    # Audited by the service: who, old → new, why; the attempt is rescored: 1.5 + 0 of 5.
    change = ScoreChange.objects.get()
    assert (change.kind, change.attempt, change.learner, change.quiz_item) == (
        ScoreChange.Kind.OVERRIDE,
        attempt,
        people.learner,
        exam.question_item,
    )
    assert (change.old_score, change.new_score, change.points) == (0.0, 1.5, 2)
    assert (change.old_attempt_score, change.new_attempt_score) == (0.0, 1.5)
    assert change.reason == "B is defensible: the prompt did not say which."
    assert (change.by, change.by_username) == (people.instructor, people.instructor.username)
    assert Attempt.objects.get(pk=attempt.pk).score == 1.5
    assert hook_calls == [attempt.pk]

    # Back on the attempt page: the message, the item's new score, its history.
    page = client.get(response["Location"]).content.decode()
    assert "Score set: 1.50 of 2 points (was 0); the attempt now has 1.50 of 5." in page
    assert "1.50 of 5 points" in page
    assert '<span class="meta" data-item-score>1.50 of 2 points</span>' in page
    assert f'data-score-change="{change.pk}"' in page
    assert "B is defensible: the prompt did not say which." in page
    assert people.instructor.username in page


def test_a_second_override_replaces_the_first_and_the_history_keeps_both(
    client, exam, people, attempt
):
    client.force_login(people.instructor)
    url = override_url(attempt, exam.problem_item)
    client.post(url, {"score": "3", "reason": "Rounding was fine."})
    client.post(url, {"score": "2", "reason": "On appeal: two of the three steps."})
    assert Attempt.objects.get(pk=attempt.pk).score == 2.0  # 0 + 2
    rows = list(
        ScoreChange.objects.order_by("created_at", "id").values_list("old_score", "new_score")
    )
    assert rows == [(0.0, 3.0), (3.0, 2.0)]
    page = client.get(url).content.decode()
    assert '<dd id="points-now">2 of 3 points</dd>' in page
    assert page.index("Rounding was fine.") < page.index("On appeal: two of the three steps.")
    assert 'value="2.0"' in page  # the form starts from the score now


REFUSED = [
    ({"score": "2.5", "reason": "Bonus."}, "The score must be a number from 0 to 2"),
    ({"score": "-1", "reason": "Penalty."}, "The score must be a number from 0 to 2"),
    ({"score": "nan", "reason": "Odd."}, "Enter a number."),
    ({"score": "two", "reason": "Odd."}, "Enter a number."),
    ({"score": "1", "reason": "   "}, "This field is required."),
    ({"score": "1"}, "This field is required."),
    ({"reason": "No score."}, "This field is required."),
    ({"score": "1", "reason": "x" * 2001}, "at most 2000 characters"),
]


@pytest.mark.parametrize(("sent", "message"), REFUSED)
def test_a_refused_override_shows_why_and_changes_nothing(
    client, exam, people, attempt, hook_calls, django_capture_on_commit_callbacks, sent, message
):
    client.force_login(people.instructor)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(override_url(attempt, exam.question_item), sent)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not ScoreChange.objects.exists()
    assert Attempt.objects.get(pk=attempt.pk).score == 0.0
    assert hook_calls == []


def test_an_attempt_in_progress_has_no_form_and_refuses_an_override(client, exam, people):
    attempt = sit(exam, people.learner, choice="A", factor=1.0, submit=False)
    client.force_login(people.instructor)
    page = attempt_page(client, attempt)
    assert "override-form" not in page
    assert "An attempt in progress cannot be overridden" in page
    response = client.post(
        override_url(attempt, exam.question_item), {"score": "0", "reason": "Too early."}
    )
    assert response.status_code == 400
    assert "Only a submitted attempt" in response.content.decode()
    assert not ScoreChange.objects.exists()


def test_an_item_of_another_quiz_is_a_404(client, people, attempt, course_b):
    other = course_b.lessons.get().quizzes.get()
    from tests.factories import QuizItemFactory

    item = QuizItemFactory(quiz=other)
    client.force_login(people.instructor)
    url = override_url(attempt, item)
    assert client.get(url).status_code == 404
    assert client.post(url, {"score": "0", "reason": "x"}).status_code == 404
    assert not ScoreChange.objects.exists()


def test_an_override_without_the_csrf_token_is_refused(exam, people, attempt):
    client = Client(enforce_csrf_checks=True)
    client.force_login(people.instructor)
    response = client.post(
        override_url(attempt, exam.question_item), {"score": "2", "reason": "Forged."}
    )
    assert response.status_code == 403
    assert not ScoreChange.objects.exists()
    assert Attempt.objects.get(pk=attempt.pk).score == 0.0


def test_a_teaching_assistant_sees_the_history_but_no_form(client, exam, people, attempt):
    client.force_login(people.instructor)
    client.post(override_url(attempt, exam.problem_item), {"score": "1", "reason": "Partial."})
    client.force_login(people.assistant)
    page = attempt_page(client, attempt)
    assert "Partial." in page
    assert "override-form" not in page
    assert "Override the score" not in page
    page = client.get(override_url(attempt, exam.problem_item)).content.decode()
    assert "Partial." in page
    assert '<form method="post" class' not in page
    assert "Only the course's instructors change scores" in page
