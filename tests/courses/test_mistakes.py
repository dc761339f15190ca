"""Adding a named mistake to a formula problem: the same checks as the admin and a bank import
(the engine's validation through SOFTGRADE_PROBLEM_VALIDATOR, a code that names a misconception),
a new misconception made with it, and nothing changed when anything is wrong."""

from __future__ import annotations

import pytest

from courses.mistakes import MistakeRefused, formula_mistake_add
from courses.models import Misconception
from tests.factories import LessonFactory, MisconceptionFactory, ProblemFactory
from tests.teaching.problem_records import formula_problem

pytestmark = pytest.mark.django_db


def test_a_new_misconception_names_the_new_mistake():
    problem = formula_problem(LessonFactory())
    named = formula_mistake_add(
        problem=problem,
        formula=" d_k^2 * s^2 ",
        code="width-squared",
        title="Squares the width",
        explanation="The variances of $d_k$ terms add up: a factor $d_k$.",
    )
    assert (named.code, named.lesson_id) == ("width-squared", problem.lesson_id)
    problem.refresh_from_db()
    assert problem.params["mistakes"] == {
        "std-for-variance": "sqrt(d_k) * s",
        "width-squared": "d_k^2 * s^2",
    }
    # The rest of the problem is as it was.
    assert problem.params["answer"] == "d_k * s^2"


def test_a_misconception_of_the_lesson_names_it():
    problem = formula_problem(LessonFactory())
    existing = MisconceptionFactory(lesson=problem.lesson, code="width-ignored")
    assert formula_mistake_add(problem=problem, formula="s^2", misconception=existing) == existing
    assert problem.params["mistakes"]["width-ignored"] == "s^2"


@pytest.mark.parametrize(
    ("formula", "field", "words"),
    [
        ("d_k * s^2", "formula", "equals the answer"),
        ("d_k / (s - s)", "formula", "not a finite number"),
        ("d_k * sigma", "formula", "sigma"),
        ("", "formula", "Give the mistake"),
    ],
)
def test_the_engine_s_validation_refuses_a_bad_formula(formula, field, words):
    problem = formula_problem(LessonFactory())
    before = dict(problem.params)
    with pytest.raises(MistakeRefused) as refused:
        formula_mistake_add(
            problem=problem, formula=formula, code="new-one", title="T", explanation="E."
        )
    assert words in refused.value.errors[field]
    problem.refresh_from_db()
    assert problem.params == before
    assert not Misconception.objects.filter(code="new-one").exists()


def test_only_a_formula_problem_and_its_lesson_s_misconceptions():
    builtin = ProblemFactory(family="dot-variance")
    with pytest.raises(MistakeRefused, match="Only a formula problem"):
        formula_mistake_add(problem=builtin, formula="1", code="x", title="T", explanation="E.")
    problem = formula_problem(LessonFactory())
    elsewhere = MisconceptionFactory(lesson=LessonFactory())
    with pytest.raises(MistakeRefused) as refused:
        formula_mistake_add(problem=problem, formula="s^2", misconception=elsewhere)
    assert refused.value.errors == {
        "misconception": "Pick a misconception of the problem's lesson."
    }


def test_a_new_misconception_needs_a_free_code_a_title_and_an_explanation_that_renders():
    problem = formula_problem(LessonFactory())
    MisconceptionFactory(code="taken")
    with pytest.raises(MistakeRefused) as refused:
        formula_mistake_add(
            problem=problem,
            formula="s^2",
            code="taken",
            title="",
            explanation="Read $\\href{https://example.org}{this}$.",
        )
    assert set(refused.value.errors) == {"code", "title", "explanation"}
    assert "href" in refused.value.errors["explanation"]
    assert Misconception.objects.count() == 1
