"""courses' 0011: stored formula problems get {@name@} placeholders, and LaTeX stays LaTeX."""

import importlib

import pytest
from django.apps import apps

from courses.markup import render_markup
from grading import engine
from tests.factories import LessonFactory, ProblemFactory

pytestmark = pytest.mark.django_db

MIGRATION = importlib.import_module("courses.migrations.0011_formula_placeholders")
VARIABLES = {"d_k": {"choices": [64]}, "s": {"choices": [0.5]}}
OLD = {
    "variables": VARIABLES,
    "answer": "d_k * s^2",
    "prompt": "Spread {s}, $d_k = {d_k}$: why divide by $\\sqrt{d_k}$? Keep {other}.",
    "solution": ["$\\frac{{s}}{2}$ and $\\mathbb{R}^{d_k}$", "{d_k} terms."],
}
NEW = {
    "variables": VARIABLES,
    "answer": "d_k * s^2",
    "prompt": "Spread {@s@}, $d_k = {@d_k@}$: why divide by $\\sqrt{d_k}$? Keep {other}.",
    "solution": ["$\\frac{{@s@}}{2}$ and $\\mathbb{R}^{d_k}$", "{@d_k@} terms."],
}


def test_forward_converts_placeholders_and_keeps_latex_groups():
    lesson = LessonFactory()
    formula = ProblemFactory(lesson=lesson, family="formula", params=OLD)
    latex_only = ProblemFactory(
        lesson=lesson,
        family="formula",
        params={**OLD, "prompt": "Why $\\sqrt{d_k}$?", "solution": ["$x_{s}$"]},
    )
    other_family = ProblemFactory(lesson=lesson, family="dot-variance", params={"prompt": "{s}"})

    MIGRATION.forward(apps, None)

    formula.refresh_from_db()
    latex_only.refresh_from_db()
    other_family.refresh_from_db()
    assert formula.params == NEW
    assert latex_only.params["prompt"] == "Why $\\sqrt{d_k}$?"
    assert latex_only.params["solution"] == ["$x_{s}$"]
    assert other_family.params == {"prompt": "{s}"}
    # The converted problem is valid for the engine and shows √dₖ, not √64.
    family = engine.get_family("formula")
    variant = engine.make_variant(family, formula.params, 1)
    html = render_markup(family.prompt(variant.givens))
    assert "<msqrt><mrow><msub><mi>d</mi><mi>k</mi></msub></mrow></msqrt>" in html
    assert "<mn>64</mn>" in html
    assert "Spread 0.5" in html


def test_backward_restores_the_old_text():
    problem = ProblemFactory(lesson=LessonFactory(), family="formula", params=OLD)
    MIGRATION.forward(apps, None)
    MIGRATION.backward(apps, None)
    problem.refresh_from_db()
    assert problem.params == OLD


def test_running_forward_twice_changes_nothing_more():
    problem = ProblemFactory(lesson=LessonFactory(), family="formula", params=OLD)
    MIGRATION.forward(apps, None)
    MIGRATION.forward(apps, None)
    problem.refresh_from_db()
    assert problem.params == NEW
