"""Property checks in the formula editor: rows that round-trip into the params, errors placed on
their row's field (so the live preview marks it), and each check's result in the preview."""

import re

import pytest

from courses.models import Misconception, Problem
from tests.factories import InstructorFactory, LessonFactory
from tests.grading.test_admin_formula import PARAMS, editor_url, post_data, preview_url

pytestmark = pytest.mark.django_db

CHECKS = [
    {"check": "x >= d_k * 0.25", "feedback": "A sum of d_k terms is at least this large."},
    {"check": "x > 0", "feedback": "A variance is positive.", "misconception": "negative-var"},
]


@pytest.fixture
def problem():
    lesson = LessonFactory()
    for code in ("std-for-variance", "negative-var"):
        Misconception.objects.create(code=code, lesson=lesson, title=code, explanation="Why.")
    return Problem.objects.create(
        lesson=lesson, title="Variance", slug="variance", family="formula", params=PARAMS
    )


@pytest.fixture
def staff(client):
    client.force_login(InstructorFactory())
    return client


def with_checks(*rows, **changes):
    data = post_data(**changes)
    data["properties-TOTAL_FORMS"] = str(len(rows) + 1)
    for index, row in enumerate(rows):
        data[f"properties-{index}-check"] = row["check"]
        data[f"properties-{index}-feedback"] = row["feedback"]
        data[f"properties-{index}-misconception"] = row.get("misconception", "")
    return data


def named_fields(html: str) -> dict[str, str]:
    return dict(re.findall(r'<li data-field="([^"]+)">([^<]*):', html))


def test_checks_are_saved_into_the_params_in_order_and_shown_again(staff, problem):
    assert staff.post(editor_url(problem), with_checks(*CHECKS)).status_code == 302
    problem.refresh_from_db()
    assert problem.params == {**PARAMS, "properties": CHECKS}
    page = staff.get(editor_url(problem)).content.decode()
    assert 'name="properties-0-check" value="x &gt;= d_k * 0.25"' in page
    assert '<option value="negative-var" selected>' in page
    assert "Property checks (run before the mistakes)" in page
    # Saved again unchanged, the rows give the same params.
    again = with_checks(*CHECKS)
    again["properties-INITIAL_FORMS"] = "2"
    assert staff.post(editor_url(problem), again).status_code == 302
    problem.refresh_from_db()
    assert problem.params["properties"] == CHECKS


def test_a_deleted_or_blank_row_leaves_no_check(staff, problem):
    data = with_checks(*CHECKS)
    data["properties-0-DELETE"] = "on"
    assert staff.post(editor_url(problem), data).status_code == 302
    problem.refresh_from_db()
    assert problem.params["properties"] == [CHECKS[1]]
    last = with_checks(CHECKS[1], **{"properties-INITIAL_FORMS": "1", "properties-0-DELETE": "on"})
    assert staff.post(editor_url(problem), last).status_code == 302
    problem.refresh_from_db()
    assert "properties" not in problem.params


def test_a_check_the_right_answer_fails_is_refused_on_its_row_with_the_seed(staff, problem):
    wrong = {"check": "x < d_k", "feedback": "Too large."}
    response = staff.post(editor_url(problem), with_checks(CHECKS[0], wrong))
    assert response.status_code == 200
    html = staff.post(preview_url(problem), with_checks(CHECKS[0], wrong)).content.decode()
    assert named_fields(html) == {"id_properties-1-check": "Property check 2: Check"}
    assert re.search(r"check 2 fails for the right answer for seed \d+ \(d_k=", html)
    problem.refresh_from_db()
    assert "properties" not in problem.params


@pytest.mark.parametrize(
    ("row", "field", "message"),
    [
        ({"check": "sum(y) = 1", "feedback": "f"}, "check", "In check 1: unknown name"),
        ({"check": "x[1] > 0", "feedback": "f"}, "check", "a number has no entries to index"),
        ({"check": "x > 0", "feedback": ""}, "feedback", "This field is required."),
    ],
)
def test_a_bad_check_is_marked_on_its_field(staff, problem, row, field, message):
    html = staff.post(preview_url(problem), with_checks(row)).content.decode()
    assert f"id_properties-0-{field}" in named_fields(html)
    assert message in html


def test_the_preview_shows_each_checks_result_for_the_right_answer(staff, problem):
    html = staff.post(preview_url(problem), with_checks(*CHECKS)).content.decode()
    assert "data-field" not in html
    for seed in (1, 2, 3):
        article = html.split(f'data-seed="{seed}"')[1].split("</article>")[0]
        assert "Property check 1 <code>x &gt;= d_k * 0.25</code>: holds for the right answer" in (
            article
        )
        assert "Property check 2 <code>x &gt; 0</code>: holds for the right answer" in article
