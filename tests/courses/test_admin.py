"""Instructors author in the admin: every page renders, and mistakes are named precisely."""

import pytest
from django.urls import reverse

from courses.models import Question, Quiz
from tests.factories import InstructorFactory, LessonFactory, MisconceptionFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def instructor_client(client):
    client.force_login(InstructorFactory())
    return client


def choice_formset(choices):
    data = {
        "choices-TOTAL_FORMS": str(len(choices)),
        "choices-INITIAL_FORMS": "0",
        "choices-MIN_NUM_FORMS": "0",
        "choices-MAX_NUM_FORMS": "1000",
    }
    for i, choice in enumerate(choices):
        for key, value in choice.items():
            data[f"choices-{i}-{key}"] = value
        data[f"choices-{i}-order"] = str(i)
    return data


def question_post(lesson, choices, **overrides):
    data = {
        "lesson": str(lesson.pk),
        "slug": "q-new",
        "kind": "single",
        "order": "0",
        "prompt": "What is $\\operatorname{Var}(q \\cdot k)$?",
        "explanation": "",
    }
    data.update(overrides)
    data.update(choice_formset(choices))
    return data


def test_wrong_choice_without_misconception_is_named_by_number(instructor_client):
    lesson = LessonFactory()
    misconception = MisconceptionFactory(lesson=lesson)
    choices = [
        {"text": "$d_k$", "is_correct": "on"},
        {"text": "$\\sqrt{d_k}$", "misconception": str(misconception.pk)},
        {"text": "$d_k^2$"},
    ]
    response = instructor_client.post(
        reverse("admin:courses_question_add"), question_post(lesson, choices)
    )
    assert response.status_code == 200
    assert "Choice 3 is wrong but names no misconception." in response.content.decode()
    assert not Question.objects.exists()


def test_single_choice_question_needs_exactly_one_correct(instructor_client):
    lesson = LessonFactory()
    choices = [{"text": "a", "is_correct": "on"}, {"text": "b", "is_correct": "on"}]
    response = instructor_client.post(
        reverse("admin:courses_question_add"), question_post(lesson, choices)
    )
    assert "A single question needs exactly one correct choice." in response.content.decode()
    assert not Question.objects.exists()


def test_formula_that_does_not_render_is_refused(instructor_client):
    lesson = LessonFactory()
    misconception = MisconceptionFactory(lesson=lesson)
    choices = [
        {"text": "$d_k$", "is_correct": "on"},
        {"text": "$\\sqrt{d_k}$", "misconception": str(misconception.pk)},
    ]
    response = instructor_client.post(
        reverse("admin:courses_question_add"),
        question_post(lesson, choices, prompt="Broken $\\frac{1}$"),
    )
    assert "missing argument in $\\frac{1}$" in response.content.decode()
    assert not Question.objects.exists()


def test_a_valid_question_is_saved_with_its_choices(instructor_client):
    lesson = LessonFactory()
    misconception = MisconceptionFactory(lesson=lesson)
    choices = [
        {"text": "$d_k$", "is_correct": "on", "feedback": "Yes."},
        {"text": "$\\sqrt{d_k}$", "misconception": str(misconception.pk), "feedback": "Std."},
    ]
    response = instructor_client.post(
        reverse("admin:courses_question_add"), question_post(lesson, choices)
    )
    assert response.status_code == 302
    question = Question.objects.get(slug="q-new")
    assert [c.is_correct for c in question.choices.all()] == [True, False]


def test_exam_with_immediate_feedback_is_refused_in_the_form(instructor_client):
    lesson = LessonFactory()
    data = {
        "lesson": str(lesson.pk),
        "title": "Final",
        "slug": "final",
        "mode": "exam",
        "tries_per_item": "1",
        "show_feedback": "immediately",
        "release_answers": "after_submission",
        "items-TOTAL_FORMS": "0",
        "items-INITIAL_FORMS": "0",
        "items-MIN_NUM_FORMS": "0",
        "items-MAX_NUM_FORMS": "1000",
    }
    response = instructor_client.post(reverse("admin:courses_quiz_add"), data)
    assert "An exam cannot give feedback per item before submission." in response.content.decode()
    assert not Quiz.objects.exists()


@pytest.mark.parametrize(
    "model", ["course", "lesson", "keyterm", "misconception", "question", "problem", "quiz"]
)
def test_every_authoring_page_renders(instructor_client, shipped_bank, model):
    app = "courses"
    changelist = instructor_client.get(reverse(f"admin:{app}_{model}_changelist"))
    assert changelist.status_code == 200
    add = instructor_client.get(reverse(f"admin:{app}_{model}_add"))
    assert add.status_code == 200
    searched = instructor_client.get(reverse(f"admin:{app}_{model}_changelist"), {"q": "variance"})
    assert searched.status_code == 200


def test_lesson_change_page_previews_the_math(instructor_client, shipped_bank):
    from courses.models import Lesson

    lesson = Lesson.objects.get(slug="scaled-dot-product-attention")
    page = instructor_client.get(reverse("admin:courses_lesson_change", args=[lesson.pk]))
    html = page.content.decode()
    assert 'class="sg-preview"' in html
    assert "<math" in html


def test_question_change_page_previews_prompt_and_choices(instructor_client, shipped_bank):
    question = Question.objects.first()
    page = instructor_client.get(reverse("admin:courses_question_change", args=[question.pk]))
    html = page.content.decode()
    assert "✓" in html
    assert "✗" in html


def test_learners_cannot_reach_the_admin(client):
    from tests.factories import UserFactory

    client.force_login(UserFactory())
    response = client.get(reverse("admin:courses_question_changelist"))
    assert response.status_code == 302
