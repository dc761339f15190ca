"""A quiz's penalty for extra tries, computed once (grading.scores) and read by the attempt's
score, the results page, the API, the instructor's results and gradebook, a regrade and an
override alike.

Hand-computed: a practice quiz with 3 tries per item and a penalty of a third. Item 1 is a
3-point question keyed A (B and C wrong), item 2 a 3-point question keyed A too. The learner
answers item 1 B then A (right at the second try: 3 - 1 = 2 points) and item 2 C, B, A (right at
the third try: 3 - 2 = 1 point); the attempt scores 3 of 6.
"""

from __future__ import annotations

import pytest

from courses.models import Question, Quiz
from grading import selectors
from grading.overrides import item_score_override
from grading.regrade_fixes import ChoiceFix, QuestionFix
from grading.regrades import quiz_item_regrade
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.responses import response_submit
from teaching.models import CourseRole
from teaching.results.gradebook import gradebook_lines
from teaching.results.reads import AttemptRule, quiz_results
from tests.api.conftest import session_client
from tests.factories import (
    ChoiceFactory,
    LessonFactory,
    MisconceptionFactory,
    QuestionFactory,
    QuizFactory,
    QuizItemFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def quiz():
    lesson = LessonFactory()
    quiz = QuizFactory(
        lesson=lesson,
        mode=Quiz.Mode.PRACTICE,
        show_feedback=Quiz.Feedback.IMMEDIATELY,
        tries_per_item=3,
        extra_try_penalty=1 / 3,
    )
    mistaken = MisconceptionFactory(lesson=lesson)
    for order in (1, 2):
        question = QuestionFactory(lesson=lesson, kind=Question.Kind.SINGLE)
        for i, label in enumerate("ABC"):
            ChoiceFactory(
                question=question,
                text=label,
                is_correct=label == "A",
                misconception=None if label == "A" else mistaken,
                order=i,
            )
        QuizItemFactory(quiz=quiz, question=question, points=3, order=order)
    return quiz


def _items(quiz):
    return list(quiz.items.order_by("order"))


def _pick(attempt, item, label):
    choice = item.question.choices.get(text=label)
    return response_submit(attempt=attempt, item=item, choice_ids=[choice.pk])


@pytest.fixture
def learner():
    return UserFactory(username="lin")


@pytest.fixture
def attempt(quiz, learner):
    first, second = _items(quiz)
    attempt = attempt_start(user=learner, quiz=quiz)
    _pick(attempt, first, "B")
    _pick(attempt, first, "A")
    for label in "CBA":
        _pick(attempt, second, label)
    attempt.refresh_from_db()
    assert attempt.score == pytest.approx(3.0)  # the running score, before submission
    attempt_submit(attempt=attempt)
    attempt.refresh_from_db()
    return attempt


@pytest.fixture
def instructor(quiz):
    user = UserFactory()
    CourseRole.objects.create(course=quiz.lesson.course, user=user, role=CourseRole.Role.INSTRUCTOR)
    return user


def test_every_surface_reads_the_penalised_score(quiz, attempt, learner):
    first, second = _items(quiz)
    assert (attempt.score, attempt.max_score) == (pytest.approx(3.0), 6.0)

    sheet = {row.item.pk: row.score for row in selectors.attempt_sheet(attempt=attempt)}
    assert sheet == {first.pk: pytest.approx(2 / 3), second.pk: pytest.approx(1 / 3)}

    api = session_client(learner).get(f"/api/v1/attempts/{attempt.pk}/result/").json()
    earned = {item["id"]: item["points_earned"] for item in api["items"]}
    assert earned == {first.pk: pytest.approx(2.0), second.pk: pytest.approx(1.0)}
    assert api["attempt"]["score"] == pytest.approx(3.0)

    results = quiz_results(quiz=quiz, rule=AttemptRule.BEST)
    (row,) = results.rows
    assert [item.points for item in row.items] == [pytest.approx(2.0), pytest.approx(1.0)]
    assert [item.status for item in row.items] == ["correct", "correct"]

    header, line = (
        text.strip().split(",") for text in gradebook_lines(quiz=quiz, rule=AttemptRule.BEST)
    )
    assert float(line[header.index("score_points")]) == pytest.approx(3.0)


def test_the_results_page_shows_the_penalised_points(client, quiz, attempt, learner):
    client.force_login(learner)
    page = client.get(f"/attempts/{attempt.pk}/results/").content.decode()
    assert "<strong>3</strong> of 6 points" in page
    # Per item: 3 - 1 and 3 - 2, and with a 1-point item a fraction, not a rounded whole.
    assert page.count("data-item-score>2 of 3 points<") == 1
    assert page.count("data-item-score>1 of 3 points<") == 1
    # Right in the end, if not at once: marked so, whatever the penalty took off.
    assert page.count('class="card item result-correct"') == 2


def test_a_fraction_of_a_point_is_shown_as_such(client, quiz, learner):
    first, _ = _items(quiz)
    first.points = 1
    first.save()
    attempt = attempt_start(user=learner, quiz=quiz)
    _pick(attempt, first, "B")
    _pick(attempt, first, "A")
    attempt_submit(attempt=attempt)
    client.force_login(learner)
    page = client.get(f"/attempts/{attempt.pk}/results/").content.decode()
    assert "data-item-score>0.67 of 1 point<" in page


def test_a_regrade_rescores_with_the_penalty(quiz, attempt, instructor):
    """Keyed B instead of A: item 1's first try (B) is now right, 3 points with no penalty;
    item 2's second try (B) is right, 3 - 1 = 2. The attempt goes from 3 to 5."""
    first, second = _items(quiz)
    for item in (first, second):
        choices = {choice.text: choice for choice in item.question.choices.all()}
        mistaken = choices["B"].misconception_id
        fix = QuestionFix(
            choices=(
                ChoiceFix(choices["A"].pk, is_correct=False, misconception_id=mistaken),
                ChoiceFix(choices["B"].pk, is_correct=True),
                ChoiceFix(choices["C"].pk, is_correct=False, misconception_id=mistaken),
            )
        )
        preview = quiz_item_regrade(item=item, by=instructor, apply=False, fix=fix)
        (regraded,) = preview.attempts
        expected = {first.pk: (2.0, 3.0), second.pk: (1.0, 2.0)}[item.pk]
        assert (regraded.old_item_score, regraded.new_item_score) == pytest.approx(expected)
        quiz_item_regrade(
            item=item, by=instructor, apply=True, fix=fix, expected_digest=preview.digest
        )
    attempt.refresh_from_db()
    assert attempt.score == pytest.approx(5.0)


def test_an_override_is_the_item_s_score_with_no_penalty_taken_off(quiz, attempt, instructor):
    first, second = _items(quiz)
    item_score_override(
        attempt=attempt,
        item=second,
        score=3,
        reason="The second prompt was ambiguous.",
        by=instructor,
    )
    attempt.refresh_from_db()
    assert attempt.score == pytest.approx(2.0 + 3.0)
    sheet = {row.item.pk: row.score for row in selectors.attempt_sheet(attempt=attempt)}
    assert sheet == {first.pk: pytest.approx(2 / 3), second.pk: pytest.approx(1.0)}
