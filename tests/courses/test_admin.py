"""Instructors author in the admin: every page renders, and mistakes are named precisely."""

import pytest
from django.urls import reverse

from courses.models import KeyTerm, Lesson, Misconception, Problem, Question, Quiz
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


# --- authored text that cannot render: an error on its field, nothing saved ---------------------

BAD_FORMULA = "See $\\text{<img src=x>}$ here."
BAD_FORMULA_ERROR = "cannot convert $\\text{<img src=x>}$: '<', '>' and '&' may not appear"


def empty_inline(prefix: str) -> dict:
    return {
        f"{prefix}-TOTAL_FORMS": "0",
        f"{prefix}-INITIAL_FORMS": "0",
        f"{prefix}-MIN_NUM_FORMS": "0",
        f"{prefix}-MAX_NUM_FORMS": "1000",
    }


def lesson_post(lesson, **fields):
    data = {
        "course": str(lesson.course.pk), "title": "New", "slug": "new", "order": "9",
        "minutes": "10", "summary": "", "body": "Fine $d_k$.",
        "key_terms-TOTAL_FORMS": "1", "key_terms-INITIAL_FORMS": "0",
        "key_terms-MIN_NUM_FORMS": "0", "key_terms-MAX_NUM_FORMS": "1000",
        "key_terms-0-order": "0", "key_terms-0-slug": "spread", "key_terms-0-term": "Spread",
        "key_terms-0-definition": "Fine.",
    }  # fmt: skip
    return {**data, **fields}


def misconception_post(lesson):
    return {"lesson": str(lesson.pk), "code": "new-code", "title": "New", "explanation": "Fine."}


def keyterm_post(lesson):
    return {"lesson": str(lesson.pk), "order": "0", "slug": "t", "term": "T", "definition": "Ok"}


def quiz_post(lesson):
    return {
        "lesson": str(lesson.pk), "title": "Q", "slug": "q", "description": "Fine.",
        "mode": "practice", "tries_per_item": "1", "show_feedback": "immediately",
        "release_answers": "after_submission", "overdue_handling": "submit",
        "grace_minutes": "0", **empty_inline("items"),
    }  # fmt: skip


def problem_post(lesson):
    return {
        "lesson": str(lesson.pk), "title": "P", "slug": "p", "order": "0", "prompt": "Fine.",
        "family": "dot-variance", "params": "{}", "atol": "", "rtol": "",
    }  # fmt: skip


def question_with_choices(lesson, misconception):
    return question_post(
        lesson,
        [
            {"text": "$d_k$", "is_correct": "on", "feedback": "Yes."},
            {"text": "$d_k^2$", "misconception": str(misconception.pk), "feedback": "No."},
        ],
    )


# (admin model, form data maker, field set to the bad text, where its error shows)
MARKUP_FIELDS = [
    ("lesson", lambda lesson, _: lesson_post(lesson), "body", None),
    ("lesson", lambda lesson, _: lesson_post(lesson), "title", None),
    ("lesson", lambda lesson, _: lesson_post(lesson), "key_terms-0-definition", "key_terms"),
    ("keyterm", lambda lesson, _: keyterm_post(lesson), "definition", None),
    ("misconception", lambda lesson, _: misconception_post(lesson), "explanation", None),
    ("question", question_with_choices, "prompt", None),
    ("question", question_with_choices, "explanation", None),
    ("question", question_with_choices, "choices-1-text", "choices"),
    ("question", question_with_choices, "choices-1-feedback", "choices"),
    ("quiz", lambda lesson, _: quiz_post(lesson), "description", None),
    ("problem", lambda lesson, _: problem_post(lesson), "prompt", None),
]


@pytest.mark.parametrize(
    ("model", "make", "field", "inline"),
    MARKUP_FIELDS,
    ids=[f"{m}.{f}" for m, _, f, _ in MARKUP_FIELDS],
)
def test_text_that_cannot_render_is_refused_on_its_own_field(
    instructor_client, model, make, field, inline
):
    lesson = LessonFactory()
    misconception = MisconceptionFactory(lesson=lesson)
    model_class = {
        "lesson": Lesson, "keyterm": KeyTerm, "misconception": Misconception,
        "question": Question, "quiz": Quiz, "problem": Problem,
    }[model]  # fmt: skip
    before = model_class.objects.count()
    data = {**make(lesson, misconception), field: BAD_FORMULA}
    response = instructor_client.post(reverse(f"admin:courses_{model}_add"), data)
    assert response.status_code == 200
    if inline is None:
        errors = response.context["adminform"].form.errors[field]
    else:
        formset = next(
            f.formset
            for f in response.context["inline_admin_formsets"]
            if f.formset.prefix == inline
        )
        number, name = field.removeprefix(f"{inline}-").split("-")
        errors = formset.forms[int(number)].errors[name]
    assert any(error.startswith(BAD_FORMULA_ERROR) for error in errors), errors
    assert model_class.objects.count() == before
