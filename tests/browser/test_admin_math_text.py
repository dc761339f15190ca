"""An instructor reads titles with math in the admin as plain text: the change lists and the
formula form's misconception picker show "√dₖ", never "$\\sqrt{d_k}$"; axe finds nothing serious
at 1280 and 375 px."""

from __future__ import annotations

import pytest

from courses.models import Misconception, Pool, Problem, Quiz
from tests.browser.conftest import PASSWORD, log_in
from tests.browser.test_accessibility import serious_violations

pytestmark = pytest.mark.django_db(transaction=True)

TITLE = "Why divide by $\\sqrt{d_k}$"
PLAIN = "Why divide by √dₖ"


@pytest.fixture
def instructor(transactional_db):
    from tests.factories import CourseFactory, InstructorFactory, LessonFactory

    user = InstructorFactory(username="grace")
    user.set_password(PASSWORD)
    user.save()
    lesson = LessonFactory(course=CourseFactory(title=f"Attention: {TITLE}"), title=TITLE)
    Misconception.objects.create(
        code="std-for-variance", lesson=lesson, title=TITLE, explanation="Why."
    )
    Quiz.objects.create(
        lesson=lesson, slug="check", title=TITLE, mode="exam", show_feedback="after_submission"
    )
    problem = Problem.objects.create(
        lesson=lesson,
        slug="spread",
        title=TITLE,
        family="formula",
        params={
            "variables": {"d_k": {"choices": [16, 64]}},
            "answer": "d_k",
            "mistakes": {"std-for-variance": "sqrt(d_k)"},
            "prompt": "Why $\\sqrt{d_k}$ for $d_k = {@d_k@}$?",
        },
    )
    Pool.objects.create(lesson=lesson, slug="pool", title=TITLE).problems.add(problem)
    return user


PAGES = {
    "quizzes": "/admin/courses/quiz/",
    "problems": "/admin/courses/problem/",
    "misconceptions": "/admin/courses/misconception/",
    "pools": "/admin/courses/pool/",
}


def _no_latex(text: str, where: str) -> None:
    assert "$" not in text, where
    assert "\\" not in text, where


@pytest.mark.parametrize("viewport", ["page", "phone_page"])
def test_change_lists_and_the_misconception_picker_show_plain_math(
    request, viewport, live_server, instructor
):
    page = request.getfixturevalue(viewport)
    log_in(page, live_server, instructor)
    for name, path in PAGES.items():
        page.goto(live_server.url + path)
        table = page.locator("#result_list")
        text = table.inner_text()
        assert PLAIN in text, name
        _no_latex(text, name)
        _no_latex(page.title(), name)
        assert serious_violations(page) == [], name
    problem = Problem.objects.get()
    page.goto(f"{live_server.url}/admin/courses/problem/{problem.pk}/formula/")
    picker = page.locator("select[name$='-misconception']").first
    labels = picker.locator("option").all_inner_texts()
    assert f"std-for-variance: {PLAIN}" in labels
    for label in labels:
        _no_latex(label, "misconception picker")
    breadcrumbs = page.locator(".breadcrumbs").inner_text()
    assert PLAIN in breadcrumbs
    _no_latex(breadcrumbs + page.title(), "formula form")
    assert serious_violations(page) == [], "formula form"
