"""The formula problem editor in the admin: fields instead of JSON, errors on their field and
column, the 50-seed count, the refusal rules, the preview and who may use it."""

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from courses.models import Misconception, Problem
from grading.formula_form import initial_from_params
from tests.factories import InstructorFactory, LessonFactory, UserFactory

pytestmark = pytest.mark.django_db

PARAMS = {
    "variables": {"d_k": {"choices": [1, 4, 16, 64]}, "s": {"min": 0.5, "max": 2, "step": 0.5}},
    "answer": "d_k * s^2",
    "mistakes": {"std-for-variance": "sqrt(d_k) * s^2"},
    "prompt": "Components have standard deviation {@s@} and $d_k = {@d_k@}$. Variance?",
}


@pytest.fixture
def problem():
    lesson = LessonFactory()
    Misconception.objects.create(
        code="std-for-variance", lesson=lesson, title="Std for variance", explanation="Why."
    )
    return Problem.objects.create(
        lesson=lesson, title="Variance", slug="variance", family="formula", params=PARAMS
    )


@pytest.fixture
def staff(client):
    client.force_login(InstructorFactory())
    return client


def editor_url(problem):
    return reverse("admin:courses_problem_formula", args=[problem.pk])


def preview_url(problem):
    return reverse("admin:courses_problem_formula_preview", args=[problem.pk])


def post_data(**changes):
    """The editor's fields for PARAMS, as the browser posts them, with changes."""
    data = {
        "prompt": PARAMS["prompt"],
        "shape": "number",
        "answer": "d_k * s^2",
        "atol": "",
        "rtol": "",
        "solution": "",
        "seed": "",
        "variables-TOTAL_FORMS": "3",
        "variables-INITIAL_FORMS": "2",
        "variables-0-name": "d_k",
        "variables-0-kind": "list",
        "variables-0-values": "1, 4, 16, 64",
        "variables-1-name": "s",
        "variables-1-kind": "range",
        "variables-1-min": "0.5",
        "variables-1-max": "2",
        "variables-1-step": "0.5",
        "variables-2-kind": "range",
        "mistakes-TOTAL_FORMS": "2",
        "mistakes-INITIAL_FORMS": "1",
        "mistakes-0-code": "std-for-variance",
        "mistakes-0-formula": "sqrt(d_k) * s^2",
        "mistakes-0-misconception": "",
        "mistakes-0-feedback": "",
        "properties-TOTAL_FORMS": "1",
        "properties-INITIAL_FORMS": "0",
    }
    data.update(changes)
    return data


def errors_of(response):
    return response.content.decode()


def test_the_editor_shows_the_params_as_fields_with_a_preview(staff, problem):
    html = staff.get(editor_url(problem)).content.decode()
    assert 'name="variables-0-name" value="d_k"' in html
    assert 'value="1, 4, 16, 64"' in html
    assert 'name="answer" value="d_k * s^2"' in html
    assert html.count('class="formula-variant"') == 3
    assert "<math" in html  # the prompt's math is rendered as learners see it
    assert 'src="/static/js/formula-preview.js"' in html
    assert "<script>" not in html.replace('<script src="', "")


def test_the_preview_shows_the_problem_s_own_prompt_above_each_variant(staff, problem):
    Problem.objects.filter(pk=problem.pk).update(prompt="Recall that $a^2$ is a square.")
    html = staff.post(preview_url(problem), post_data()).content.decode()
    assert html.count("Recall that") == 3
    assert "<math" in html


def test_any_seed_can_be_previewed_on_the_saved_problem(staff, problem):
    html = staff.get(editor_url(problem), {"seed": "99"}).content.decode()
    assert html.count('class="formula-variant"') == 1
    assert 'data-seed="99"' in html


def test_the_change_page_links_the_editor_and_shows_no_json_to_edit(staff, problem):
    html = staff.get(reverse("admin:courses_problem_change", args=[problem.pk])).content.decode()
    assert editor_url(problem) in html
    assert 'name="params"' not in html
    assert 'name="family"' not in html


def test_saving_writes_the_params_the_engine_reads(staff, problem):
    response = staff.post(editor_url(problem), post_data())
    assert response.status_code == 302
    problem.refresh_from_db()
    assert problem.params == PARAMS


