"""Every learner surface of one attempt, checked against grading.policy.

Used by tests/grading/test_policy_surfaces.py (pages and API) and tests/lti/test_policy_pages.py
(the pages an LMS launch lands a learner on). Each combination builds a quiz with one question
and one problem, answers the problem wrongly through the API while the attempt is in progress
(so its verdict is the API's answer response) and the question rightly, and then reads every
surface and checks that each marker is present exactly when the policy shows what it stands for.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import timedelta

from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from courses.models import Choice, Quiz, QuizItem
from grading import policy
from grading.accommodations import answers_release_at
from grading.models import Attempt, Variant
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
)
from tests.grading.test_services import answer_of

CHOICE_FEEDBACK = "Right: the variances multiply, summed over d_k terms."
EXPLANATION = "Each of the d_k products has variance one, and they are independent."
# Numbers that appear nowhere else on a page, so the answer cannot hide among them.
GIVENS = {"d_k": 1234, "sigma_q": 1.7, "sigma_k": 2.3}

VALID_SETTINGS = [
    (mode, feedback)
    for mode, feedback in itertools.product(Quiz.Mode.values, Quiz.Feedback.values)
    # The database refuses an exam with immediate feedback.
    if not (mode == Quiz.Mode.EXAM and feedback == Quiz.Feedback.IMMEDIATELY)
]
# An attempt in progress after its quiz closed does not exist: its deadline is the close, and
# every surface closes it first.
STATES = [
    ("in_progress", "before close"),
    ("submitted", "before close"),
    ("submitted", "after close"),
]
COMBINATIONS = [
    (mode, feedback, release, status, close)
    for (mode, feedback), release, (status, close) in itertools.product(
        VALID_SETTINGS, Quiz.AnswerRelease.values, STATES
    )
]


@dataclass
class Built:
    attempt: Attempt
    quiz: Quiz
    problem_item: QuizItem
    question_item: QuizItem
    right_choice: Choice
    variant: Variant
    answer_response: dict  # the API's body for the answer sent while in progress


def session_client(user) -> APIClient:
    """A browser-like API client signed in as the learner, sending the CSRF token."""
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(user)
    client.get(reverse("login"))
    client.credentials(HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value)
    return client


def make_quiz(*, mode, feedback, release) -> Quiz:
    """A quiz under these settings with one question and one problem, closing in two hours."""
    quiz = QuizFactory(
        mode=mode,
        show_feedback=feedback,
        release_answers=release,
        closes_at=timezone.now() + timedelta(hours=2),
    )
    question = QuestionFactory(lesson=quiz.lesson, explanation=EXPLANATION)
    ChoiceFactory(question=question, text="$d_k$", feedback=CHOICE_FEEDBACK, order=0)
    ChoiceFactory(
        question=question,
        text="$\\sqrt{d_k}$",
        is_correct=False,
        misconception=MisconceptionFactory(lesson=quiz.lesson),
        feedback="That is the standard deviation.",
        order=1,
    )
    QuizItemFactory(quiz=quiz, question=question, order=0)
    QuizItemFactory(quiz=quiz, question=None, problem=ProblemFactory(lesson=quiz.lesson), order=1)
    return quiz


def build(*, user, mode, feedback, release, status, close) -> Built:
    quiz = make_quiz(mode=mode, feedback=feedback, release=release)
    return take(user=user, quiz=quiz, status=status, close=close)


def take(*, user, quiz: Quiz, status: str, close: str) -> Built:
    """The learner's attempt at a make_quiz quiz, answered, then submitted and closed as asked."""
    now = timezone.now()
    question_item = quiz.items.get(question__isnull=False)
    problem_item = quiz.items.get(problem__isnull=False)
    right = question_item.question.choices.get(is_correct=True)
    attempt = attempt_start(user=user, quiz=quiz)
    Variant.objects.filter(attempt=attempt, quiz_item=problem_item).update(givens=GIVENS)
    variant = Variant.objects.get(attempt=attempt, quiz_item=problem_item)
    answered = session_client(user).post(
        f"/api/v1/attempts/{attempt.pk}/items/{problem_item.pk}/answers/",
        {"text": "0"},
        format="json",
    )
    assert answered.status_code == 201, answered.content
    response_submit(attempt=attempt, item=question_item, choice_ids=[right.pk])
    if status == policy.SUBMITTED:
        attempt_submit(attempt=attempt)
    if close == "after close":
        Quiz.objects.filter(pk=quiz.pk).update(closes_at=now - timedelta(minutes=1))
    attempt.refresh_from_db()
    quiz.refresh_from_db()
    return Built(attempt, quiz, problem_item, question_item, right, variant, answered.json())


