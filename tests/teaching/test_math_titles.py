"""Titles with $math$ on the instructor pages read as the learners' pages show them: MathML in
the page, plain Unicode text in <title>, options, aria-labels and messages; never LaTeX source."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from courses.models import Misconception

pytestmark = pytest.mark.django_db

TITLE = "Spread of $\\sqrt{d_k}$"
PLAIN = "Spread of √dₖ"
SOURCE = "\\sqrt{d_k}"


@pytest.fixture
def math_titles(exam, learners):
    """Every authored title the instructor pages show, with a formula in it."""
    quiz = exam.quiz
    lesson = quiz.lesson
    for thing in (lesson.course, lesson, quiz, exam.problem, *Misconception.objects.all()):
        thing.title = TITLE
        thing.save(update_fields=["title"])
    return exam


def pages(exam, learners) -> dict[str, str]:
    course = exam.quiz.lesson.course
    quiz = exam.quiz
    attempt = learners["attempts"]["ann"][0]
    problem = exam.problem.slug
    return {
        "courses": reverse("teaching:courses"),
        "course": reverse("teaching:course", args=[course.slug]),
        "results": reverse("teaching:quiz-results", args=[quiz.slug]),
        "statistics": reverse("teaching:quiz-statistics", args=[quiz.slug]),
        "responses to the problem": reverse(
            "teaching:item-responses", args=[quiz.slug, exam.problem_item.pk]
        ),
        "responses to the question": reverse(
            "teaching:item-responses", args=[quiz.slug, exam.question_item.pk]
        ),
        "attempt": reverse("teaching:attempt", args=[attempt.pk]),
        "override": reverse("teaching:item-override", args=[attempt.pk, exam.question_item.pk]),
        "regrade": reverse("teaching:item-regrade", args=[exam.question_item.pk]),
        "regrade problem": reverse("teaching:item-regrade", args=[exam.problem_item.pk]),
        "problems": reverse("teaching:course-problems", args=[course.slug]),
        "parameters": reverse("teaching:problem-parameters", args=[course.slug, problem]),
        "new misconceptions": reverse(
            "teaching:problem-misconceptions", args=[course.slug, problem]
        ),
        "profile": reverse("teaching:course-misconceptions", args=[course.slug]),
        "learner": reverse("teaching:learner-profile", args=[course.slug, learners["ann"].pk]),
    }


def without_form_text(html: str) -> str:
    """The page less what an author typed into a form (a textarea keeps its source)."""
    return re.sub(r"<textarea.*?</textarea>", "", html, flags=re.S)


def test_no_instructor_page_shows_a_title_s_latex_source(client, people, math_titles, learners):
    client.force_login(people.instructor)
    shown = {}
    for name, url in pages(math_titles, learners).items():
        response = client.get(url)
        assert response.status_code == 200, name
        html = without_form_text(response.content.decode())
        title = re.search(r"<title>(.*?)</title>", html, re.S).group(1)
        if SOURCE in html:
            shown[name] = html[html.index(SOURCE) - 120 : html.index(SOURCE) + 40]
        assert "$" not in title, (name, title)
        if name not in ("courses", "learner"):  # their <title> names no authored title
            assert PLAIN in title, (name, title)
    assert shown == {}


def test_the_course_page_shows_each_title_s_formula_as_mathml(client, people, math_titles):
    client.force_login(people.instructor)
    course = math_titles.quiz.lesson.course
    html = client.get(reverse("teaching:course", args=[course.slug])).content.decode()
    assert html.count("<msqrt>") >= 3  # the course, the lesson and the quiz
    assert f"<title>{PLAIN} · Teaching" in html


def test_a_message_names_the_problem_in_plain_text(client, people, math_titles):
    """A message is plain text: the problem's formula reads √dₖ there, not as LaTeX."""
    course = math_titles.quiz.lesson.course
    args = [course.slug, math_titles.problem.slug]
    client.force_login(people.instructor)
    prefix = "group-0-note"
    note = {
        "form": prefix,
        "diagnosed": "exclude",
        f"{prefix}-relation": "times-sigma-q",
        f"{prefix}-formula": "answer * sigma_q",
        f"{prefix}-text": "Several learners multiply by σ_q once more.",
    }
    response = client.post(
        reverse("teaching:problem-misconception-name", args=args), note, follow=True
    )
    assert f"Note kept on {PLAIN}." in response.content.decode()
