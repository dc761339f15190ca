"""Turning a discovered group into a named mistake of a formula problem or a note: who may, CSRF,
the mistake recognised by grading afterwards, and nothing created on invalid input."""

from __future__ import annotations

import math

import pytest
from django.test import Client
from django.urls import reverse

from courses.models import Misconception, Problem
from grading.models import Variant
from grading.services.practice import practice_answer_submit, practice_variant_new
from teaching.models import MisconceptionNote
from tests.factories import LessonFactory, MisconceptionFactory, UserFactory
from tests.teaching.problem_records import Discovered, discovered_build

pytestmark = pytest.mark.django_db

FORMULA = "(d_k * s^2) * sqrt(d_k)"


@pytest.fixture
def discovered(exam, course_a) -> Discovered:
    return discovered_build(exam.quiz.lesson)


def _urls(course, problem) -> tuple[str, str]:
    args = [course.slug, problem.slug]
    return (
        reverse("teaching:problem-misconceptions", args=args),
        reverse("teaching:problem-misconception-name", args=args),
    )


def mistake_post(**fields) -> dict[str, str]:
    prefix = "group-0-mistake"
    data = {
        "relation": "times-sqrt-d-k",
        "formula": FORMULA,
        "misconception": "new",
        "code": "root-width-multiplied",
        "title": "Multiplies by √d_k",
        "explanation": "The variance grows as $d_k$, not as $d_k^{3/2}$.",
        **fields,
    }
    return {
        "form": prefix,
        "diagnosed": "include",
        **{f"{prefix}-{name}": value for name, value in data.items()},
    }


def _unchanged(problem: Problem, codes: int) -> None:
    problem.refresh_from_db()
    assert set(problem.params["mistakes"]) == {"std-for-variance"}
    assert Misconception.objects.count() == codes
    assert MisconceptionNote.objects.count() == 0


def test_an_instructor_names_the_group_and_grading_recognises_it(
    client, people, course_a, discovered
):
    problem = discovered[0]
    page, name = _urls(course_a, problem)
    client.force_login(people.instructor)
    form_page = client.get(page).content.decode()
    assert 'name="group-0-mistake-formula"' in form_page
    assert f'value="{FORMULA}"' in form_page
    response = client.post(name, mistake_post())
    assert response.status_code == 302
    assert response["Location"] == page + "?diagnosed=include"

    named = Misconception.objects.get(code="root-width-multiplied")
    assert (named.lesson_id, named.title) == (problem.lesson_id, "Multiplies by √d_k")
    problem.refresh_from_db()
    assert problem.params["mistakes"]["root-width-multiplied"] == FORMULA
    after = client.get(page).content.decode()
    assert "now names the mistake root-width-multiplied" in after
    assert "The problem names this mistake: <code>root-width-multiplied</code>" in after

    # A variant made now carries the mistake: its value is named, with the misconception.
    learner = UserFactory()
    variant = practice_variant_new(user=learner, problem=problem)
    values = {**variant.givens["values"], **variant.grading_key.get("hidden_values", {})}
    mistaken = values["d_k"] * values["s"] ** 2 * math.sqrt(values["d_k"])
    graded = practice_answer_submit(user=learner, variant=variant, text=repr(mistaken))
    assert (graded.status, graded.misconception) == ("incorrect", "root-width-multiplied")
    # Variants made before keep their grading key: their answers keep their verdicts.
    earlier = Variant.objects.filter(problem=problem).exclude(pk=variant.pk)
    assert all("root-width-multiplied" not in v.grading_key["mistakes"] for v in earlier)


def test_a_misconception_of_the_lesson_can_name_it(client, people, course_a, discovered):
    problem = discovered[0]
    existing = MisconceptionFactory(lesson=problem.lesson, code="width-rooted-twice")
    client.force_login(people.instructor)
    response = client.post(
        _urls(course_a, problem)[1],
        mistake_post(misconception="width-rooted-twice", code="", title="", explanation=""),
    )
    assert response.status_code == 302
    problem.refresh_from_db()
    assert problem.params["mistakes"][existing.code] == FORMULA


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"formula": "d_k * s^2"}, "equals the answer"),
        ({"formula": "d_k * t"}, "In mistake &#x27;root-width-multiplied&#x27;"),
        ({"formula": ""}, "This field is required."),
        ({"code": "Root Width"}, "Use lowercase letters, digits and hyphens"),
        ({"code": "std-for-variance"}, "A misconception with the code"),
        ({"misconception": "std-for-variance"}, "already has the mistake"),
        ({"title": "  "}, "Give the misconception a title."),
        ({"explanation": ""}, "Explain to learners why the idea is wrong."),
        ({"explanation": "See $\\href{https://example.org}{this}$."}, "href"),
        ({"misconception": "elsewhere"}, "Select a valid choice."),
    ],
)
def test_invalid_input_creates_nothing_and_says_why(
    client, people, course_a, discovered, fields, error
):
    problem = discovered[0]
    MisconceptionFactory(lesson=LessonFactory(course=course_a), code="elsewhere")
    MisconceptionFactory(lesson=problem.lesson, code="std-for-variance")
    codes = Misconception.objects.count()
    client.force_login(people.instructor)
    response = client.post(_urls(course_a, problem)[1], mistake_post(**fields))
    assert response.status_code == 200
    html = response.content.decode()
    assert error in html
    # The form comes back open, with what the instructor typed.
    assert '<details class="name-form" open>' in html
    _unchanged(problem, codes)


