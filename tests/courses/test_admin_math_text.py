"""No raw LaTeX where an instructor reads a title in the admin: change lists, filters,
breadcrumbs, page titles, messages and pickers show math as plain Unicode text."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from courses.models import Choice, KeyTerm, Misconception, Pool, Problem, Question, Quiz
from grading.formula_form import MistakeForm
from teaching.accommodations.forms import AccommodationForm
from tests.factories import CourseFactory, LessonFactory

pytestmark = pytest.mark.django_db

TITLE = "Why divide by $\\sqrt{d_k}$"
PLAIN = "Why divide by √dₖ"


class _Cells(HTMLParser):
    """The text of each cell of the change list's result table, row by row."""

    def __init__(self):
        super().__init__()
        self.rows: list[list[str]] = []
        self.inside = self.cell = False

    def handle_starttag(self, tag, attrs):
        if tag == "table" and ("id", "result_list") in attrs:
            self.inside = True
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag in ("td", "th") and self.rows:
            self.cell = True
            self.rows[-1].append("")

    def handle_endtag(self, tag):
        if tag == "table":
            self.inside = False
        elif tag in ("td", "th"):
            self.cell = False

    def handle_data(self, data):
        if self.inside and self.cell:
            self.rows[-1][-1] += data


@pytest.fixture
def content():
    course = CourseFactory(title=f"Course: {TITLE}")
    lesson = LessonFactory(course=course, title=TITLE, order=1)
    misconception = Misconception.objects.create(
        code="std-for-variance", lesson=lesson, title=TITLE, explanation="Why."
    )
    KeyTerm.objects.create(lesson=lesson, slug="width", term=TITLE, definition="The width.")
    question = Question.objects.create(lesson=lesson, slug="q-why", title=TITLE, prompt=TITLE)
    Choice.objects.create(question=question, text="$\\sqrt{d_k}$", is_correct=True)
    Choice.objects.create(
        question=question, text="$d_k$", is_correct=False, misconception=misconception
    )
    quiz = Quiz.objects.create(
        lesson=lesson, slug="check", title=TITLE, mode="exam", show_feedback="after_submission"
    )
    problem = Problem.objects.create(
        lesson=lesson,
        slug="spread",
        title=TITLE,
        family="formula",
        params={
            "variables": {"d_k": {"choices": [64]}},
            "answer": "sqrt(d_k)",
            "prompt": "$\\sqrt{d_k}$ for $d_k = {@d_k@}$?",
        },
    )
    pool = Pool.objects.create(lesson=lesson, slug="pool", title=TITLE)
    pool.problems.add(problem)
    return {
        "course": course,
        "lesson": lesson,
        "quiz": quiz,
        "problem": problem,
        "pool": pool,
        "misconception": misconception,
        "question": question,
    }


@pytest.mark.parametrize(
    ("model", "columns"),
    [
        ("course", {0: f"Course: {PLAIN}"}),
        ("lesson", {0: PLAIN, 1: f"Course: {PLAIN}"}),
        ("keyterm", {0: PLAIN, 2: f"Course: {PLAIN} › 1. {PLAIN}"}),
        ("misconception", {1: PLAIN, 2: f"Course: {PLAIN} › 1. {PLAIN}"}),
        ("question", {1: PLAIN, 3: f"Course: {PLAIN} › 1. {PLAIN}"}),
        ("problem", {0: PLAIN, 3: f"Course: {PLAIN} › 1. {PLAIN}"}),
        ("quiz", {0: PLAIN, 2: f"Course: {PLAIN} › 1. {PLAIN}"}),
        ("pool", {0: PLAIN, 2: f"Course: {PLAIN} › 1. {PLAIN}"}),
    ],
)
def test_every_change_list_column_shows_plain_text(admin_client, content, model, columns):
    page = admin_client.get(reverse(f"admin:courses_{model}_changelist"))
    assert page.status_code == 200
    parser = _Cells()
    parser.feed(page.content.decode())
    header, *rows = parser.rows
    cells = [cell.strip() for cell in rows[0][1:]]  # after the action checkbox
    for position, text in columns.items():
        assert cells[position] == text, (model, header)
    for cell in cells:
        assert "$" not in cell
        assert "\\" not in cell
    # Nowhere on the page either: not in the lesson filter, not in a hidden label.
    assert "\\sqrt" not in page.content.decode()


def test_a_title_column_still_sorts_by_the_title(admin_client, content):
    Quiz.objects.create(lesson=content["lesson"], slug="another", title="A first quiz")
    page = admin_client.get(reverse("admin:courses_quiz_changelist") + "?o=1")
    parser = _Cells()
    parser.feed(page.content.decode())
    assert [row[1].strip() for row in parser.rows[1:]] == ["A first quiz", PLAIN]


def test_the_change_page_title_breadcrumbs_and_message_are_plain(admin_client, content):
    misconception = content["misconception"]
    url = reverse("admin:courses_misconception_change", args=[misconception.pk])
    page = admin_client.get(url).content.decode()
    title = re.search(r"<title>(.*?)</title>", page, re.S).group(1)
    assert f"std-for-variance: {PLAIN}" in title
    breadcrumbs = page.split('class="breadcrumbs"')[1].split("</div>")[0]
    assert f"std-for-variance: {PLAIN}" in breadcrumbs
    assert "$" not in title + breadcrumbs
    response = admin_client.post(
        url,
        {
            "code": misconception.code,
            "lesson": content["lesson"].pk,
            "title": TITLE,
            "explanation": "Why, again.",
        },
    )
    assert response.status_code == 302
    [message] = [str(m) for m in get_messages(response.wsgi_request)]
    assert f">std-for-variance: {PLAIN}</a>” was changed" in message
    assert "$" not in message
    assert "\\" not in message


def test_the_formula_forms_misconception_picker_shows_plain_labels(content):
    form = MistakeForm(misconceptions=Misconception.objects.all())
    labels = [label for value, label in form.fields["misconception"].choices if value]
    assert labels == [f"std-for-variance: {PLAIN}"]


def test_the_accommodations_quiz_picker_shows_plain_labels(content):
    form = AccommodationForm(course=content["course"])
    labels = [label for value, label in form.fields["quiz"].choices if value]
    assert labels == [f"{PLAIN} (Exam)"]


def test_str_of_every_content_model_is_plain(content):
    question = content["question"]
    texts = [
        str(content["course"]),
        str(content["lesson"]),
        str(content["misconception"]),
        str(KeyTerm.objects.get()),
        str(content["quiz"]),
        str(content["problem"]),
        str(content["pool"]),
        *(str(choice) for choice in question.choices.all()),
    ]
    assert texts == [
        f"Course: {PLAIN}",
        f"Course: {PLAIN} › 1. {PLAIN}",
        f"std-for-variance: {PLAIN}",
        PLAIN,
        f"{PLAIN} (Exam)",
        f"{PLAIN} [formula]",
        f"{PLAIN} (pool)",
        "✓ √dₖ",
        "✗ dₖ",
    ]


def test_a_long_choice_is_cut_after_its_math_is_plain():
    lesson = LessonFactory()
    question = Question.objects.create(lesson=lesson, slug="q-long", prompt="?")
    choice = Choice.objects.create(
        question=question, text="$\\sqrt{d_k}$ " + "because the width grows " * 4, is_correct=True
    )
    assert str(choice).startswith("✓ √dₖ because")
    assert str(choice).endswith("…")
    assert len(str(choice)) == 62
