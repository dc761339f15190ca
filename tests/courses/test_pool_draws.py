"""Drawing k members of a pool in one step: the service, and its page in the admin."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from courses.models import QuizItem
from courses.pool_draws import DrawsRefused, quiz_draws_add
from grading.models import AttemptDraw
from grading.services.attempts import attempt_start
from tests.courses.test_admin_pools import pool_with
from tests.factories import (
    InstructorFactory,
    LessonFactory,
    QuestionFactory,
    QuizFactory,
    QuizItemFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def items(quiz) -> list[tuple[int, int | None, int | None, int]]:
    return list(
        quiz.items.order_by("order", "pk").values_list("order", "question_id", "pool_id", "points")
    )


def test_draws_are_added_after_the_last_item_and_each_attempt_draws_different_members():
    quiz = QuizFactory(mode="exam", show_feedback="after_submission")
    fixed = QuestionFactory(lesson=quiz.lesson)
    QuizItemFactory(quiz=quiz, question=fixed, order=4)
    pool = pool_with(quiz.lesson, questions=5)
    added = quiz_draws_add(quiz=quiz, pool=pool, count=3, points=2)
    assert len(added) == 3
    assert items(quiz) == [
        (4, fixed.pk, None, 1),
        (5, None, pool.pk, 2),
        (6, None, pool.pk, 2),
        (7, None, pool.pk, 2),
    ]
    attempt = attempt_start(user=UserFactory(), quiz=quiz)
    drawn = AttemptDraw.objects.filter(attempt=attempt).values_list("question_id", flat=True)
    assert len(set(drawn)) == 3


@pytest.mark.parametrize(
    ("count", "points", "message"),
    [
        (0, 1, "Draw between 1 and 50 members at a time."),
        (51, 1, "Draw between 1 and 50 members at a time."),
        (1, 0, "Each draw is worth at least one point."),
    ],
)
def test_a_count_or_points_out_of_range_is_refused_with_nothing_written(count, points, message):
    quiz = QuizFactory()
    pool = pool_with(quiz.lesson, questions=3)
    with pytest.raises(DrawsRefused, match=message):
        quiz_draws_add(quiz=quiz, pool=pool, count=count, points=points)
    assert items(quiz) == []


def test_more_draws_than_the_pool_has_members_names_the_items_and_writes_nothing():
    quiz = QuizFactory()
    pool = pool_with(quiz.lesson, questions=3)
    QuizItemFactory(quiz=quiz, question=None, pool=pool, order=0)
    QuizItemFactory(quiz=quiz, question=QuestionFactory(lesson=quiz.lesson), order=1)
    before = items(quiz)
    with pytest.raises(DrawsRefused) as refusal:
        quiz_draws_add(quiz=quiz, pool=pool, count=3, points=1)
    assert str(refusal.value) == (
        "Items 1, 3, 4, 5 draw from pool “Warm-up pool”, which has 3 members: each item draws a "
        "different one, so add members or draw from it in at most 3 items."
    )
    assert items(quiz) == before


def test_a_pool_of_another_course_is_refused():
    quiz = QuizFactory()
    elsewhere = pool_with(LessonFactory(), questions=3)
    assert elsewhere.lesson.course_id != quiz.lesson.course_id
    course = re.escape(f"course “{elsewhere.lesson.course.title}”")
    with pytest.raises(DrawsRefused, match=f"belongs to another course: its lesson .* {course}"):
        quiz_draws_add(quiz=quiz, pool=elsewhere, count=1, points=1)
    assert items(quiz) == []


def test_draws_are_not_added_to_a_quiz_with_attempts():
    quiz = QuizFactory()
    pool = pool_with(quiz.lesson, questions=3)
    QuizItemFactory(quiz=quiz, question=QuestionFactory(lesson=quiz.lesson))
    attempt_start(user=UserFactory(), quiz=quiz)
    before = items(quiz)
    with pytest.raises(DrawsRefused, match="This quiz has 1 attempt: its attempts name its items"):
        quiz_draws_add(quiz=quiz, pool=pool, count=1, points=1)
    assert items(quiz) == before


def draws_url(quiz) -> str:
    return reverse("admin:courses_quiz_draws", args=[quiz.pk])


def test_the_admin_page_offers_the_course_s_pools_and_adds_the_draws(client):
    quiz = QuizFactory()
    pool = pool_with(quiz.lesson, questions=4)
    other = pool_with(LessonFactory(), questions=4)
    client.force_login(InstructorFactory())
    change = client.get(reverse("admin:courses_quiz_change", args=[quiz.pk])).content.decode()
    assert draws_url(quiz) in change
    page = client.get(draws_url(quiz)).content.decode()
    assert f'<option value="{pool.pk}">' in page
    assert f'<option value="{other.pk}">' not in page
    response = client.post(draws_url(quiz), {"pool": pool.pk, "count": "2", "points": "3"})
    assert response.status_code == 302
    assert items(quiz) == [(0, None, pool.pk, 3), (1, None, pool.pk, 3)]
    followed = client.get(response["Location"]).content.decode()
    assert "Added 2 items drawing from “Warm-up pool”." in followed


def test_the_admin_page_says_why_it_refuses_and_adds_nothing(client):
    quiz = QuizFactory()
    pool = pool_with(quiz.lesson, questions=2)
    other = pool_with(LessonFactory(), questions=4)
    client.force_login(InstructorFactory())
    page = client.post(draws_url(quiz), {"pool": pool.pk, "count": "3", "points": "1"})
    assert page.status_code == 200
    assert "which has 2 members" in page.content.decode()
    # A pool of another course is not even a choice.
    page = client.post(draws_url(quiz), {"pool": other.pk, "count": "1", "points": "1"})
    assert "Select a valid choice" in page.content.decode()
    assert not QuizItem.objects.filter(quiz=quiz).exists()


def test_a_course_without_pools_is_told_to_make_one(client):
    quiz = QuizFactory()
    client.force_login(InstructorFactory())
    page = client.get(draws_url(quiz)).content.decode()
    assert "data-no-pools" in page
    assert reverse("admin:courses_pool_add") in page


def test_staff_who_may_not_change_quizzes_get_no_page(client):
    quiz = QuizFactory()
    pool = pool_with(quiz.lesson, questions=2)
    viewer = UserFactory(is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_quiz"))
    client.force_login(viewer)
    assert client.get(draws_url(quiz)).status_code == 403
    response = client.post(draws_url(quiz), {"pool": pool.pk, "count": "1", "points": "1"})
    assert response.status_code == 403
    assert not QuizItem.objects.filter(quiz=quiz).exists()
    client.logout()
    assert client.get(draws_url(quiz)).status_code == 302  # to the admin's sign-in


def test_a_published_quiz_draws_from_no_pool_with_an_unpublished_member():
    quiz = QuizFactory()
    pool = pool_with(quiz.lesson, questions=2)
    pool.questions.add(QuestionFactory(lesson=quiz.lesson, slug="q-draft", published=False))
    before = items(quiz)
    with pytest.raises(DrawsRefused) as refusal:
        quiz_draws_add(quiz=quiz, pool=pool, count=2, points=1)
    assert str(refusal.value) == (
        f"A published quiz holds only published content: item 1: question q-draft in pool "
        f"{pool.slug} is not published."
    )
    assert items(quiz) == before
    quiz.published = False
    quiz.save()
    assert len(quiz_draws_add(quiz=quiz, pool=pool, count=2, points=1)) == 2
