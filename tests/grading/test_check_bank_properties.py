"""check_bank and the property checks of formula problems: the right answer has every property
on every seed, and a listed mistake a check catches first is named by that check coherently."""

from __future__ import annotations

import contextlib
import io

import pytest
from django.core.management import CommandError, call_command

from courses.models import Lesson, Problem

pytestmark = pytest.mark.django_db

PARAMS = {
    "variables": {"d_k": {"choices": [16, 64]}, "s": {"choices": [1.5, 2.5]}},
    "answer": "d_k * s^2",
    "mistakes": {"width-ignored": "s^2"},
    "properties": [
        {
            "check": "x >= d_k",
            "feedback": "A sum of d_k products spreads more than one product.",
            "misconception": "width-ignored",
        }
    ],
    "prompt": "$d_k = {@d_k@}$ and each component has standard deviation {@s@}. Variance?",
}


def _problem(params) -> Problem:
    return Problem.objects.create(
        lesson=Lesson.objects.get(),
        slug="checked-variance",
        title="Variance with property checks",
        family="formula",
        params=params,
        order=99,
        published=True,
    )


def _failures(variants: int = 3) -> list[str]:
    err = io.StringIO()
    with contextlib.suppress(CommandError):
        call_command("check_bank", "--variants", str(variants), stdout=io.StringIO(), stderr=err)
    return [line for line in err.getvalue().splitlines() if line.startswith("checked-variance")]


def test_a_mistake_caught_by_a_check_with_its_own_misconception_passes(shipped_bank):
    # s^2 (width ignored) fails x >= d_k, a check that names width-ignored: coherent.
    _problem(PARAMS)
    out = io.StringIO()
    call_command("check_bank", "--variants", "4", stdout=out)
    assert "checked-variance" in out.getvalue()


def test_a_mistake_caught_by_a_check_under_another_misconception_is_reported(shipped_bank):
    other = {**PARAMS, "properties": [{**PARAMS["properties"][0], "misconception": None}]}
    del other["properties"][0]["misconception"]
    _problem(other)
    lines = _failures()
    assert len(lines) == 3
    for seed, line in enumerate(lines):
        assert line.startswith(f"checked-variance seed {seed}: mistake width-ignored typed as ")
        assert "fails property-1 first, which names misconception None, not width-ignored" in line


def test_a_right_answer_failing_a_check_is_refused_with_the_seed(shipped_bank):
    # Stored without the form's validation, as a bank edited by hand may be.
    wrong = {**PARAMS, "properties": [{"check": "x <= 100", "feedback": "Too large."}]}
    _problem(wrong)
    lines = _failures(4)
    refused = [line for line in lines if "property check 1" in line]
    assert refused
    assert all(line.endswith("property check 1 fails for the right answer") for line in refused)
    seeds = {int(line.split(" seed ")[1].split(":")[0]) for line in refused}
    assert seeds
    assert seeds <= set(range(4))


def test_a_checks_misconception_must_be_in_the_bank(shipped_bank):
    unknown = {
        **PARAMS,
        "properties": [{**PARAMS["properties"][0], "misconception": "no-such-idea"}],
    }
    _problem(unknown)
    assert "checked-variance: property-1 names misconception no-such-idea, not in the bank" in (
        _failures(1)
    )