def test_a_code_another_lesson_uses_is_refused(client, people, course_a, discovered):
    problem = discovered[0]
    MisconceptionFactory(lesson=LessonFactory(), code="root-width-multiplied")
    codes = Misconception.objects.count()
    client.force_login(people.instructor)
    response = client.post(_urls(course_a, problem)[1], mistake_post())
    assert "A misconception with the code" in response.content.decode()
    _unchanged(problem, codes)


def test_the_post_needs_the_csrf_token(people, course_a, discovered):
    problem = discovered[0]
    client = Client(enforce_csrf_checks=True)
    client.force_login(people.instructor)
    codes = Misconception.objects.count()
    response = client.post(_urls(course_a, problem)[1], mistake_post())
    assert response.status_code == 403
    _unchanged(problem, codes)
    # With the token the page's form carries, the same post goes through.
    client.get(_urls(course_a, problem)[0])
    token = client.cookies["csrftoken"].value
    response = client.post(
        _urls(course_a, problem)[1], {**mistake_post(), "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302


@pytest.mark.parametrize(
    ("who", "expected"),
    [("assistant", 403), ("other_assistant", 404), ("learner", 404), ("staff", 404)],
)
def test_only_the_course_s_instructors_may_post(
    client, people, course_a, discovered, who, expected
):
    problem = discovered[0]
    codes = Misconception.objects.count()
    client.force_login(getattr(people, who))
    assert client.post(_urls(course_a, problem)[1], mistake_post()).status_code == expected
    _unchanged(problem, codes)


def test_a_superuser_may_post_and_a_get_is_refused(client, people, course_a, discovered):
    problem = discovered[0]
    client.force_login(people.superuser)
    assert client.get(_urls(course_a, problem)[1]).status_code == 405
    assert client.post(_urls(course_a, problem)[1], mistake_post()).status_code == 302


def test_a_post_without_its_form_is_a_400(client, people, course_a, discovered):
    problem = discovered[0]
    client.force_login(people.instructor)
    data = mistake_post()
    data["form"] = "group-x-mistake"
    assert client.post(_urls(course_a, problem)[1], data).status_code == 400


def test_a_built_in_family_s_group_becomes_a_note(client, people, course_a, exam):
    """dot-variance keeps its mistakes in code: a note it is, shown on the page; a mistake is
    refused."""
    page, name = _urls(course_a, exam.problem)
    client.force_login(people.instructor)
    prefix = "group-0-note"
    note = {
        "form": prefix,
        "diagnosed": "exclude",
        f"{prefix}-relation": "times-sigma-q",
        f"{prefix}-formula": "answer * sigma_q",
        f"{prefix}-text": "Several learners multiply by σ_q once more.",
    }
    response = client.post(name, note)
    assert response.status_code == 302
    assert response["Location"] == page + "?diagnosed=exclude"
    kept = MisconceptionNote.objects.get()
    assert (kept.problem, kept.relation, kept.author, kept.author_name) == (
        exam.problem,
        "times-sigma-q",
        people.instructor,
        people.instructor.username,
    )
    html = client.get(page).content.decode()
    assert "Several learners multiply by σ_q once more." in html
    assert "<code>answer * sigma_q</code>" in html

    assert client.post(name, mistake_post()).status_code == 400


def test_an_empty_note_is_refused(client, people, course_a, exam):
    _, name = _urls(course_a, exam.problem)
    client.force_login(people.instructor)
    prefix = "group-0-note"
    response = client.post(
        name,
        {
            "form": prefix,
            f"{prefix}-relation": "times-sigma-q",
            f"{prefix}-formula": "answer * sigma_q",
            f"{prefix}-text": "   ",
        },
    )
    assert response.status_code == 200
    assert "This field is required." in response.content.decode()
    assert MisconceptionNote.objects.count() == 0


def test_a_form_for_a_group_no_longer_found_says_so_and_changes_nothing(
    client, people, course_a, discovered
):
    problem = discovered.problem
    prefix = "group-7-note"
    response = client.force_login(people.instructor) or client.post(
        _urls(course_a, problem)[1],
        {
            "form": prefix,
            f"{prefix}-relation": "times-sigma-q",
            f"{prefix}-formula": "answer * sigma_q",
            f"{prefix}-text": "",
        },
    )
    html = response.content.decode()
    assert "no longer found among the answers: nothing was changed" in html
    assert "This field is required." in html
    assert MisconceptionNote.objects.count() == 0
