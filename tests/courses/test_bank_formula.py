"""Formula problems in the lesson bank: every part of the format round-trips through
export_bank and import_bank, and a bad formula is refused with its place and column."""

from __future__ import annotations

from io import StringIO

import pytest
import yaml
from django.core.management import CommandError, call_command

from courses.models import Problem
from tests.courses.test_bank import shipped_document, snapshot, write_bank

pytestmark = pytest.mark.django_db

LESSON = "scaled-dot-product-attention"
FORMULA = {
    "slug": "spread-by-formula",
    "title": "Spread of two products, by formula",
    "family": "formula",
    "params": {
        "variables": {
            "d_k": {"choices": [16, 64]},
            "s": {"min": 0.5, "max": 2, "step": 0.25, "decimals": 2},
        },
        "shape": "vector",
        "answer": ["d_k * s^2", "sqrt(d_k) * s"],
        "mistakes": {
            "std-for-variance": ["sqrt(d_k) * s", "d_k * s^2"],
            "halved": {
                "formula": ["d_k * s^2 / 2", "sqrt(d_k) * s / 2"],
                "misconception": "std-for-variance",
                "feedback": "Nothing here is halved.",
            },
        },
        "prompt": "Components have standard deviation {@s@} and $d_k = {@d_k@}$. Give the "
        "variance and the standard deviation of $q \\cdot k$.",
        "solution": ["The variance is $d_k s^2$ with $s = {@s@}$.", "Its root is the spread."],
        "version": 2,
    },
    "tolerance": {"atol": 0, "rtol": 0.001},
}


def test_a_formula_problem_round_trips_through_export_and_import(tmp_path):
    document = shipped_document()
    document["problems"].append(FORMULA)
    call_command("import_bank", str(write_bank(tmp_path, document)), stdout=StringIO())
    imported = Problem.objects.get(slug=FORMULA["slug"])
    assert imported.params == FORMULA["params"]
    exported = tmp_path / "exported.yaml"
    call_command("export_bank", LESSON, "-o", str(exported), stdout=StringIO())
    rows = {p["slug"]: p for p in yaml.safe_load(exported.read_text("utf-8"))["problems"]}
    assert rows[FORMULA["slug"]]["params"] == FORMULA["params"]
    Problem.objects.filter(slug=FORMULA["slug"]).update(params={})
    call_command("import_bank", str(exported), stdout=StringIO())
    assert Problem.objects.get(slug=FORMULA["slug"]).params == FORMULA["params"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"answer": ["d_k * s^2", "sqrt(d_kk) * s"]},
            "params.answer: In the answer formula, entry 2: unknown name 'd_kk' at column 6",
        ),
        (
            {"mistakes": {"std-for-variance": ["d_k * s^2", "sqrt(d_k) * s"]}},
            "params.mistakes.std-for-variance: mistake 'std-for-variance' equals the answer "
            "for every one of 50 seeds",
        ),
        ({"shape": "tensor"}, "params.shape: The shape is one of number, vector, matrix."),
    ],
)
def test_a_bad_formula_problem_is_refused_with_its_place(tmp_path, change, message):
    document = shipped_document()
    document["problems"].append({**FORMULA, "params": {**FORMULA["params"], **change}})
    before = snapshot()
    err = StringIO()
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("import_bank", str(write_bank(tmp_path, document)), stderr=err)
    position = len(document["problems"]) - 1
    assert f"problems[{position}]" in err.getvalue() or FORMULA["slug"] in err.getvalue()
    assert message in err.getvalue()
    assert snapshot() == before


def test_an_old_style_placeholder_is_refused_with_its_file_place_and_the_new_syntax(tmp_path):
    """A bank written for {name} placeholders is not imported to show letters where values
    were meant: each old placeholder is named with its file, problem and field."""
    document = shipped_document()
    old = {
        **FORMULA["params"],
        "prompt": "Spread {s}: why do we divide by $\\sqrt{d_k}$?",
        "solution": ["$d_k = {d_k}$ terms."],
    }
    document["problems"].append({**FORMULA, "params": old})
    before = snapshot()
    err = StringIO()
    path = write_bank(tmp_path, document)
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("import_bank", str(path), stderr=err)
    said = err.getvalue()
    prompt_line = next(line for line in said.splitlines() if "params.prompt" in line)
    assert path.name in prompt_line
    assert FORMULA["slug"] in prompt_line
    assert "{s} shows the text {s}: placeholders are written {@s@}" in prompt_line
    # The LaTeX group \sqrt{d_k} is LaTeX, not an old placeholder: it is not complained about.
    assert "{d_k}" not in prompt_line
    solution_line = next(line for line in said.splitlines() if "params.solution" in line)
    assert "Step 1: {d_k} inside $…$ is a LaTeX group" in solution_line
    assert "write {@d_k@} to show the value" in solution_line
    assert snapshot() == before
