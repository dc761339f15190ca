"""The live preview of a form with errors names each field it complains about, by the field's id,
so the page's script marks exactly those fields; a fixed form names none."""

import re

import pytest

from courses.models import Misconception, Problem
from grading.formula_preview import FieldProblem, field_problems
from tests.factories import InstructorFactory, LessonFactory
from tests.grading.test_admin_formula import PARAMS, post_data, preview_url

pytestmark = pytest.mark.django_db


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


def named_fields(html: str) -> dict[str, str]:
    return dict(re.findall(r'<li data-field="([^"]+)">([^<]*):', html))


def test_the_preview_names_the_answer_field_it_complains_about(staff, problem):
    html = staff.post(preview_url(problem), post_data(answer="d_kk")).content.decode()
    assert named_fields(html) == {"id_answer": "Answer"}
    assert 'class="formula-problem-message"' in html


def test_a_row_s_field_is_named_by_its_id_and_row(staff, problem):
    data = post_data(**{"mistakes-0-formula": "sqrt(d_k) *"})
    html = staff.post(preview_url(problem), data).content.decode()
    assert named_fields(html) == {"id_mistakes-0-formula": "Mistake 1: Formula"}


def test_several_fields_are_named_each_once_per_error(staff, problem):
    data = post_data(answer="", **{"variables-1-step": "zero"})
    html = staff.post(preview_url(problem), data).content.decode()
    assert set(named_fields(html)) == {"id_answer", "id_variables-1-step"}


def test_a_fixed_form_names_no_field(staff, problem):
    html = staff.post(preview_url(problem), post_data()).content.decode()
    assert "data-field" not in html
    assert "formula-answer" in html


def test_errors_not_about_a_field_are_listed_without_one():
    from django import forms

    class Form(forms.Form):
        answer = forms.CharField(label="Answer")

        def clean(self):
            raise forms.ValidationError("The whole form is off.")

    found = field_problems([("", Form({"answer": ""}))])
    assert found == [
        FieldProblem("id_answer", "Answer", "This field is required."),
        FieldProblem("", "", "The whole form is off."),
    ]
