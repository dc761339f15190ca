"""A question authors quickly in the admin: four blank choices to start, the question's own
lesson's misconceptions first in each picker, and a preview rendered (and sanitized) as learners
will see it."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from courses.admin_questions import misconception_options
from courses.models import Question
from tests.courses.test_admin import question_post
from tests.factories import (
    ChoiceFactory,
    InstructorFactory,
    LessonFactory,
    MisconceptionFactory,
    QuestionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

SCRIPT = "<script>alert(1)</script>"


@pytest.fixture
def instructor_client(client):
    client.force_login(InstructorFactory())
    return client


@pytest.fixture
def two_lessons():
    """Lesson "Spread" and lesson "Softmax", each with its misconceptions; the codes of the other
    lesson sort first, so an ordering by code alone would put them first."""
    spread = LessonFactory(title="Spread of $q \\cdot k$")
    softmax = LessonFactory(course=spread.course, title="Softmax")
    MisconceptionFactory(lesson=softmax, code="a-softmax-linear", title="Softmax is linear")
    MisconceptionFactory(lesson=softmax, code="b-softmax-sums", title="It sums to $d_k$")
    MisconceptionFactory(lesson=spread, code="z-width-ignored", title="Forgot $d_k$")
    MisconceptionFactory(lesson=spread, code="y-std", title="Std for variance")
    return spread, softmax


def choices_formset(response):
    return next(
        f.formset
        for f in response.context["inline_admin_formsets"]
        if f.formset.prefix == "choices"
    )


def picker_groups(response) -> list[tuple[str, list[str]]]:
    """The first choice row's misconception picker as rendered: (optgroup label, option texts)."""
    html = str(choices_formset(response).forms[0]["misconception"])
    return [
        (label, re.findall(r"<option value=\"\d+\">([^<]*)</option>", body))
        for label, body in re.findall(r'<optgroup label="([^"]*)">(.*?)</optgroup>', html, re.S)
    ]


# --- blank choices --------------------------------------------------------------------------


def test_a_new_question_starts_with_four_blank_choices(instructor_client):
    response = instructor_client.get(reverse("admin:courses_question_add"))
    formset = choices_formset(response)
    assert len(formset.forms) == 4
    assert all(not form.initial.get("text") for form in formset.forms)


def test_a_saved_question_shows_its_own_choices_and_no_blank_ones(instructor_client):
    question = QuestionFactory()
    ChoiceFactory(question=question, text="$d_k$")
    ChoiceFactory(
        question=question,
        text="$1$",
        is_correct=False,
        misconception=MisconceptionFactory(lesson=question.lesson),
    )
    response = instructor_client.get(reverse("admin:courses_question_change", args=[question.pk]))
    assert [form.instance.text for form in choices_formset(response).forms] == ["$d_k$", "$1$"]


def test_blank_rows_left_as_they_came_are_not_saved(instructor_client):
    lesson = LessonFactory()
    misconception = MisconceptionFactory(lesson=lesson)
    choices = [
        {"text": "$d_k$", "is_correct": "on"},
        {"text": "$1$", "misconception": str(misconception.pk)},
        {"text": "", "feedback": "", "misconception": ""},
        {"text": "", "feedback": "", "misconception": ""},
    ]
    data = question_post(lesson, choices)
    # The browser sends the blank rows' order as it showed it: the initial 0.
    data["choices-2-order"] = data["choices-3-order"] = "0"
    response = instructor_client.post(reverse("admin:courses_question_add"), data)
    assert response.status_code == 302
    assert list(Question.objects.get().choices.values_list("text", flat=True)) == ["$d_k$", "$1$"]


# --- the misconception picker --------------------------------------------------------------


def test_a_saved_question_s_picker_lists_its_own_lesson_first(instructor_client, two_lessons):
    spread, _ = two_lessons
    question = QuestionFactory(lesson=spread)
    ChoiceFactory(question=question)
    response = instructor_client.get(reverse("admin:courses_question_change", args=[question.pk]))
    assert picker_groups(response) == [
        (
            f"This lesson · {spread.course.title} › Spread of q · k",
            ["y-std: Std for variance", "z-width-ignored: Forgot dₖ"],
        ),
        (
            f"Other lessons · {spread.course.title} › Softmax",
            ["a-softmax-linear: Softmax is linear", "b-softmax-sums: It sums to dₖ"],
        ),
    ]


def test_the_add_page_lists_the_lesson_it_was_opened_for_first(instructor_client, two_lessons):
    _, softmax = two_lessons
    response = instructor_client.get(reverse("admin:courses_question_add"), {"lesson": softmax.pk})
    labels = [label for label, _ in picker_groups(response)]
    assert labels[0].startswith("This lesson · ")
    assert labels[0].endswith("Softmax")
    assert labels[1].startswith("Other lessons · ")
    assert response.context["adminform"].form.initial["lesson"] == str(softmax.pk)


def test_the_lesson_page_links_to_a_new_question_that_knows_its_lesson(
    instructor_client, two_lessons
):
    _, softmax = two_lessons
    page = instructor_client.get(reverse("admin:courses_lesson_change", args=[softmax.pk]))
    link = re.search(r'<a href="([^"]*)">Add a question to this lesson</a>', page.content.decode())
    response = instructor_client.get(link.group(1).replace("&amp;", "&"))
    assert picker_groups(response)[0][0].startswith("This lesson · ")
    assert picker_groups(response)[0][0].endswith("Softmax")