def test_saving_a_mistake_with_its_own_misconception_and_feedback(staff, problem):
    other = Misconception.objects.create(
        code="forgot-square", lesson=problem.lesson, title="Forgot", explanation="x"
    )
    data = post_data(
        **{
            "mistakes-1-code": "no-square",
            "mistakes-1-formula": "d_k * s",
            "mistakes-1-misconception": other.code,
            "mistakes-1-feedback": "Square the deviation.",
            "variables-0-decimals": "1",
        }
    )
    assert staff.post(editor_url(problem), data).status_code == 302
    problem.refresh_from_db()
    assert problem.params["mistakes"]["no-square"] == {
        "formula": "d_k * s",
        "misconception": "forgot-square",
        "feedback": "Square the deviation.",
    }
    assert problem.params["variables"]["d_k"] == {"choices": [1, 4, 16, 64], "decimals": 1}


def test_a_vector_answer_is_saved_as_a_list_of_formulas(staff, problem):
    data = post_data(
        shape="vector",
        answer="[d_k * s, d_k + s]",
        **{"mistakes-0-formula": "[d_k + s, d_k * s]"},
    )
    assert staff.post(editor_url(problem), data).status_code == 302
    problem.refresh_from_db()
    assert problem.params["shape"] == "vector"
    assert problem.params["answer"] == ["d_k * s", "d_k + s"]
    html = staff.get(editor_url(problem)).content.decode()
    assert 'value="[d_k * s, d_k + s]"' in html


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"answer": "d_kk * s"}, "answer", "unknown name &#x27;d_kk&#x27; at column 1"),
        (
            {"mistakes-0-formula": "sqrt(d_k) * ss"},
            "mistakes-0-formula",
            "unknown name &#x27;ss&#x27; at column 13",
        ),
        ({"variables-1-step": "0"}, "variables-1-step", "step must be positive"),
        ({"variables-1-step": "half"}, "variables-1-step", "Enter a number"),
        ({"variables-0-values": "1, x"}, "variables-0-values", "separated by commas"),
        ({"variables-1-name": "pi"}, "variables-1-name", "reserved"),
        ({"mistakes-0-code": "unknown-code"}, "mistakes-0-misconception", "Pick the misconception"),
        ({"atol": "0.1"}, "atol", "set both atol and rtol"),
        ({"shape": "matrix", "answer": "[[d_k, s], [s]]"}, "answer", "rows of formulas"),
        (
            {"variables-2-name": "s", "variables-2-kind": "list", "variables-2-values": "3"},
            "variables-2-name",
            "Another variable is named &#x27;s&#x27;",
        ),
        (
            {"mistakes-1-code": "std-for-variance", "mistakes-1-formula": "2 * d_k"},
            "mistakes-1-code",
            "Another mistake has the code",
        ),
        # The old placeholder syntax is refused on its field, with the new one.
        ({"prompt": "Spread {s}?"}, "prompt", "placeholders are written {@s@}"),
        ({"solution": "$d_k = {d_k}$"}, "solution", "write {@d_k@} to show the value"),
        ({"prompt": "Spread {@sigma@}?"}, "prompt", "{@sigma@} names no variable"),
    ],
)
def test_errors_point_to_their_field(staff, problem, changes, field, message):
    response = staff.post(editor_url(problem), post_data(**changes))
    assert response.status_code == 200
    html = response.content.decode()
    assert message in html
    # The message sits in the error list rendered just before that field's input.
    errors_at = html.index(message)
    assert html.index(f'name="{field}"', errors_at) - errors_at < 600
    problem.refresh_from_db()
    assert problem.params == PARAMS  # nothing saved


def test_the_form_counts_the_seeds_where_a_mistake_is_withheld(staff, problem):
    html = staff.get(editor_url(problem)).content.decode()
    # sqrt(d_k) * s^2 equals d_k * s^2 exactly when d_k is 1.
    from grading import engine

    count = engine.check_formula(PARAMS).withheld["std-for-variance"]
    assert 0 < count < 50
    assert f"equals the answer for {count} of 50 seeds" in html


def test_a_mistake_always_equal_to_the_answer_is_refused(staff, problem):
    response = staff.post(editor_url(problem), post_data(**{"mistakes-0-formula": "s^2 * d_k"}))
    html = response.content.decode()
    assert "equals the answer for every one of 50 seeds" in html
    problem.refresh_from_db()
    assert problem.params == PARAMS


