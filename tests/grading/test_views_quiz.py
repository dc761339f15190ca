"""Quiz pages: starting and resuming, answering item by item or as a sheet, deadlines, results."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from courses.models import Quiz
from grading.models import Attempt, Response, Variant
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.responses import response_submit
from tests.factories import (
    ChoiceFactory,
    MisconceptionFactory,
    ProblemFactory,
    QuestionFactory,
    QuizFactory,
    QuizItemFactory,
    UserFactory,
)
from tests.grading.test_services import answer_of
from tests.grading.test_views import token_in

pytestmark = pytest.mark.django_db


def start(client, slug: str) -> Attempt:
    response = client.post(reverse("attempt-start", kwargs={"slug": slug}))
    assert response.status_code == 302
    return Attempt.objects.get(pk=int(response.url.strip("/").split("/")[-1]))


def take_url(attempt: Attempt) -> str:
    return reverse("attempt-take", kwargs={"pk": attempt.pk})


def results_url(attempt: Attempt) -> str:
    return reverse("attempt-results", kwargs={"pk": attempt.pk})


def follow(client, response) -> str:
    assert response.status_code == 302
    return client.get(response.url).content.decode()


def sheet_post(client, attempt: Attempt, answers: dict, action: str = "save", token=None):
    page = client.get(take_url(attempt)).content.decode()
    data = {"action": action, "token": token or token_in(page)}
    for item, value in answers.items():
        if item.problem_id:
            data[f"item-{item.pk}-answer"] = value
        else:
            data[f"item-{item.pk}-choice"] = value
    return client.post(reverse("attempt-save", kwargs={"pk": attempt.pk}), data)


# --- starting -----------------------------------------------------------------------------------


def test_quiz_page_describes_the_rules_and_starts_then_resumes(learner_client, shipped_bank):
    url = reverse("quiz-detail", kwargs={"slug": "attention-exam"})
    html = learner_client.get(url).content.decode()
    assert "20 minutes" in html
    assert "0 used of 2" in html
    assert "Start attempt 1" in html
    attempt = start(learner_client, "attention-exam")
    assert "Resume attempt 1" in learner_client.get(url).content.decode()
    assert start(learner_client, "attention-exam").pk == attempt.pk
    assert (
        learner_client.get(reverse("attempt-start", kwargs={"slug": "attention-exam"})).status_code
        == 405
    )


def test_the_attempt_limit_is_enforced_with_a_message(learner_client, learner, shipped_bank):
    exam = Quiz.objects.get(slug="attention-exam")
    for _ in range(exam.attempts_allowed):
        attempt_submit(attempt=attempt_start(user=learner, quiz=exam))
    url = reverse("quiz-detail", kwargs={"slug": exam.slug})
    assert "You have used all 2 attempts" in learner_client.get(url).content.decode()
    response = learner_client.post(reverse("attempt-start", kwargs={"slug": exam.slug}))
    assert "You have used all 2 attempts" in follow(learner_client, response)
    assert Attempt.objects.filter(user=learner).count() == exam.attempts_allowed


def test_a_closed_quiz_cannot_be_started(learner_client, db):
    quiz = QuizFactory(closes_at=timezone.now() - timedelta(days=1))
    QuizItemFactory(quiz=quiz)
    html = learner_client.get(reverse("quiz-detail", kwargs={"slug": quiz.slug})).content.decode()
    assert "This quiz closed at" in html
    response = learner_client.post(reverse("attempt-start", kwargs={"slug": quiz.slug}))
    assert "This quiz closed at" in follow(learner_client, response)
    assert not Attempt.objects.exists()


# --- practice quizzes: feedback per item --------------------------------------------------------


def test_practice_quiz_gives_feedback_per_item_and_counts_tries(learner_client, shipped_bank):
    attempt = start(learner_client, "attention-practice")
    quiz = attempt.quiz
    question_item = quiz.items.filter(question__isnull=False).order_by("order").first()
    wrong = question_item.question.choices.filter(is_correct=False).first()
    page = learner_client.get(take_url(attempt)).content.decode()
    answer_url = reverse("attempt-answer", kwargs={"pk": attempt.pk, "item_pk": question_item.pk})
    response = learner_client.post(answer_url, {"choice": [wrong.pk], "token": token_in(page)})
    assert response.url.endswith(f"#item-{question_item.pk}")
    html = follow(learner_client, response)
    assert "Not correct" in html
    assert wrong.misconception.title in html
    assert "1 of 3 tries used" in html

    problem_item = quiz.items.filter(problem__isnull=False).order_by("order").first()
    variant = Variant.objects.get(attempt=attempt, quiz_item=problem_item)
    answer_url = reverse("attempt-answer", kwargs={"pk": attempt.pk, "item_pk": problem_item.pk})
    html = follow(
        learner_client,
        learner_client.post(answer_url, {"answer": "9^9^9", "token": token_in(html)}),
    )
    assert "We could not read" in html
    assert "0 of 3 tries used" in html
    html = follow(
        learner_client,
        learner_client.post(answer_url, {"answer": answer_of(variant), "token": token_in(html)}),
    )
    assert "Solved." in html
    response = learner_client.post(answer_url, {"answer": "1", "token": token_in(html)})
    assert "already answered this item correctly" in follow(learner_client, response)

    html = follow(
        learner_client, learner_client.post(reverse("attempt-submit", kwargs={"pk": attempt.pk}))
    )
    assert "Your attempt has been submitted." in html
    attempt.refresh_from_db()
    assert attempt.score == problem_item.points
    assert re.search(rf"<strong>{problem_item.points}</strong> of", html)


def test_a_choice_from_another_question_is_refused(learner_client, shipped_bank):
    attempt = start(learner_client, "attention-practice")
    items = list(attempt.quiz.items.filter(question__isnull=False).order_by("order")[:2])
    foreign = items[1].question.choices.first()
    url = reverse("attempt-answer", kwargs={"pk": attempt.pk, "item_pk": items[0].pk})
    html = follow(learner_client, learner_client.post(url, {"choice": [foreign.pk]}))
    assert "That choice is not part of this question" in html
    assert not Response.objects.exists()


# --- exams: save, submit, deadlines -------------------------------------------------------------


def test_exam_saves_answers_without_feedback_then_grades_on_submission(
    learner_client, shipped_bank
):
    attempt = start(learner_client, "attention-exam")
    problem_item = attempt.quiz.items.filter(problem__isnull=False).order_by("order").first()
    question_item = attempt.quiz.items.filter(question__isnull=False).order_by("order").first()
    right = question_item.question.choices.get(is_correct=True)
    variant = Variant.objects.get(attempt=attempt, quiz_item=problem_item)
    html = follow(
        learner_client,
        sheet_post(
            learner_client, attempt, {problem_item: answer_of(variant), question_item: [right.pk]}
        ),
    )
    assert "Saved 2 answers." in html
    assert html.count("<span data-item-state>saved</span>") == 2
    assert f'value="{answer_of(variant)}"' in html  # the saved answer is back in its box
    for word in ("Not correct", "✓", "Misconception", "Correct answer", "Solved"):
        assert word not in html
    assert 'data-seconds-left="' in html

    html = follow(
        learner_client, sheet_post(learner_client, attempt, {problem_item: answer_of(variant)})
    )
    assert "Nothing new to save." in html
    assert Response.objects.filter(attempt=attempt).count() == 2

    html = follow(learner_client, sheet_post(learner_client, attempt, {}, action="submit"))
    assert "Your attempt has been submitted." in html
    attempt.refresh_from_db()
    assert attempt.score == problem_item.points + question_item.points
    assert "Correct answer" in html  # released after submission by this quiz's policy
    assert learner_client.get(take_url(attempt)).url == results_url(attempt)


def test_exam_invalid_input_shows_the_message_by_the_box_and_keeps_the_saved_answer(
    learner_client, shipped_bank
):
    attempt = start(learner_client, "attention-exam")
    item = attempt.quiz.items.filter(problem__isnull=False).order_by("order").first()
    follow(learner_client, sheet_post(learner_client, attempt, {item: "12"}))
    html = follow(learner_client, sheet_post(learner_client, attempt, {item: "9^9^9"}))
    assert "1 answer could not be read and was not saved" in html
    error = re.search(rf'id="item-{item.pk}-error">(.*?)</p>', html, re.S).group(1)
    assert "too large" in error
    assert "your earlier answer <code>12</code> still counts" in error
    assert 'aria-invalid="true"' in html


def test_a_double_click_on_save_records_each_answer_once(learner_client, shipped_bank):
    attempt = start(learner_client, "attention-exam")
    item = attempt.quiz.items.filter(problem__isnull=False).order_by("order").first()
    token = token_in(learner_client.get(take_url(attempt)).content.decode())
    sheet_post(learner_client, attempt, {item: "3"}, token=token)
    sheet_post(learner_client, attempt, {item: "3"}, token=token)
    assert Response.objects.filter(attempt=attempt).count() == 1


def test_time_up_closes_the_attempt_and_shows_the_graded_result(learner_client, shipped_bank):
    attempt = start(learner_client, "attention-exam")
    item = attempt.quiz.items.filter(problem__isnull=False).order_by("order").first()
    variant = Variant.objects.get(attempt=attempt, quiz_item=item)
    follow(learner_client, sheet_post(learner_client, attempt, {item: answer_of(variant)}))
    page = learner_client.get(take_url(attempt)).content.decode()
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    response = learner_client.post(
        reverse("attempt-save", kwargs={"pk": attempt.pk}),
        {"action": "submit", "token": token_in(page), f"item-{item.pk}-answer": "1"},
    )
    assert response.url == results_url(attempt)
    html = learner_client.get(response.url).content.decode()
    assert "Time is up: this answer arrived after the deadline and was not saved" in html
    assert "Your saved answers have been graded." in html
    assert "time ran out" in html
    attempt.refresh_from_db()
    assert attempt.late
    assert attempt.score == item.points
    assert Response.objects.filter(attempt=attempt).count() == 1


def test_opening_an_overdue_attempt_grades_it(learner_client, learner, shipped_bank):
    exam = Quiz.objects.get(slug="attention-exam")
    attempt = attempt_start(user=learner, quiz=exam)
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    response = learner_client.get(take_url(attempt))
    assert response.url == results_url(attempt)
    assert "Time is up" in learner_client.get(response.url).content.decode()
    attempt.refresh_from_db()
    assert attempt.status == Attempt.Status.SUBMITTED
    assert attempt.late


def test_quiz_page_closes_an_overdue_attempt_instead_of_resuming_it(
    learner_client, learner, shipped_bank
):
    exam = Quiz.objects.get(slug="attention-exam")
    attempt = attempt_start(user=learner, quiz=exam)
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    html = learner_client.get(reverse("quiz-detail", kwargs={"slug": exam.slug})).content.decode()
    assert "Resume" not in html
    assert "Start attempt 2" in html
    assert "(time ran out)" in html


# --- policy on the results page -----------------------------------------------------------------


def _quiz_with_one_problem(**policy) -> Quiz:
    quiz = QuizFactory(**policy)
    QuizItemFactory(quiz=quiz, question=None, problem=ProblemFactory(lesson=quiz.lesson))
    return quiz


def test_answers_never_released_are_never_shown(learner_client, learner, db):
    quiz = _quiz_with_one_problem(
        mode=Quiz.Mode.EXAM,
        show_feedback=Quiz.Feedback.AFTER_SUBMISSION,
        release_answers=Quiz.AnswerRelease.NEVER,
    )
    attempt = attempt_start(user=learner, quiz=quiz)
    # Numbers that appear nowhere else on the page, so the answer cannot hide among them.
    Variant.objects.filter(attempt=attempt).update(
        givens={"d_k": 1234, "sigma_q": 1.7, "sigma_k": 2.3}
    )
    variant = Variant.objects.get(attempt=attempt)
    attempt_submit(attempt=attempt)
    html = learner_client.get(results_url(attempt)).content.decode()
    assert "does not show the correct answers" in html
    assert "Not answered." in html
    assert "1234" in html
    assert answer_of(variant) not in html
    assert answer_of(variant)[:4] not in html


def test_feedback_never_shows_neither_the_score_nor_the_items(learner_client, learner, db):
    quiz = _quiz_with_one_problem(
        mode=Quiz.Mode.EXAM,
        show_feedback=Quiz.Feedback.NEVER,
        release_answers=Quiz.AnswerRelease.NEVER,
    )
    attempt = attempt_start(user=learner, quiz=quiz)
    item = quiz.items.get()
    response_submit(attempt=attempt, item=item, text="0")
    attempt_submit(attempt=attempt)
    html = learner_client.get(results_url(attempt)).content.decode()
    assert "shows neither a score nor results per item" in html
    assert 'id="score"' not in html
    assert "Not correct" not in html
    assert "Item 1" not in html


def test_results_of_an_attempt_in_progress_send_back_to_it(learner_client, learner, shipped_bank):
    attempt = attempt_start(user=learner, quiz=Quiz.objects.get(slug="attention-exam"))
    assert learner_client.get(results_url(attempt)).url == take_url(attempt)


# --- authorization, CSRF, query counts ----------------------------------------------------------


def test_another_learners_attempt_is_404_everywhere(learner_client, shipped_bank):
    other = UserFactory()
    attempt = attempt_start(user=other, quiz=Quiz.objects.get(slug="attention-practice"))
    item = attempt.quiz.items.filter(problem__isnull=False).first()
    assert learner_client.get(take_url(attempt)).status_code == 404
    assert learner_client.get(results_url(attempt)).status_code == 404
    for url in (
        reverse("attempt-answer", kwargs={"pk": attempt.pk, "item_pk": item.pk}),
        reverse("attempt-save", kwargs={"pk": attempt.pk}),
        reverse("attempt-submit", kwargs={"pk": attempt.pk}),
    ):
        assert learner_client.post(url, {"answer": "1", "action": "submit"}).status_code == 404
    attempt.refresh_from_db()
    assert attempt.status == Attempt.Status.IN_PROGRESS
    assert not Response.objects.exists()
    page = learner_client.get(take_url(attempt))
    assert "belongs to someone else" in page.content.decode()


def test_an_item_of_another_quiz_is_404(learner_client, shipped_bank):
    attempt = start(learner_client, "attention-practice")
    foreign = Quiz.objects.get(slug="attention-exam").items.first()
    url = reverse("attempt-answer", kwargs={"pk": attempt.pk, "item_pk": foreign.pk})
    assert learner_client.post(url, {"answer": "1"}).status_code == 404


def test_every_form_is_csrf_protected_and_nothing_is_inline(learner, shipped_bank):
    client = Client(enforce_csrf_checks=True)
    client.force_login(learner)
    attempt = attempt_start(user=learner, quiz=Quiz.objects.get(slug="attention-exam"))
    pages = [
        reverse("home"),
        reverse("practice", kwargs={"slug": "dot-variance"}),
        reverse("quiz-detail", kwargs={"slug": "attention-exam"}),
        take_url(attempt),
    ]
    for url in pages:
        html = client.get(url).content.decode()
        # The Content Security Policy blocks inline scripts and styles: pages must not need them.
        assert " style=" not in html
        assert all("src=" in tag for tag in re.findall(r"<script[^>]*>", html))
        forms = re.findall(r"<form[^>]*method=\"post\".*?</form>", html, re.S)
        assert forms, url
        for form in forms:
            assert 'name="csrfmiddlewaretoken"' in form, (url, form[:120])
    refused = client.post(reverse("attempt-submit", kwargs={"pk": attempt.pk}))
    assert refused.status_code == 403
    attempt.refresh_from_db()
    assert attempt.status == Attempt.Status.IN_PROGRESS


def _big_quiz(items: int) -> Quiz:
    quiz = QuizFactory(mode=Quiz.Mode.PRACTICE, tries_per_item=3)
    misconception = MisconceptionFactory(lesson=quiz.lesson)
    for n in range(items):
        if n % 2:
            question = QuestionFactory(lesson=quiz.lesson)
            ChoiceFactory(question=question, is_correct=True)
            ChoiceFactory(question=question, is_correct=False, misconception=misconception)
            QuizItemFactory(quiz=quiz, question=question, order=n)
        else:
            problem = ProblemFactory(lesson=quiz.lesson)
            QuizItemFactory(quiz=quiz, question=None, problem=problem, order=n)
    return quiz


@pytest.mark.parametrize("items", [2, 12])
def test_attempt_pages_query_count_does_not_grow_with_items(
    learner_client, learner, items, django_assert_max_num_queries
):
    quiz = _big_quiz(items)
    attempt = attempt_start(user=learner, quiz=quiz)
    for item in quiz.items.all():
        if item.question_id:
            wrong = item.question.choices.get(is_correct=False)
            response_submit(attempt=attempt, item=item, choice_ids=[wrong.pk])
        else:
            response_submit(attempt=attempt, item=item, text="0")
            response_submit(attempt=attempt, item=item, text="[[")
    with django_assert_max_num_queries(11):
        html = learner_client.get(take_url(attempt)).content.decode()
    # A problem's unreadable answer is said once, by its box; the verdict above is its
    # counted try's (grading/test_views_quiz_rules.py).
    assert html.count("Not correct") == items
    assert html.count("We could not read <code>") == items // 2
    assert html.count("We could not read that answer") == 0
    attempt_submit(attempt=attempt)
    with django_assert_max_num_queries(11):
        html = learner_client.get(results_url(attempt)).content.decode()
    assert html.count('class="card item') == items
    # The first view after the attempt prepares the next one (grading/services/prepared.py):
    # ten statements more (its items, the line-up on the user row, the learner's rules and
    # attempts, the attempt and its variants), whatever the number of items.
    with django_assert_max_num_queries(18):
        learner_client.get(reverse("quiz-detail", kwargs={"slug": quiz.slug}))
    # Every later view finds it prepared: two statements more (it, and the items it fits).
    with django_assert_max_num_queries(10):
        learner_client.get(reverse("quiz-detail", kwargs={"slug": quiz.slug}))


@pytest.mark.parametrize("slug", ["attention-exam", "attention-practice"])
def test_form_fields_name_items_and_choices_by_their_plain_ids(
    learner_client, shipped_bank, settings, slug
):
    """A site that turns on thousands separators must not break the attempt page's forms: an id
    of 1234 is sent back as "1234", never "1,234" (which the sheet would not read)."""
    settings.USE_THOUSAND_SEPARATOR = True
    attempt = start(learner_client, slug)
    html = learner_client.get(take_url(attempt)).content.decode()
    item_ids = set(re.findall(r'id="item-([^"-]+)-heading"', html))
    choice_values = set(re.findall(r'name="(?:item-[^"]+-)?choice" value="([^"]+)"', html))
    assert item_ids == {str(pk) for pk in attempt.quiz.items.values_list("pk", flat=True)}
    assert choice_values
    assert all(value.isdigit() for value in choice_values)
    # The exam's countdown reads its seconds from the page: 3600, not "3,600".
    seconds = re.findall(r'data-seconds-left="([^"]*)"', html)
    assert len(seconds) == (1 if slug == "attention-exam" else 0)
    assert all(value.isdigit() for value in seconds)


def test_a_sheet_saves_choices_whose_ids_run_past_a_thousand(
    learner_client, shipped_bank, settings
):
    settings.USE_THOUSAND_SEPARATOR = True
    quiz = QuizFactory(
        mode=Quiz.Mode.EXAM, slug="big-ids", show_feedback=Quiz.Feedback.AFTER_SUBMISSION
    )
    question = QuestionFactory(lesson=quiz.lesson)
    ChoiceFactory(
        question=question,
        pk=1233,
        text="wrong",
        is_correct=False,
        misconception=MisconceptionFactory(lesson=quiz.lesson),
    )
    right = ChoiceFactory(question=question, pk=1234, text="right", is_correct=True)
    item = QuizItemFactory(quiz=quiz, question=question, pk=1500)
    attempt = start(learner_client, "big-ids")
    html = learner_client.get(take_url(attempt)).content.decode()
    assert f'name="item-{item.pk}-choice" value="{right.pk}"' in html
    follow(learner_client, sheet_post(learner_client, attempt, {item: [right.pk]}))
    assert list(Response.objects.get(attempt=attempt).choices.all()) == [right]
