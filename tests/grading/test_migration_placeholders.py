"""grading's 0016: variants already drawn get {@name@} placeholders; their sheets are redrawn."""

import importlib

import pytest
from django.apps import apps

from courses.markup import render_markup
from grading import engine
from grading.engine.solutions import worked_solution
from grading.models import Attempt, AttemptSheet, Variant
from tests.factories import LessonFactory, ProblemFactory, QuizFactory, UserFactory

pytestmark = pytest.mark.django_db

MIGRATION = importlib.import_module("grading.migrations.0016_formula_placeholders")
OLD_PARAMS = {
    "variables": {"d_k": {"choices": [64]}, "s": {"choices": [0.5]}},
    "answer": "d_k * s^2",
    "prompt": "Spread {s}: why $\\sqrt{d_k}$?",
    "solution": ["$d_k = {d_k}$ and $\\sqrt{d_k} = 8$."],
}


def _variant(problem, **extra):
    return Variant.objects.create(
        problem=problem,
        seed=1,
        family="formula",
        family_version=1,
        params=OLD_PARAMS,
        # As the old rule split it: {d_k} of \sqrt{d_k} made d_k a shown value.
        givens={"values": {"d_k": 64, "s": 0.5}, "prompt": OLD_PARAMS["prompt"]},
        grading_key={"answer": "d_k * s^2", "mistakes": {}, "version": 1, **extra},
        atol=0.0,
        rtol=0.01,
    )


def test_forward_rewrites_prompt_solution_and_params_and_drops_stale_sheets():
    problem = ProblemFactory(lesson=LessonFactory(), family="formula", params=OLD_PARAMS)
    quiz = QuizFactory(lesson=problem.lesson)
    attempt = Attempt.objects.create(user=UserFactory(), quiz=quiz, number=1)
    AttemptSheet.objects.create(attempt=attempt, key="1.2.0", parts=["<p>√64</p>"])
    untouched = Attempt.objects.create(user=UserFactory(), quiz=quiz, number=1)
    AttemptSheet.objects.create(attempt=untouched, key="1.2.0", parts=["<p>kept</p>"])
    solved = _variant(problem, solution=OLD_PARAMS["solution"])
    in_attempt = _variant(problem)
    in_attempt.attempt, in_attempt.quiz_item = attempt, quiz.items.create(problem=problem)
    in_attempt.save()

    MIGRATION.forward(apps, None)

    solved.refresh_from_db()
    assert solved.givens == {
        "values": {"d_k": 64, "s": 0.5},
        "prompt": "Spread {@s@}: why $\\sqrt{d_k}$?",
    }
    assert solved.grading_key["solution"] == ["$d_k = {@d_k@}$ and $\\sqrt{d_k} = 8$."]
    assert solved.params["prompt"] == "Spread {@s@}: why $\\sqrt{d_k}$?"
    family = engine.get_family("formula")
    html = render_markup(family.prompt(solved.givens))
    assert "Spread 0.5" in html
    assert "<mn>64</mn>" not in html
    steps = worked_solution("formula", solved.givens, solved.grading_key)
    assert steps[0] == "$d_k = 64$ and $\\sqrt{d_k} = 8$."
    assert not AttemptSheet.objects.filter(attempt=attempt).exists()
    assert AttemptSheet.objects.get(attempt=untouched).parts == ["<p>kept</p>"]


def test_backward_restores_the_old_text():
    variant = _variant(ProblemFactory(lesson=LessonFactory(), family="formula"), solution=["{s}"])
    MIGRATION.forward(apps, None)
    MIGRATION.backward(apps, None)
    variant.refresh_from_db()
    assert variant.givens["prompt"] == OLD_PARAMS["prompt"]
    assert variant.grading_key["solution"] == ["{s}"]
    assert variant.params == OLD_PARAMS
