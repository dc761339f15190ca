import pytest
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


def test_bad_parameters_are_refused_with_their_name(instructor_client):
    lesson = LessonFactory()
    data = {
        "lesson": lesson.pk,
        "title": "Variance",
        "slug": "variance-x",
        "order": 0,
        "family": "dot-variance",
        "params": '{"bogus": 1}',
        "prompt": "",
    }
    response = instructor_client.post(reverse("admin:courses_problem_add"), data)
    assert response.status_code == 200
    assert "bogus" in response.content.decode()
    assert not Problem.objects.exists()


@pytest.mark.parametrize("model", ["variant", "attempt", "response", "practicestreak"])
def test_learner_records_are_listed_for_instructors(instructor_client, model):
    assert instructor_client.get(reverse(f"admin:grading_{model}_changelist")).status_code == 200
