"""Publishing in the admin: one action publishes (or unpublishes) the selected questions,
problems or quizzes, each list filters by it, and a published quiz refuses unpublished items with
the item named, in the actions and in the change forms, with nothing saved."""

from __future__ import annotations

import pytest
from django.urls import reverse

from courses.models import Problem, Question, Quiz
from tests.courses.test_admin import quiz_post
from tests.courses.test_admin_pools import items_post
from tests.factories import (
    InstructorFactory,
    PoolFactory,
    ProblemFactory,
    QuestionFactory,
    QuizFactory,
    QuizItemFactory,
)

pytestmark = pytest.mark.django_db

LISTS = {"question": Question, "problem": Problem, "quiz": Quiz}
FACTORIES = {"question": QuestionFactory, "problem": ProblemFactory, "quiz": QuizFactory}


@pytest.fixture
def instructor_client(client):
    client.force_login(InstructorFactory())
    return client


def act(client, model: str, action: str, rows) -> str:
    response = client.post(
        reverse(f"admin:courses_{model}_changelist"),
        {"action": action, "_selected_action": [row.pk for row in rows]},
        follow=True,
    )
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("model", sorted(LISTS))
def test_publish_selected_then_unpublish_selected(instructor_client, model):
    factory = FACTORIES[model]
    rows = [factory(published=False), factory(published=False)]
    left_alone = factory(published=False)
    page = act(instructor_client, model, "publish_selected", rows)
    assert "2 " in page
    assert "published." in page
    assert LISTS[model].objects.filter(published=True).count() == 2
    left_alone.refresh_from_db()
    assert not left_alone.published
    act(instructor_client, model, "unpublish_selected", rows)
    assert not LISTS[model].objects.filter(published=True).exists()


@pytest.mark.parametrize("model", sorted(LISTS))
def test_each_list_filters_by_published_state(instructor_client, model):
    FACTORIES[model]()  # the admin shows its actions over a list with rows
    page = instructor_client.get(reverse(f"admin:courses_{model}_changelist")).content.decode()
    assert "?published__exact=1" in page
    assert "Publish selected" in page
    assert "Unpublish selected" in page


def test_publishing_a_quiz_with_an_unpublished_item_names_it_and_changes_nothing(
    instructor_client,
):
    quiz = QuizFactory(slug="attention-practice", published=False)
    QuizItemFactory(quiz=quiz, question=QuestionFactory(slug="q-draft", published=False))
    page = act(instructor_client, "quiz", "publish_selected", [quiz])
    assert "Quiz attention-practice: item 1: question q-draft is not published." in page
    assert "Nothing was changed." in page
    quiz.refresh_from_db()
    assert not quiz.published


def test_unpublishing_a_question_a_published_quiz_holds_is_refused(instructor_client):
    question = QuestionFactory(slug="q-held")
    QuizItemFactory(quiz=QuizFactory(slug="live"), question=question)
    page = act(instructor_client, "question", "unpublish_selected", [question])
    assert "Question q-held is in published quiz live" in page
    question.refresh_from_db()
    assert question.published


def test_the_quiz_form_refuses_to_publish_a_quiz_with_an_unpublished_item(instructor_client):
    lesson = QuestionFactory().lesson
    ready = QuestionFactory(lesson=lesson)
    draft = QuestionFactory(lesson=lesson, slug="q-draft", published=False)
    data = {
        **quiz_post(lesson),
        "published": "on",
        **items_post([{"question": ready.pk}, {"question": draft.pk}]),
    }
    response = instructor_client.post(reverse("admin:courses_quiz_add"), data)
    assert response.status_code == 200
    assert (
        "A published quiz holds only published content: item 2: question q-draft is not "
        "published." in response.content.decode()
    )
    assert not Quiz.objects.filter(slug="q").exists()
    draft.published = True
    draft.save()
    response = instructor_client.post(reverse("admin:courses_quiz_add"), data)
    assert response.status_code == 302
    assert Quiz.objects.get(slug="q").published


def test_the_quiz_form_saves_an_unpublished_quiz_with_unpublished_items(instructor_client):
    lesson = QuestionFactory().lesson
    draft = QuestionFactory(lesson=lesson, published=False)
    data = {**quiz_post(lesson), **items_post([{"question": draft.pk}])}
    response = instructor_client.post(reverse("admin:courses_quiz_add"), data)
    assert response.status_code == 302
    assert not Quiz.objects.get(slug="q").published


def test_the_problem_form_refuses_to_unpublish_a_problem_a_published_quiz_holds(
    instructor_client,
):
    problem = ProblemFactory(slug="p-held", title="Variance", prompt="")
    QuizItemFactory(quiz=QuizFactory(slug="live"), question=None, problem=problem)
    data = {
        "lesson": problem.lesson_id, "title": "Variance", "slug": "p-held", "order": 0,
        "family": "dot-variance", "params": "{}", "prompt": "", "solution_after_tries": 3,
    }  # fmt: skip
    url = reverse("admin:courses_problem_change", args=[problem.pk])
    response = instructor_client.post(url, data)
    assert response.status_code == 200
    assert "Problem p-held is in published quiz live" in response.content.decode()
    problem.refresh_from_db()
    assert problem.published
    response = instructor_client.post(url, {**data, "published": "on", "title": "Renamed"})
    assert response.status_code == 302


def test_a_pool_a_published_quiz_draws_from_takes_no_unpublished_member(instructor_client):
    pool = PoolFactory(title="Warm-up pool")
    ready = QuestionFactory(lesson=pool.lesson)
    pool.questions.add(ready)
    QuizItemFactory(quiz=QuizFactory(lesson=pool.lesson), question=None, pool=pool)
    draft = QuestionFactory(lesson=pool.lesson, slug="q-draft", published=False)
    data = {
        "lesson": pool.lesson_id,
        "title": pool.title,
        "slug": pool.slug,
        "questions": [ready.pk, draft.pk],
    }
    response = instructor_client.post(reverse("admin:courses_pool_change", args=[pool.pk]), data)
    assert response.status_code == 200
    assert "q-draft is not." in response.content.decode()
    assert list(pool.questions.all()) == [ready]
