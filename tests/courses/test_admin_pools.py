"""Pools in the admin: a pool's page, quiz items that draw from a pool, and each mistake named
(an item naming two things, more items drawing from a pool than it has members, a pool shrunk
below what a quiz draws, a member or a pool of another course, a member, a pool, a quiz or a
lesson moved to another course), with nothing saved."""

from __future__ import annotations

import html

import pytest
from django.forms.models import model_to_dict
from django.urls import reverse

from courses.admin import LessonForm
from courses.admin_questions import QuestionForm
from courses.models import Pool, QuizItem
from courses.pool_admin import PoolForm
from grading.admin import ProblemForm
from tests.courses.test_admin import quiz_post
from tests.factories import (
    CourseFactory,
    InstructorFactory,
    LessonFactory,
    PoolFactory,
    ProblemFactory,
    QuestionFactory,
    QuizFactory,
    QuizItemFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def instructor_client(client):
    client.force_login(InstructorFactory())
    return client


def pool_with(lesson, questions: int) -> Pool:
    pool = PoolFactory(lesson=lesson, title="Warm-up pool")
    pool.questions.add(*[QuestionFactory(lesson=lesson) for _ in range(questions)])
    return pool


def items_post(rows: list[dict]) -> dict:
    data = {
        "items-TOTAL_FORMS": str(len(rows)),
        "items-INITIAL_FORMS": "0",
        "items-MIN_NUM_FORMS": "0",
        "items-MAX_NUM_FORMS": "1000",
    }
    for number, row in enumerate(rows):
        data |= {f"items-{number}-order": str(number), f"items-{number}-points": "1"}
        data |= {f"items-{number}-{name}": str(value) for name, value in row.items()}
    return data


def test_a_quiz_with_items_drawing_from_a_pool_is_saved(instructor_client):
    lesson = QuizFactory().lesson
    pool = pool_with(lesson, questions=3)
    fixed = QuestionFactory(lesson=lesson)
    data = {**quiz_post(lesson), **items_post([{"question": fixed.pk}, *[{"pool": pool.pk}] * 3])}
    response = instructor_client.post(reverse("admin:courses_quiz_add"), data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert QuizItem.objects.filter(quiz__slug="q", pool=pool).count() == 3


def test_more_items_drawing_from_a_pool_than_it_has_members_is_refused_by_number(
    instructor_client,
):
    lesson = QuizFactory().lesson
    pool = pool_with(lesson, questions=2)
    fixed = QuestionFactory(lesson=lesson)
    rows = [{"pool": pool.pk}, {"question": fixed.pk}, {"pool": pool.pk}, {"pool": pool.pk}]
    response = instructor_client.post(
        reverse("admin:courses_quiz_add"), {**quiz_post(lesson), **items_post(rows)}
    )
    page = response.content.decode()
    assert "Items 1, 3, 4 draw from pool “Warm-up pool”, which has 2 members" in page
    assert not QuizItem.objects.exists()


def test_an_item_naming_a_pool_and_a_question_is_refused(instructor_client):
    lesson = QuizFactory().lesson
    pool = pool_with(lesson, questions=2)
    rows = [{"pool": pool.pk, "question": QuestionFactory(lesson=lesson).pk}]
    response = instructor_client.post(
        reverse("admin:courses_quiz_add"), {**quiz_post(lesson), **items_post(rows)}
    )
    assert "Item 1 must name exactly one of a question, a problem or a pool." in (
        response.content.decode()
    )
    assert not QuizItem.objects.exists()


def test_a_pool_cannot_shrink_below_what_a_quiz_draws_from_it(instructor_client):
    quiz = QuizFactory(title="Midterm")
    pool = pool_with(quiz.lesson, questions=3)
    for order in range(3):
        QuizItem.objects.create(quiz=quiz, pool=pool, order=order)
    kept = list(pool.questions.values_list("pk", flat=True))[:2]
    data = {
        "lesson": str(pool.lesson.pk),
        "title": pool.title,
        "slug": pool.slug,
        "questions": [str(pk) for pk in kept],
    }
    url = reverse("admin:courses_pool_change", args=[pool.pk])
    page = instructor_client.post(url, data).content.decode()
    assert "Quiz “Midterm” draws 3 members from this pool in 3 items; it would keep 2." in page
    assert pool.questions.count() == 3
    # Keeping three saves.
    data["questions"].append(str(pool.questions.exclude(pk__in=kept).get().pk))
    assert instructor_client.post(url, data).status_code == 302


def test_the_pool_pages_render_and_list_their_members(instructor_client):
    pool = pool_with(QuizFactory().lesson, questions=2)
    changelist = instructor_client.get(reverse("admin:courses_pool_changelist"))
    assert changelist.status_code == 200
    assert pool.title in changelist.content.decode()
    assert instructor_client.get(reverse("admin:courses_pool_add")).status_code == 200
    change = instructor_client.get(reverse("admin:courses_pool_change", args=[pool.pk]))
    assert change.status_code == 200
    searched = instructor_client.get(reverse("admin:courses_pool_changelist"), {"q": "warm"})
    assert pool.title in searched.content.decode()


def test_a_quiz_page_offers_the_pool_field(instructor_client):
    page = instructor_client.get(reverse("admin:courses_quiz_add")).content.decode()
    assert 'name="items-__prefix__-pool"' in page


def test_a_pool_refuses_a_question_or_problem_of_another_course_naming_it(instructor_client):
    lesson = QuizFactory().lesson
    own = QuestionFactory(lesson=lesson)
    # Another lesson of the same course is fine; another course's question and problem are not.
    same_course = QuestionFactory(lesson=LessonFactory(course=lesson.course))
    elsewhere = LessonFactory(title="Elsewhere", course=CourseFactory(title="Other course"))
    foreign_question = QuestionFactory(lesson=elsewhere, slug="their-question")
    foreign_problem = ProblemFactory(lesson=elsewhere, slug="their-problem")
    data = {
        "lesson": str(lesson.pk),
        "title": "Mixed pool",
        "slug": "mixed-pool",
        "questions": [str(own.pk), str(same_course.pk), str(foreign_question.pk)],
        "problems": [str(foreign_problem.pk)],
    }
    response = instructor_client.post(reverse("admin:courses_pool_add"), data)
    page = html.unescape(response.content.decode())
    for label in ("Question 'their-question'", "Problem 'their-problem'"):
        assert (
            f"{label} cannot be in this pool: its lesson “Elsewhere” is in the course "
            f"“Other course”, and a pool of the course “{lesson.course.title}” may hold only "
            "questions and problems of lessons in its own course."
        ) in page
    assert not Pool.objects.exists()
    # Without them, the pool is saved with both questions of its course.
    data |= {"questions": [str(own.pk), str(same_course.pk)], "problems": []}
    assert instructor_client.post(reverse("admin:courses_pool_add"), data).status_code == 302
    assert set(Pool.objects.get().questions.all()) == {own, same_course}


def test_a_pool_cannot_move_to_another_course_s_lesson_with_its_members(instructor_client):
    pool = pool_with(QuizFactory().lesson, questions=1)
    member = pool.questions.get()
    elsewhere = LessonFactory(title="Elsewhere", course=CourseFactory(title="Other course"))
    data = {
        "lesson": str(elsewhere.pk),
        "title": pool.title,
        "slug": pool.slug,
        "questions": [str(member.pk)],
    }
    url = reverse("admin:courses_pool_change", args=[pool.pk])
    page = html.unescape(instructor_client.post(url, data).content.decode())
    assert f"Question {member.slug!r} cannot be in this pool" in page
    pool.refresh_from_db()
    assert pool.lesson_id == member.lesson_id


def edited(form_class, instance, **changes):
    """The admin's form for `instance`, submitted with its stored values and `changes`."""
    data = {k: v for k, v in model_to_dict(instance).items() if v is not None}
    return form_class(data={**data, **changes}, instance=instance)


def test_a_question_or_problem_in_a_pool_cannot_move_to_another_course_s_lesson():
    pool = PoolFactory(slug="warm-up")
    question = QuestionFactory(lesson=pool.lesson)
    problem = ProblemFactory(lesson=pool.lesson)
    pool.questions.add(question)
    pool.problems.add(problem)
    elsewhere = LessonFactory(title="Elsewhere", course=CourseFactory(title="Other course"))
    for form_class, member in ((QuestionForm, question), (ProblemForm, problem)):
        form = edited(form_class, member, lesson=elsewhere.pk)
        assert not form.is_valid()
        assert form.errors["lesson"] == [
            "It is in pool 'warm-up': its lesson “Elsewhere” is in the course “Other course”, "
            f"and a pool of the course “{pool.lesson.course.title}” may hold only questions and "
            "problems of lessons in its own course."
        ]
        # Another lesson of the pool's course is fine.
        sibling = LessonFactory(course=pool.lesson.course)
        assert edited(form_class, member, lesson=sibling.pk).is_valid()
    pool.questions.clear()
    assert edited(QuestionForm, question, lesson=elsewhere.pk).is_valid()


def test_a_lesson_cannot_move_to_another_course_while_a_pool_spans_it_and_its_course():
    lesson = LessonFactory(title="Scaling")
    sibling = LessonFactory(course=lesson.course)
    theirs = PoolFactory(lesson=sibling, slug="their-pool")
    theirs.questions.add(QuestionFactory(lesson=lesson, slug="our-question"))
    ours = PoolFactory(lesson=lesson, slug="our-pool")
    ours.problems.add(ProblemFactory(lesson=sibling, slug="their-problem"))
    ours.questions.add(QuestionFactory(lesson=lesson))  # moves with the lesson: fine
    other = CourseFactory(title="Other course")
    form = edited(LessonForm, lesson, course=other.pk)
    assert not form.is_valid()
    errors = form.errors["course"]
    assert [error.split(":")[0] for error in errors] == [
        "Problem 'their-problem' in pool 'our-pool'",
        "Question 'our-question' in pool 'their-pool'",
    ]
    assert "its lesson “Scaling” is in the course “Other course”" in errors[1]
    Pool.objects.all().delete()
    assert edited(LessonForm, lesson, course=other.pk).is_valid()


def drawing_rule(*, pool_lesson, pool_course, quiz_course) -> str:
    return (
        f"its lesson “{pool_lesson}” is in the course “{pool_course}”, and a quiz of the course "
        f"“{quiz_course}” may draw only from pools of lessons in its own course"
    )


def row_errors(response) -> list[dict]:
    """The errors of each item row of the quiz page the admin answered with."""
    (items,) = response.context["inline_admin_formsets"]
    return [dict(form.errors) for form in items.formset.forms]


def test_an_item_cannot_draw_from_a_pool_of_another_course(instructor_client):
    lesson = QuizFactory().lesson
    # A pool of another lesson of the same course is fine; one of another course is not.
    sibling = pool_with(LessonFactory(course=lesson.course), questions=1)
    elsewhere = LessonFactory(title="Elsewhere", course=CourseFactory(title="Other course"))
    theirs = PoolFactory(lesson=elsewhere, title="Their pool")
    theirs.questions.add(QuestionFactory(lesson=elsewhere))
    rows = [{"pool": sibling.pk}, {"pool": theirs.pk}]
    response = instructor_client.post(
        reverse("admin:courses_quiz_add"), {**quiz_post(lesson), **items_post(rows)}
    )
    rule = drawing_rule(
        pool_lesson="Elsewhere", pool_course="Other course", quiz_course=lesson.course.title
    )
    assert row_errors(response) == [
        {},
        {"pool": [f"Pool “Their pool” belongs to another course: {rule}."]},
    ]
    assert not QuizItem.objects.exists()
    rows = [{"pool": sibling.pk}]
    response = instructor_client.post(
        reverse("admin:courses_quiz_add"), {**quiz_post(lesson), **items_post(rows)}
    )
    assert response.status_code == 302
    assert QuizItem.objects.get().pool == sibling


def test_a_quiz_cannot_move_to_another_course_while_its_items_draw_from_its_pools(
    instructor_client,
):
    quiz = QuizFactory(slug="q", title="Q", published=False)
    pool = pool_with(quiz.lesson, questions=1)
    item = QuizItemFactory(quiz=quiz, question=None, pool=pool)
    elsewhere = LessonFactory(title="Elsewhere", course=CourseFactory(title="Other course"))
    url = reverse("admin:courses_quiz_change", args=[quiz.pk])

    def moved_to(lesson) -> dict:
        rows = items_post([{"id": item.pk, "quiz": quiz.pk, "pool": pool.pk}])
        return {**quiz_post(lesson), **rows, "items-INITIAL_FORMS": "1"}

    response = instructor_client.post(url, moved_to(elsewhere))
    rule = drawing_rule(
        pool_lesson=quiz.lesson.title,
        pool_course=quiz.lesson.course.title,
        quiz_course="Other course",
    )
    assert row_errors(response) == [
        {"pool": [f"Pool “Warm-up pool” belongs to another course: {rule}."]}
    ]
    lesson = quiz.lesson
    quiz.refresh_from_db()
    assert quiz.lesson == lesson
    # Another lesson of its course is fine.
    sibling = LessonFactory(course=lesson.course)
    assert instructor_client.post(url, moved_to(sibling)).status_code == 302
    quiz.refresh_from_db()
    assert quiz.lesson == sibling
    assert list(quiz.items.values_list("pool", flat=True)) == [pool.pk]


def test_a_pool_cannot_move_to_another_course_s_lesson_while_a_quiz_draws_from_it():
    quiz = QuizFactory(slug="drawing-quiz")
    pool = pool_with(quiz.lesson, questions=1)
    QuizItemFactory(quiz=quiz, question=None, pool=pool)
    elsewhere = LessonFactory(title="Elsewhere", course=CourseFactory(title="Other course"))
    form = edited(PoolForm, pool, lesson=elsewhere.pk)
    assert not form.is_valid()
    rule = drawing_rule(
        pool_lesson="Elsewhere", pool_course="Other course", quiz_course=quiz.lesson.course.title
    )
    assert form.errors["lesson"] == [f"Quiz 'drawing-quiz' draws from it: {rule}."]
    assert edited(PoolForm, pool, lesson=LessonFactory(course=quiz.lesson.course).pk).is_valid()
    QuizItem.objects.all().delete()
    pool.questions.clear()
    assert edited(PoolForm, pool, lesson=elsewhere.pk).is_valid()


def test_a_lesson_cannot_move_to_another_course_while_a_quiz_draws_across_it():
    lesson = LessonFactory(title="Scaling")
    sibling = LessonFactory(title="Sibling", course=lesson.course)
    ours = PoolFactory(lesson=lesson, slug="our-pool")
    theirs = PoolFactory(lesson=sibling, slug="their-pool")
    our_quiz = QuizFactory(lesson=lesson, slug="our-quiz")
    QuizItemFactory(quiz=our_quiz, question=None, pool=theirs)
    QuizItemFactory(quiz=our_quiz, question=None, pool=ours)  # moves with the lesson: fine
    their_quiz = QuizFactory(lesson=sibling, slug="their-quiz")
    QuizItemFactory(quiz=their_quiz, question=QuestionFactory(lesson=sibling), order=0)
    QuizItemFactory(quiz=their_quiz, question=None, pool=ours, order=1)
    course = lesson.course.title
    form = edited(LessonForm, lesson, course=CourseFactory(title="Other course").pk)
    assert not form.is_valid()
    assert form.errors["course"] == [
        "Item 1 of quiz 'our-quiz' draws from pool 'their-pool': "
        + drawing_rule(pool_lesson="Sibling", pool_course=course, quiz_course="Other course")
        + ".",
        "Item 2 of quiz 'their-quiz' draws from pool 'our-pool': "
        + drawing_rule(pool_lesson="Scaling", pool_course="Other course", quiz_course=course)
        + ".",
    ]
    QuizItem.objects.filter(pool=theirs).delete()
    their_quiz.delete()
    assert edited(LessonForm, lesson, course=CourseFactory().pk).is_valid()