def test_a_refused_submission_lists_the_lesson_the_author_chose_first(
    instructor_client, two_lessons
):
    spread, softmax = two_lessons
    # Saved in one lesson, moved to the other in the form, refused for a missing misconception.
    question = QuestionFactory(lesson=spread)
    data = question_post(softmax, [{"text": "a", "is_correct": "on"}, {"text": "b"}])
    data["slug"] = question.slug
    response = instructor_client.post(
        reverse("admin:courses_question_change", args=[question.pk]), data
    )
    assert response.status_code == 200
    assert picker_groups(response)[0][0].endswith("Softmax")


def test_without_a_lesson_the_picker_groups_by_lesson(instructor_client, two_lessons):
    spread, _softmax = two_lessons
    response = instructor_client.get(reverse("admin:courses_question_add"))
    course = spread.course.title
    assert [label for label, _ in picker_groups(response)] == [
        f"{course} › Spread of q · k",
        f"{course} › Softmax",
    ]
    assert misconception_options(None)[1][1][0][1] == "a-softmax-linear: Softmax is linear"


def test_a_misconception_of_another_lesson_can_still_be_chosen(instructor_client, two_lessons):
    spread, softmax = two_lessons
    other = softmax.misconceptions.first()
    choices = [{"text": "$d_k$", "is_correct": "on"}, {"text": "$1$", "misconception": other.pk}]
    response = instructor_client.post(
        reverse("admin:courses_question_add"), question_post(spread, choices)
    )
    assert response.status_code == 302
    assert Question.objects.get().choices.get(is_correct=False).misconception == other


# --- the preview ------------------------------------------------------------------------------


def preview_of(response) -> str:
    html = response.content.decode()
    return html[html.index('id="learner-preview"') :]


def test_the_change_page_previews_choices_feedback_and_misconceptions(instructor_client):
    question = QuestionFactory(prompt="What is $\\operatorname{Var}(q \\cdot k)$?")
    misconception = MisconceptionFactory(lesson=question.lesson, title="Forgot $d_k$")
    ChoiceFactory(question=question, text="$d_k$", feedback="Yes: $d_k$ terms.", order=1)
    ChoiceFactory(
        question=question,
        text="$\\sqrt{d_k}$",
        is_correct=False,
        misconception=misconception,
        order=0,
    )
    response = instructor_client.get(reverse("admin:courses_question_change", args=[question.pk]))
    preview = preview_of(response)
    letters = re.findall(
        r'<span class="choice-letter">(\w)\.</span> <span class="sg-choice-text">(.*?)</span>',
        preview,
    )
    assert [letter for letter, _ in letters] == ["A", "B"]
    assert "<msqrt>" in letters[0][1]
    assert "<msqrt>" not in letters[1][1]
    assert "✗ Not correct" in preview
    assert "✓ Correct" in preview
    assert "Misconception: Forgot <math" in preview
    assert "Yes: <math" in preview
    assert "$" not in preview.split("</fieldset>")[0]


def test_a_script_in_a_choice_is_shown_as_text_never_run(instructor_client):
    question = QuestionFactory()
    ChoiceFactory(question=question, text=f"{SCRIPT} $d_k$", feedback=f"Try {SCRIPT}")
    response = instructor_client.get(reverse("admin:courses_question_change", args=[question.pk]))
    html = response.content.decode()
    assert SCRIPT not in html
    preview = preview_of(response)
    assert preview.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 2
    assert "<script" not in preview.split("</fieldset>")[0]


def test_the_preview_endpoint_renders_the_form_as_it_stands(instructor_client):
    lesson = LessonFactory()
    misconception = MisconceptionFactory(lesson=lesson, title="Std for variance")
    data = question_post(
        lesson,
        [
            {"text": "$d_k$", "is_correct": "on", "order": "2"},
            {"text": "Deleted $x$", "DELETE": "on"},
            {"text": "   "},
            {"text": f"{SCRIPT} $\\sqrt{{d_k}}$", "misconception": str(misconception.pk)},
        ],
    )
    data["choices-0-order"], data["choices-3-order"] = "2", "1"
    response = instructor_client.post(reverse("admin:courses_question_preview"), data)
    assert response.status_code == 200
    html = response.content.decode()
    assert SCRIPT not in html
    assert "&lt;script&gt;" in html
    assert "Deleted" not in html
    texts = re.findall(r'<span class="sg-choice-text">(.*?)</span><div', html)
    assert len(texts) == 2
    assert "<msqrt>" in texts[0]  # numbered 1 by the author, so shown first
    assert "Misconception: Std for variance" in html
    assert "<math" in html.split('<ol class="sg-preview-choices">')[0]  # the prompt


def test_the_preview_names_text_that_cannot_render(instructor_client):
    lesson = LessonFactory()
    data = question_post(lesson, [{"text": "$\\frac{1}$", "is_correct": "on"}])
    response = instructor_client.post(reverse("admin:courses_question_preview"), data)
    assert "Cannot render: missing argument in $\\frac{1}$" in response.content.decode()


def test_the_preview_endpoint_is_for_staff_with_a_csrf_token(two_lessons):
    spread, _ = two_lessons
    data = question_post(spread, [])
    url = reverse("admin:courses_question_preview")
    learner = Client()
    learner.force_login(UserFactory())
    assert learner.post(url, data).status_code == 302  # to the admin's login
    staff = Client(enforce_csrf_checks=True)
    staff.force_login(InstructorFactory())
    assert staff.post(url, data).status_code == 403
    assert staff.get(url).status_code == 405
    # Staff who may neither add nor change questions see no preview of one.
    author_of_nothing = Client()
    author_of_nothing.force_login(UserFactory(is_staff=True))
    assert author_of_nothing.post(url, data).status_code == 403
