"""The instructors' commands: variant, grade (single and --batch) and check_bank."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from courses.models import Lesson, Problem
from grading import engine
from grading.engine.problems import Solution
from grading.engine.problems.registry import FAMILIES
from grading.engine.problems.variance import DotVariance
from tests.grading.private_data import FORMULA_ANSWER, formula_problem

pytestmark = pytest.mark.django_db


def run(*args, stdin: str | None = None, monkeypatch=None) -> list[dict]:
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    out = io.StringIO()
    call_command(*args, stdout=out)
    return [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]


def test_variant_prints_givens_and_prompt_but_no_answer(shipped_bank):
    [shown] = run("variant", "dot-variance", "--seed", "7")
    assert set(shown) == {"problem", "family", "seed", "givens", "prompt"}
    assert shown["problem"] == "dot-variance"
    assert shown["seed"] == 7
    assert str(shown["givens"]["d_k"]) in shown["prompt"]


def test_variant_reveal_adds_answer_and_mistakes_computed_from_the_givens(shipped_bank):
    [shown] = run("variant", "dot-variance", "--seed", "7", "--reveal")
    g = shown["givens"]
    assert math.isclose(shown["answer"], g["d_k"] * g["sigma_q"] ** 2 * g["sigma_k"] ** 2)
    expected_std = math.sqrt(g["d_k"]) * g["sigma_q"] * g["sigma_k"]
    assert math.isclose(shown["mistakes"]["std-for-variance"], expected_std)


def test_variant_is_the_same_in_every_run(shipped_bank):
    assert run("variant", "softmax", "--seed", "3") == run("variant", "softmax", "--seed", "3")
    assert run("variant", "softmax", "--seed", "3") != run("variant", "softmax", "--seed", "4")


def test_grade_names_the_misconception(shipped_bank):
    [shown] = run("variant", "dot-variance", "--seed", "7", "--reveal")
    std = engine.format_answer(shown["mistakes"]["std-for-variance"])
    [verdict] = run("grade", "dot-variance", "--seed", "7", "--answer", std)
    assert verdict == {
        "problem": "dot-variance",
        "seed": 7,
        "status": "incorrect",
        "score": 0.0,
        "misconception": "std-for-variance",
        "feedback": verdict["feedback"],
    }
    assert "standard deviation" in verdict["feedback"]
    [right] = run("grade", "dot-variance", "--seed", "7", "--answer", str(shown["answer"]))
    assert (right["status"], right["score"], right["misconception"]) == ("correct", 1.0, None)


def test_grade_batch_answers_in_order_and_survives_bad_lines(shipped_bank, monkeypatch):
    lines = "\n".join(
        [
            json.dumps({"problem": "dot-std", "seed": 1, "answer": "9^9^9"}),
            "this is not json",
            json.dumps({"problem": "no-such-problem", "seed": 1, "answer": "1"}),
            json.dumps({"problem": "dot-std", "seed": -1, "answer": "1"}),
            json.dumps({"problem": "softmax", "seed": 2, "answer": "[0.5, 0.5]"}),
        ]
    )
    out = run("grade", "--batch", stdin=lines, monkeypatch=monkeypatch)
    assert len(out) == 5
    assert (out[0]["problem"], out[0]["seed"], out[0]["status"]) == ("dot-std", 1, "invalid")
    assert "not JSON" in out[1]["error"]
    assert out[2] == {
        "problem": "no-such-problem",
        "seed": 1,
        "error": "no problem 'no-such-problem'",
    }
    assert "seed" in out[3]["error"]
    assert out[4]["status"] == "invalid"
    assert "got 2" in out[4]["feedback"]


def test_variant_batch(shipped_bank, monkeypatch):
    lines = json.dumps({"problem": "softmax", "seed": 5}) + "\n" + json.dumps({"seed": 5}) + "\n"
    out = run("variant", "--batch", "--reveal", stdin=lines, monkeypatch=monkeypatch)
    assert out[0]["seed"] == 5
    assert len(out[0]["answer"]) == len(out[0]["givens"]["z"])
    assert "error" in out[1]


def test_single_commands_explain_their_errors(shipped_bank):
    with pytest.raises(CommandError, match="no problem 'nope'"):
        call_command("grade", "nope", "--seed", "1", "--answer", "1", stdout=io.StringIO())
    with pytest.raises(CommandError, match="--seed"):
        call_command("variant", "softmax", stdout=io.StringIO())


def test_check_bank_passes_on_the_shipped_bank(shipped_bank):
    out = io.StringIO()
    call_command("check_bank", "--variants", "30", stdout=out)
    assert "All 11 problems passed." in out.getvalue()


def test_check_bank_fails_on_a_tolerance_that_accepts_mistakes(shipped_bank):
    Problem.objects.filter(slug="dot-variance").update(atol=1e9, rtol=0.0)
    err = io.StringIO()
    with pytest.raises(CommandError, match="failure"):
        call_command("check_bank", "--variants", "5", stdout=io.StringIO(), stderr=err)
    assert "dot-variance seed 0: 0 does not grade incorrect" in err.getvalue()


def test_check_bank_fails_when_a_mistake_has_no_misconception(shipped_bank):
    from courses.models import Misconception

    Misconception.objects.filter(code="width-squared").update(code="renamed-code")
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command("check_bank", "--variants", "2", stdout=io.StringIO(), stderr=err)
    assert "dot-variance: mistake width-squared names no misconception" in err.getvalue()


class _ShadowedMistake(DotVariance):
    """A deliberately broken family: its width-squared mistake always has the value of
    std-for-variance, listed first, so a learner making it is told the other misconception."""

    def solve(self, givens, grading_key=engine.NO_KEY):
        solution = super().solve(givens, grading_key)
        mistakes = dict(solution.mistakes)
        mistakes["width-squared"] = mistakes["std-for-variance"]
        return Solution(answer=solution.answer, mistakes=mistakes)


class _UnreadableMistake(DotVariance):
    """A deliberately broken family: it lists a mistake of the wrong shape, never nameable."""

    def solve(self, givens, grading_key=engine.NO_KEY):
        solution = super().solve(givens, grading_key)
        mistakes = {**solution.mistakes, "width-squared": np.array([1.0, 2.0])}
        return Solution(answer=solution.answer, mistakes=mistakes)


@pytest.mark.parametrize("broken", [_ShadowedMistake, _UnreadableMistake])
def test_check_bank_fails_when_a_listed_mistake_is_not_recognised(
    shipped_bank, monkeypatch, broken
):
    monkeypatch.setitem(FAMILIES, "dot-variance", broken())
    err = io.StringIO()
    with pytest.raises(CommandError, match="failure"):
        call_command("check_bank", "--variants", "3", stdout=io.StringIO(), stderr=err)
    lines = err.getvalue().splitlines()
    for seed in range(3):
        assert any(
            line.startswith(f"dot-variance seed {seed}: mistake width-squared typed as ")
            and line.endswith(", not width-squared")
            for line in lines
        ), err.getvalue()
    assert not any(line.startswith("dot-std") for line in lines)


def test_formula_problems_keep_their_formulas_out_of_the_givens_unless_revealed(shipped_bank):
    problem = formula_problem(Lesson.objects.get())
    [shown] = run("variant", problem.slug, "--seed", "3")
    assert FORMULA_ANSWER not in json.dumps(shown)
    assert set(shown["givens"]) == {"values", "prompt"}
    [revealed] = run("variant", problem.slug, "--seed", "3", "--reveal")
    key = revealed["grading_key"]
    assert key["answer"] == FORMULA_ANSWER
    values = {**revealed["givens"]["values"], **key["hidden_values"]}
    assert math.isclose(
        revealed["answer"], values["d_k"] * values["s"] ** 2 + values["hidden_shift"]
    )
    [graded] = run("grade", problem.slug, "--seed", "3", "--answer", repr(revealed["answer"]))
    assert graded["status"] == "correct"
    mistake = repr(revealed["mistakes"]["forgot-the-square-zq"])
    [graded] = run("grade", problem.slug, "--seed", "3", "--answer", mistake)
    assert graded["misconception"] == "forgot-the-square-zq"
