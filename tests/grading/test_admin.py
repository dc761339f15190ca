import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from courses.models import Problem
from tests.factories import InstructorFactory, LessonFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def instructor_client(client):
    client.force_login(InstructorFactory())
    return client


def test_problem_page_previews_variants_with_answers(instructor_client, shipped_bank):
    problem = Problem.objects.get(slug="dot-variance")
    html = instructor_client.get(
        reverse("admin:courses_problem_change", args=[problem.pk])
    ).content.decode()
    assert html.count("<h4>Seed") == 3
    assert "Answer: <code>" in html
    assert "std-for-variance" in html
    assert "<math" in html


def test_any_seed_can_be_previewed(instructor_client, shipped_bank):
    problem = Problem.objects.get(slug="softmax")
    url = reverse("admin:courses_problem_change", args=[problem.pk])
    html = instructor_client.get(url, {"seed": "12345"}).content.decode()
    assert "<h4>Seed 12345</h4>" in html


def problem_post(**changes) -> dict:
    """The admin's add form for a dot-variance problem of a new lesson, with changes."""
    return {
        "lesson": LessonFactory().pk,
        "title": "Variance",
        "slug": "variance-x",
        "order": 0,
        "family": "dot-variance",
        "params": "{}",
        "prompt": "",
        "solution_after_tries": 3,
        **changes,
    }


def test_bad_parameters_are_refused_with_their_name(instructor_client):
    data = problem_post(params='{"bogus": 1}')
    response = instructor_client.post(reverse("admin:courses_problem_add"), data)
    assert response.status_code == 200
    assert "bogus" in response.content.decode()
    assert not Problem.objects.exists()


@pytest.mark.parametrize("model", ["variant", "attempt", "response", "practicestreak"])
def test_learner_records_are_listed_for_instructors(instructor_client, model):
    assert instructor_client.get(reverse(f"admin:grading_{model}_changelist")).status_code == 200


FORMULA = {
    "variables": {"d_k": {"choices": [16, 64, 256]}, "s": {"min": 0.5, "max": 2, "step": 0.5}},
    "answer": "d_k * s^2",
    "mistakes": {"std-for-variance": "sqrt(d_k) * s"},
    "prompt": "Components have standard deviation {@s@} and $d_k = {@d_k@}$. What is the variance?",
    "version": 1,
}


def formula_post(lesson, params: dict) -> dict:
    import json

    return {
        "lesson": lesson.pk,
        "title": "Variance by formula",
        "slug": "variance-formula",
        "order": 0,
        "family": "formula",
        "params": json.dumps(params),
        "prompt": "",
        "solution_after_tries": 3,
    }


def test_instructors_author_formula_problems_without_python(instructor_client, shipped_bank):
    from courses.models import Lesson

    lesson = Lesson.objects.get()
    response = instructor_client.post(
        reverse("admin:courses_problem_add"), formula_post(lesson, FORMULA)
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    problem = Problem.objects.get(slug="variance-formula")
    html = instructor_client.get(
        reverse("admin:courses_problem_change", args=[problem.pk])
    ).content.decode()
    assert html.count("<h4>Seed") == 3


def test_a_formula_whose_mistake_equals_the_answer_is_refused(instructor_client, shipped_bank):
    from courses.models import Lesson

    broken = dict(FORMULA, mistakes={"std-for-variance": "s^2 * d_k"})
    response = instructor_client.post(
        reverse("admin:courses_problem_add"), formula_post(Lesson.objects.get(), broken)
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "std-for-variance" in html
    assert "seed" in html
    assert not Problem.objects.filter(slug="variance-formula").exists()


def test_a_formula_mistake_must_name_a_misconception(instructor_client, shipped_bank):
    from courses.models import Lesson

    unknown = dict(FORMULA, mistakes={"not-a-code": "sqrt(d_k) * s"})
    response = instructor_client.post(
        reverse("admin:courses_problem_add"), formula_post(Lesson.objects.get(), unknown)
    )
    assert "no misconception has the code &#x27;not-a-code&#x27;" in response.content.decode()
    assert not Problem.objects.filter(slug="variance-formula").exists()


def test_a_formula_property_checks_misconception_must_be_in_the_bank(
    instructor_client, shipped_bank
):
    from courses.models import Lesson

    checks = [{"check": "x > 0", "feedback": "Positive.", "misconception": "no-such-idea"}]
    response = instructor_client.post(
        reverse("admin:courses_problem_add"),
        formula_post(Lesson.objects.get(), dict(FORMULA, properties=checks)),
    )
    html = response.content.decode()
    assert "properties.1.misconception: no misconception has the code &#x27;no-such-idea&#x27;" in (
        html
    )
    assert not Problem.objects.filter(slug="variance-formula").exists()


def test_adding_a_user_in_the_admin_refuses_names_kept_for_lms_learners(instructor_client):
    url = reverse("admin:auth_user_add")
    form = {"username": "LTI-0123abcd", "usable_password": "false"}
    response = instructor_client.post(url, form)
    assert response.status_code == 200
    assert "kept for the accounts of learners who come from an LMS" in response.content.decode()
    assert not get_user_model().objects.filter(username__iexact="lti-0123abcd").exists()
    # Any other name is added as before.
    response = instructor_client.post(url, {**form, "username": "ada"})
    assert response.status_code == 302
    assert get_user_model().objects.filter(username="ada").exists()


def test_instructors_set_when_a_problems_worked_solution_is_offered(instructor_client):
    data = problem_post(slug="variance-solution", solution_after_tries=5)
    response = instructor_client.post(reverse("admin:courses_problem_add"), data)
    assert response.status_code == 302
    assert Problem.objects.get(slug="variance-solution").solution_after_tries == 5
    refused = instructor_client.post(
        reverse("admin:courses_problem_add"),
        problem_post(slug="variance-never", solution_after_tries=0),
    )
    assert refused.status_code == 200
    assert "Ensure this value is greater than or equal to 1" in refused.content.decode()
    assert not Problem.objects.filter(slug="variance-never").exists()


def test_instructors_mark_a_problem_exam_only(instructor_client):
    data = problem_post(slug="variance-exam", exam_only="on")
    response = instructor_client.post(reverse("admin:courses_problem_add"), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Problem.objects.get(slug="variance-exam").exam_only
    listing = instructor_client.get(
        reverse("admin:courses_problem_changelist"), {"exam_only__exact": "1"}
    )
    assert "variance-exam" in listing.content.decode()