def test_a_value_that_is_not_finite_is_refused(staff, problem):
    response = staff.post(editor_url(problem), post_data(answer="d_k / (s - 0.5)"))
    assert "the answer is not a finite number for seed" in response.content.decode()
    problem.refresh_from_db()
    assert problem.params == PARAMS


def test_the_preview_button_previews_without_saving(staff, problem):
    data = post_data(answer="3 * d_k * s^2", seed="77", _preview="Preview")
    html = staff.post(editor_url(problem), data).content.decode()
    assert html.count('class="formula-variant"') == 1
    assert 'data-seed="77"' in html
    problem.refresh_from_db()
    assert problem.params == PARAMS


def test_the_preview_endpoint_renders_the_typed_formula(staff, problem):
    from grading import engine

    data = post_data(answer="3 * d_k * s^2", seed="5")
    html = staff.post(preview_url(problem), data).content.decode()
    edited = dict(PARAMS, answer="3 * d_k * s^2")
    variant = engine.make_variant(engine.get_family("formula"), edited, 5)
    assert f'<code class="formula-answer">{engine.format_answer(variant.answer)}</code>' in html
    assert "<html" not in html
    broken = staff.post(preview_url(problem), post_data(answer="d_kk")).content.decode()
    assert "Fix the errors marked on the form" in broken


def test_the_preview_endpoint_takes_only_posts(staff, problem):
    assert staff.get(preview_url(problem)).status_code == 405


def test_the_preview_is_refused_to_anyone_without_change_permission(client, problem):
    url = preview_url(problem)
    assert client.post(url, post_data()).status_code == 302  # anonymous: to the admin sign-in
    learner = UserFactory()
    client.force_login(learner)
    assert client.post(url, post_data()).status_code == 302  # not staff: the admin sign-in
    assert client.get(editor_url(problem)).status_code == 302
    viewer = UserFactory(is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_problem"))
    client.force_login(viewer)
    assert client.post(url, post_data()).status_code == 403
    assert client.get(editor_url(problem)).status_code == 403
    assert client.post(editor_url(problem), post_data(answer="2 * d_k")).status_code == 403
    problem.refresh_from_db()
    assert problem.params == PARAMS


def test_the_preview_needs_the_csrf_token(problem):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(InstructorFactory())
    assert client.post(preview_url(problem), post_data()).status_code == 403


def test_other_families_have_no_formula_editor(staff):
    other = Problem.objects.create(
        lesson=LessonFactory(), title="Dot", slug="dot", family="dot-variance", params={}
    )
    assert staff.get(editor_url(other)).status_code == 404
    html = staff.get(reverse("admin:courses_problem_change", args=[other.pk])).content.decode()
    assert 'name="params"' in html


def test_a_new_formula_problem_starts_from_an_example_and_opens_in_the_editor(staff):
    lesson = LessonFactory()
    data = {
        "lesson": lesson.pk,
        "title": "New",
        "slug": "new-formula",
        "order": 0,
        "family": "formula",
        "params": "{}",
        "prompt": "",
        "solution_after_tries": 3,
    }
    response = staff.post(reverse("admin:courses_problem_add"), data)
    problem = Problem.objects.get(slug="new-formula")
    assert response.url == editor_url(problem)
    assert problem.params["answer"] == "2 * x"


def test_a_fixed_answer_without_variables_is_saved(staff, problem):
    data = post_data(
        prompt="What is 5/2?",
        answer="5/2",
        **{"variables-0-DELETE": "on", "variables-1-DELETE": "on", "mistakes-0-formula": "2/5"},
    )
    assert staff.post(editor_url(problem), data).status_code == 302
    problem.refresh_from_db()
    assert problem.params["variables"] == {}
    assert problem.params["answer"] == "5/2"


def test_the_form_lists_variables_by_name_whatever_order_the_database_kept():
    """PostgreSQL's jsonb hands keys back shortest first; the form lists them by name on every
    database."""
    problem = Problem(
        family="formula",
        params={**PARAMS, "variables": {"s": {"choices": [1]}, "d_k": {"choices": [4]}}},
    )
    _, variables, _ = initial_from_params(problem)
    assert [row["name"] for row in variables] == ["d_k", "s"]