def expected(built: Built) -> policy.Visibility:
    return policy.learner_visibility(
        quiz=built.quiz,
        attempt_status=built.attempt.status,
        now=timezone.now(),
        answers_release_at=answers_release_at(built.quiz),
    )


def _page(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def check_results_or_take_page(client, built: Built, shown: policy.Visibility) -> None:
    """The results page of a submitted attempt, the attempt's own page while in progress."""
    attempt = built.attempt
    if attempt.status == policy.SUBMITTED:
        html = _page(client, reverse("attempt-results", kwargs={"pk": attempt.pk}))
        assert ('id="score"' in html) is shown.total_score
        assert ("data-item-score" in html) is shown.item_scores
    else:
        html = _page(client, reverse("attempt-take", kwargs={"pk": attempt.pk}))
    assert ("verdict-incorrect" in html) is shown.verdicts
    assert (CHOICE_FEEDBACK in html) is shown.feedback
    assert (answer_of(built.variant) in html) is shown.correct_answers
    assert ('badge-good">Correct answer' in html) is shown.correct_answers
    assert (EXPLANATION in html) is shown.explanations


def check_attempt_lists(client, built: Built, shown: policy.Visibility) -> None:
    """History and the quiz page list the attempt with its score exactly when it is shown."""
    for url in (reverse("history"), reverse("quiz-detail", kwargs={"slug": built.quiz.slug})):
        html = _page(client, url)
        assert ("data-score" in html) is shown.total_score, url
        hidden_note = "Not shown for this quiz" in html
        assert hidden_note is (built.attempt.status == policy.SUBMITTED and not shown.total_score)


def check_home(client, built: Built, shown: policy.Visibility) -> None:
    """The home page's best score (over submitted attempts) follows the policy."""
    if built.attempt.status == policy.SUBMITTED:
        assert ("data-score" in _page(client, reverse("home"))) is shown.total_score


def check_pages(client, built: Built) -> None:
    shown = expected(built)
    check_results_or_take_page(client, built, shown)
    check_attempt_lists(client, built, shown)
    check_home(client, built, shown)


def check_api(client: APIClient, built: Built) -> None:
    attempt = built.attempt
    shown = expected(built)
    in_progress = policy.learner_visibility(
        quiz=built.quiz,
        attempt_status=policy.IN_PROGRESS,
        now=timezone.now(),
        answers_release_at=answers_release_at(built.quiz),
    )
    # The answer sent while the attempt was in progress.
    answer = built.answer_response
    assert (answer["status"] == "incorrect") is in_progress.verdicts
    assert (answer["status"] == "recorded") is (not in_progress.verdicts)
    assert (answer["score"] is not None) is in_progress.item_scores
    assert (answer["feedback"] is not None) is in_progress.feedback
    assert (answer["detail"] is not None) is in_progress.feedback

    base = f"/api/v1/attempts/{attempt.pk}/"
    one = client.get(base).json()
    assert (one["score"] is not None) is shown.total_score
    (listed,) = [row for row in client.get("/api/v1/attempts/").json()["results"]]
    assert (listed["score"] is not None) is shown.total_score

    items = {item["id"]: item for item in client.get(f"{base}items/").json()}
    for item_id, status in (
        (built.problem_item.pk, "incorrect"),
        (built.question_item.pk, "correct"),
    ):
        saved = items[item_id]["saved"]
        assert saved["status"] == (status if shown.verdicts else "recorded")
        assert (saved["score"] is not None) is shown.item_scores
        assert (saved["feedback"] is not None) is shown.feedback

    result = client.get(f"{base}result/").json()
    assert (result["attempt"]["score"] is not None) is shown.total_score
    assert result["feedback_released"] is shown.verdicts
    assert result["answers_released"] is shown.correct_answers
    by_id = {item["id"]: item for item in result["items"]}
    problem, question = by_id[built.problem_item.pk], by_id[built.question_item.pk]
    assert problem["status"] == ("incorrect" if shown.verdicts else "recorded")
    assert question["status"] == ("correct" if shown.verdicts else "recorded")
    for item in (problem, question):
        assert (item["points_earned"] is not None) is shown.item_scores
        assert (item["feedback"] is not None) is shown.feedback
    assert question["feedback"] == (CHOICE_FEEDBACK if shown.feedback else None)
    correct = answer_of(built.variant)
    assert problem["correct_answer"] == (correct if shown.correct_answers else None)
    assert question["correct_choices"] == (
        [built.right_choice.pk] if shown.correct_answers else None
    )
    assert question["explanation"] == (EXPLANATION if shown.explanations else None)
