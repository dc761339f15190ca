"""Regrading an item that draws from a pool: each answer graded again against the question it
answered, as that question stands; a fix is refused (there is no one question to fix)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from courses.models import Question
from grading import regrade_graders, selectors
from grading.models import Attempt, Regrade, Response, ScoreChange
from grading.regrade_fixes import FixRefused, ToleranceFix
from grading.regrades import quiz_item_regrade
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.responses import SheetAnswer, attempt_answers_save
from grading.services.verdicts import question_grade
from teaching.models import CourseRole
from tests.factories import UserFactory
from tests.grading.pools import quiz_with_pool

pytestmark = pytest.mark.django_db


@pytest.fixture
def sat():
    """Six learners sat an exam of one item drawing from a pool of three questions (2 points),
    each picking the choice stored second (wrong) of whatever they drew."""
    quiz, pool = quiz_with_pool(draw=1, questions=3, fixed=False, mode="exam")
    attempts = []
    for _ in range(6):
        attempt = attempt_start(user=UserFactory(), quiz=quiz)
        (row,) = selectors.attempt_sheet(attempt=attempt)
        wrong = next(c for c in row.choices if not c.is_correct)
        attempt_answers_save(
            attempt=attempt, answers={row.item.pk: SheetAnswer(choice_ids=(wrong.pk,))}
        )
        attempts.append(attempt_submit(attempt=attempt))
    instructor = UserFactory()
    CourseRole.objects.create(
        course=quiz.lesson.course, user=instructor, role=CourseRole.Role.INSTRUCTOR
    )
    return quiz, pool, attempts, instructor


def test_a_pool_item_regrades_each_answer_against_the_question_it_answered(sat):
    quiz, _, attempts, instructor = sat
    assert all(attempt.score == 0 for attempt in attempts)
    item = quiz.items.get()
    # The instructor fixes one question in the admin: its second choice was right after all.
    fixed = Response.objects.get(attempt=attempts[0]).question
    choices = list(fixed.choices.order_by("order"))
    choices[0].is_correct, choices[0].misconception = False, choices[1].misconception
    choices[1].is_correct, choices[1].misconception = True, None
    for choice in reversed(choices):
        choice.save()
    drew_it = {r.attempt_id for r in Response.objects.filter(question=fixed, attempt__isnull=False)}
    preview = quiz_item_regrade(item=item, by=instructor, apply=False)
    assert {a.attempt_id for a in preview.attempts} == drew_it
    assert all(a.new_item_score == 2 for a in preview.attempts)
    assert not Regrade.objects.exists()
    applied = quiz_item_regrade(
        item=item, by=instructor, apply=True, expected_digest=preview.digest
    )
    assert applied.applied
    for attempt in Attempt.objects.filter(quiz=quiz):
        assert attempt.score == (2.0 if attempt.pk in drew_it else 0.0)
    assert ScoreChange.objects.filter(quiz_item=item).count() == len(drew_it)


def test_a_fix_of_a_pool_item_is_refused_and_changes_nothing(sat):
    quiz, _, _, instructor = sat
    item = quiz.items.get()
    with pytest.raises(FixRefused, match="draws from a pool"):
        quiz_item_regrade(
            item=item, by=instructor, apply=False, fix=ToleranceFix(atol=0.1, rtol=0.1)
        )
    assert not Regrade.objects.exists()


def test_the_regrade_page_of_a_pool_item_offers_the_regrade_as_it_stands(sat, client):
    quiz, pool, _, instructor = sat
    item = quiz.items.get()
    client.force_login(instructor)
    page = client.get(reverse("teaching:item-regrade", args=[item.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert f"Draws one member of the pool “{pool.title}”" in html
    assert "Fix the item, then preview" not in html
    assert 'id="preview"' in html
    # Applying with a fix in the form applies no fix: nothing was previewed with one.
    answer = client.post(
        reverse("teaching:item-regrade", args=[item.pk]), {"fix": "1", "digest": "stale"}
    )
    assert answer.status_code == 302
    assert not Regrade.objects.exists()
    assert Question.objects.filter(pools=pool).count() == 3


def test_a_pool_item_grades_each_question_answered_once_in_a_bounded_number_of_queries(
    sat, monkeypatch, django_assert_num_queries
):
    """Six answers to three questions, each the wrong choice of its question: one grading per
    question answered, against that question, and one query more than a fixed question's
    preview (grading.regrade_graders reads the questions answered, their choices and the
    problems, where a fixed item reads its question and its choices)."""
    quiz, _, _, instructor = sat
    item = quiz.items.get()
    answered = set(
        Response.objects.filter(quiz_item=item).values_list("question_id", flat=True).distinct()
    )
    graded = []

    def counting(*, question, choice_ids):
        graded.append((question.pk, tuple(choice_ids)))
        assert set(choice_ids) <= {choice.pk for choice in question.choices.all()}
        return question_grade(question=question, choice_ids=choice_ids)

    monkeypatch.setattr(regrade_graders, "question_grade", counting)
    # The item (1), the quiz's course roles (1), the questions answered, their choices and the
    # problems (3), the answers and their choices (2): nothing changed, so no attempt is read.
    with django_assert_num_queries(7):
        preview = quiz_item_regrade(item=item, by=instructor, apply=False)
    assert preview.attempts == []
    assert sorted(question for question, _ in graded) == sorted(answered)
