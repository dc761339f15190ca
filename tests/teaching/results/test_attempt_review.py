"""One attempt on the instructor pages: as its learner sees it, and, marked as the staff view,
every try with its verdict and misconception and the correct answers, whatever the quiz shows
the learner (grading.policy.staff_visibility). The learner's own pages stay as they were."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from courses.models import Quiz
from grading.models import Variant
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.responses import response_submit
from teaching.models import CourseRole
from tests.factories import UserFactory
from tests.grading.exam_records import sit
from tests.grading.test_ordering import (
    attempt_in_a_new_order,
    quiz_of_questions,
    results_order,
    stored_order,
    take_order,
)
from tests.grading.test_services import answer_of

pytestmark = pytest.mark.django_db


def staff_page(client, attempt) -> str:
    response = client.get(reverse("teaching:attempt", args=[attempt.pk]))
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def withheld(exam):
    """The exam shows its learners nothing: no verdict, no score, no answers."""
    Quiz.objects.filter(pk=exam.quiz.pk).update(show_feedback=Quiz.Feedback.NEVER)
    exam.quiz.refresh_from_db()
    return exam


def test_staff_see_every_try_the_misconception_and_the_answers_the_learner_does_not(
    client, withheld, people
):
    exam = withheld
    attempt = attempt_start(user=people.learner, quiz=exam.quiz)
    variant = Variant.objects.get(attempt=attempt, quiz_item=exam.problem_item)
    response_submit(attempt=attempt, item=exam.problem_item, text="not a number")  # invalid
    response_submit(attempt=attempt, item=exam.problem_item, text="12345")
    wrong = exam.choices["B"]
    response_submit(attempt=attempt, item=exam.question_item, choice_ids=[wrong.pk])
    attempt_submit(attempt=attempt)

    client.force_login(people.assistant)
    page = staff_page(client, attempt)
    assert "Verdicts and feedback per item: <strong>not shown</strong>" in page
    assert "The score: <strong>not shown</strong>" in page
    assert "No result: this quiz shows none." in page
    # Every try, the invalid one too, with its verdict; the counting one marked.
    assert "<code>not a number</code>" in page
    assert "<code>12345</code>" in page
    assert page.count('<span class="badge badge-good">counts</span>') == 2
    assert '<span class="meta">free</span>' in page
    # The wrong choice's misconception, by title and code.
    assert f"{wrong.misconception.title} <code>{wrong.misconception.code}</code>" in page
    # The answers, marked as not shown to the learner.
    assert f"Correct answer: <code>{answer_of(variant)}</code>" in page
    assert '<span class="badge badge-good">Correct answer</span>' in page
    assert "not shown to the learner" in page
    assert "0 of 5 points" in page

    # The learner's own results page shows none of it (grading.policy for learners).
    client.force_login(people.learner)
    own = client.get(reverse("attempt-results", args=[attempt.pk])).content.decode()
    # As a number of its own, outside the quiz's title: the factory names a quiz by its id
    # (PostgreSQL's ids grow across the suite, "Quiz 721"), which may hold the answer's digits.
    answer = re.escape(answer_of(variant))
    assert not re.search(rf"(?<![\w.]){answer}(?![\w.])", own.replace(exam.quiz.title, ""))
    assert "Correct answer" not in own
    assert wrong.misconception.title not in own
    assert "12345" not in own  # "never" shows no item at all


def test_the_learner_s_view_is_shown_as_they_see_it(client, exam, people):
    """After submission this exam shows verdicts and answers: the staff page shows the learner's
    verdict panel and no "not shown" marks."""
    attempt = sit(exam, people.learner, choice="A", factor=1.05)
    client.force_login(people.instructor)
    page = staff_page(client, attempt)
    assert "Verdicts and feedback per item: <strong>shown</strong>" in page
    assert 'class="verdict verdict-correct"' in page  # the question, as the learner reads it
    assert 'class="verdict verdict-incorrect"' in page  # the problem
    assert "not shown to the learner" not in page
    assert "2 of 5 points" in page
    assert '<span class="badge">Learner\'s choice</span>' in page


def test_an_attempt_in_progress_shows_its_saved_answers_graded(client, exam, people):
    attempt = sit(exam, UserFactory(), choice="B", factor=1.0, submit=False)
    client.force_login(people.instructor)
    page = staff_page(client, attempt)
    assert "In progress" in page
    assert "3 of 5 points so far" in page
    assert "That the answer was saved" in page
    assert "<td>Incorrect</td>" in page
    assert "<td>Correct</td>" in page


def test_a_shuffled_attempt_opens_in_the_order_its_learner_saw(client, people):
    """Items and choices in the learner's own order (grading.ordering, the one that orders the
    learner's pages), lettered as the learner read them, each item with its column in the grid."""
    quiz = quiz_of_questions(questions=4, problems=1)
    CourseRole.objects.create(
        course=quiz.lesson.course, user=people.assistant, role=CourseRole.Role.TEACHING_ASSISTANT
    )
    stored = stored_order(quiz)
    # A new order in which some question's third choice is another than its stored third, so the
    # letters below cannot pass on the stored order (the order follows the attempt's id, which
    # differs between databases: not luck, the first of a few learners).
    for _ in range(10):
        attempt, shown = attempt_in_a_new_order(quiz)
        if any(dict(stored)[item].index(choices[2]) != 2 for item, choices in shown if choices):
            break
    else:
        pytest.fail("ten learners in a row saw every question's third choice in its place")
    learner = attempt.user

    client.force_login(learner)
    take = client.get(reverse("attempt-take", args=[attempt.pk])).content.decode()
    assert take_order(take) == shown
    # The learner picks the third choice they see ("C") in every question.
    picked = {item: choices[2] for item, choices in shown if choices}
    for item in quiz.items.all():
        if item.pk in picked:
            response_submit(attempt=attempt, item=item, choice_ids=[picked[item.pk]])
    attempt_submit(attempt=attempt)
    # Lettered by the stored order, some pick would read other than "C".
    assert any(dict(stored)[item].index(choice) != 2 for item, choice in picked.items())

    client.force_login(people.assistant)
    page = staff_page(client, attempt)
    assert results_order(page) == shown
    assert re.findall(r'class="item-heading">Item (\d+)', page) == ["1", "2", "3", "4", "5"]
    sections = re.split(r'<section class="card item" id="item-(\d+)"', page)[1:]
    quiz_numbers = {item: number for number, (item, _) in enumerate(stored, start=1)}
    for number, (item, body) in enumerate(zip(sections[::2], sections[1::2], strict=True), 1):
        moved = re.search(r"<span class=\"meta\" data-quiz-number>item (\d+) in the quiz", body)
        if quiz_numbers[int(item)] == number:
            assert moved is None
        else:
            assert int(moved.group(1)) == quiz_numbers[int(item)]
        if int(item) in picked:
            # The try's answer cell: the letter the learner saw.
            assert "<td>C</td>" in body
