"""Submitting asks first, without the page's script: the attempt page's Submit opens the
confirmation page, which names the items still unanswered and posts the submission (CSRF); the
browser path with the dialog is tests/browser/test_submit_confirm.py."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from courses.models import Quiz
from grading import selectors
from grading.models import Attempt, Variant
from grading.services.attempts import attempt_start
from tests.factories import UserFactory
from tests.grading.test_services import answer_of
from tests.grading.test_views import token_in
from tests.grading.test_views_quiz import follow, results_url, sheet_post, start, take_url

pytestmark = pytest.mark.django_db


def confirm_url(attempt: Attempt) -> str:
    return reverse("attempt-submit", kwargs={"pk": attempt.pk})


def listed(html: str) -> list[str]:
    block = re.search(r'<ul class="unanswered-list">(.*?)</ul>', html, re.S)
    return re.findall(r">(Item \d+)</a>", block.group(1)) if block else []


def numbers(attempt: Attempt) -> dict[int, int]:
    return {row.item.pk: row.number for row in selectors.attempt_sheet(attempt=attempt)}


def test_the_practice_quiz_s_submit_opens_the_confirmation_naming_what_is_unanswered(
    learner_client, shipped_bank
):
    attempt = start(learner_client, "attention-practice")
    page = learner_client.get(take_url(attempt)).content.decode()
    # The page's Submit is a plain request for the confirmation, not the submission.
    form = re.search(r'<form method="get" action="([^"]+)"[^>]*data-confirm-submit', page)
    assert form.group(1) == confirm_url(attempt)

    item = attempt.quiz.items.filter(problem__isnull=False).order_by("order").first()
    variant = Variant.objects.get(attempt=attempt, quiz_item=item)
    answer = reverse("attempt-answer", kwargs={"pk": attempt.pk, "item_pk": item.pk})
    learner_client.post(answer, {"answer": answer_of(variant), "token": token_in(page)})

    html = learner_client.get(confirm_url(attempt)).content.decode()
    count = attempt.quiz.items.count()
    rest = sorted(n for pk, n in numbers(attempt).items() if pk != item.pk)
    assert f"{count - 1} of {count} items have no answer yet" in html
    assert listed(html) == [f"Item {n}" for n in rest]
    attempt.refresh_from_db()
    assert attempt.status == Attempt.Status.IN_PROGRESS  # asking submits nothing

    done = follow(learner_client, learner_client.post(confirm_url(attempt)))
    assert "Your attempt has been submitted." in done
    attempt.refresh_from_db()
    assert attempt.status == Attempt.Status.SUBMITTED


def test_the_exam_sheet_saves_then_asks_and_the_confirmation_submits(learner_client, shipped_bank):
    attempt = start(learner_client, "attention-exam")
    page = learner_client.get(take_url(attempt)).content.decode()
    assert re.search(r'name="action" value="review"[^>]*data-confirm-submit>Submit attempt<', page)
    item = attempt.quiz.items.filter(problem__isnull=False).order_by("order").first()
    variant = Variant.objects.get(attempt=attempt, quiz_item=item)

    response = sheet_post(learner_client, attempt, {item: answer_of(variant)}, action="review")
    assert response.url == confirm_url(attempt)
    html = learner_client.get(response.url).content.decode()
    assert "Saved 1 answer." in html  # saved before asking
    assert f"Item {numbers(attempt)[item.pk]}" not in listed(html)
    assert len(listed(html)) == attempt.quiz.items.count() - 1
    attempt.refresh_from_db()
    assert attempt.status == Attempt.Status.IN_PROGRESS

    follow(learner_client, learner_client.post(confirm_url(attempt)))
    attempt.refresh_from_db()
    assert (attempt.status, attempt.score) == (Attempt.Status.SUBMITTED, item.points)


def test_with_every_item_answered_the_confirmation_says_so(learner_client, learner, db):
    from tests.factories import ChoiceFactory, QuestionFactory, QuizFactory, QuizItemFactory

    quiz = QuizFactory(mode=Quiz.Mode.PRACTICE, tries_per_item=2)
    question = QuestionFactory(lesson=quiz.lesson)
    right = ChoiceFactory(question=question, is_correct=True)
    QuizItemFactory(quiz=quiz, question=question)
    attempt = attempt_start(user=learner, quiz=quiz)
    html = learner_client.get(confirm_url(attempt)).content.decode()
    assert "No item has an answer yet" in html
    assert listed(html) == ["Item 1"]
    page = learner_client.get(take_url(attempt)).content.decode()
    url = reverse("attempt-answer", kwargs={"pk": attempt.pk, "item_pk": quiz.items.get().pk})
    learner_client.post(url, {"choice": [right.pk], "token": token_in(page)})
    html = learner_client.get(confirm_url(attempt)).content.decode()
    assert "Every item has an answer." in html
    assert listed(html) == []


def test_the_confirmation_posts_with_csrf(learner, shipped_bank):
    client = Client(enforce_csrf_checks=True)
    client.force_login(learner)
    attempt = attempt_start(user=learner, quiz=Quiz.objects.get(slug="attention-practice"))
    html = client.get(confirm_url(attempt)).content.decode()
    form = re.search(r'<form method="post" action="(/attempts/[^"]+)".*?</form>', html, re.S)
    assert form.group(1) == confirm_url(attempt)
    assert 'name="csrfmiddlewaretoken"' in form.group(0)
    assert client.post(confirm_url(attempt)).status_code == 403
    attempt.refresh_from_db()
    assert attempt.status == Attempt.Status.IN_PROGRESS


def test_the_confirmation_of_a_closed_or_overdue_attempt_goes_to_its_results(
    learner_client, learner, shipped_bank
):
    attempt = attempt_start(user=learner, quiz=Quiz.objects.get(slug="attention-exam"))
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    response = learner_client.get(confirm_url(attempt))
    assert response.url == results_url(attempt)
    assert "Time is up" in learner_client.get(response.url).content.decode()
    attempt.refresh_from_db()
    assert attempt.status == Attempt.Status.SUBMITTED
    assert learner_client.get(confirm_url(attempt)).url == results_url(attempt)


def test_another_learner_s_confirmation_is_404(learner_client, shipped_bank):
    attempt = attempt_start(user=UserFactory(), quiz=Quiz.objects.get(slug="attention-practice"))
    assert learner_client.get(confirm_url(attempt)).status_code == 404


def test_an_unreadable_answer_goes_back_to_its_box_before_any_confirmation(
    learner_client, shipped_bank
):
    attempt = start(learner_client, "attention-exam")
    item = attempt.quiz.items.filter(problem__isnull=False).order_by("order").first()
    response = sheet_post(learner_client, attempt, {item: "9^9^9"}, action="review")
    assert response.url == take_url(attempt)
    html = learner_client.get(response.url).content.decode()
    assert "1 answer could not be read and was not saved" in html
    assert f'id="item-{item.pk}-error"' in html


def test_the_confirmation_writes_the_exam_s_title_as_math(learner_client, shipped_bank):
    attempt = start(learner_client, "attention-exam")
    html = learner_client.get(confirm_url(attempt)).content.decode()
    title = re.search(r"<title>(.*?)</title>", html, re.S).group(1)
    # The plain-text form of the formula.
    assert "$" not in title
    assert "\\" not in title
    heading = re.search(r'<p class="breadcrumb">(.*?)</p>', html, re.S).group(1)
    assert "$" not in heading
    assert "<math" in heading
