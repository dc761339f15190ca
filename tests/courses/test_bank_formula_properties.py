"""A formula problem's property checks in the lesson bank: they round-trip through export_bank
and import_bank, and a bad check or one the right answer fails is refused with its place."""

from __future__ import annotations

from io import StringIO

import pytest
import yaml
from django.core.management import CommandError, call_command

from courses.models import Problem
from tests.courses.test_bank import shipped_document, snapshot, write_bank
from tests.courses.test_bank_formula import FORMULA, LESSON

pytestmark = pytest.mark.django_db

CHECKED = {
    **FORMULA,
    "slug": "spread-with-checks",
    "params": {
        **FORMULA["params"],
        "properties": [
            {"check": "x > 0", "feedback": "A spread is never negative."},
            {
                "check": "x[1] >= x[2]",
                "feedback": "With s at least 0.5 and d_k at least 16 the variance is larger.",
                "misconception": "std-for-variance",
            },
        ],
    },
}


def test_property_checks_round_trip_through_export_and_import(tmp_path):
    document = shipped_document()
    document["problems"].append(CHECKED)
    call_command("import_bank", str(write_bank(tmp_path, document)), stdout=StringIO())
    assert Problem.objects.get(slug=CHECKED["slug"]).params == CHECKED["params"]
    exported = tmp_path / "exported.yaml"
    call_command("export_bank", LESSON, "-o", str(exported), stdout=StringIO())
    rows = {p["slug"]: p for p in yaml.safe_load(exported.read_text("utf-8"))["problems"]}
    assert rows[CHECKED["slug"]]["params"]["properties"] == CHECKED["params"]["properties"]
    Problem.objects.filter(slug=CHECKED["slug"]).update(params={})
    call_command("import_bank", str(exported), stdout=StringIO())
    assert Problem.objects.get(slug=CHECKED["slug"]).params == CHECKED["params"]


@pytest.mark.parametrize(
    ("check", "message"),
    [
        ("x[3] > 0", "params.properties.1.check: In check 1: index 3 is out of range"),
        ("x[1] < x[2]", "params.properties.1.check: check 1 fails for the right answer for seed 0"),
    ],
)
def test_a_bad_check_is_refused_with_its_place(tmp_path, check, message):
    document = shipped_document()
    params = {**CHECKED["params"], "properties": [{"check": check, "feedback": "f"}]}
    document["problems"].append({**CHECKED, "params": params})
    before = snapshot()
    err = StringIO()
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("import_bank", str(write_bank(tmp_path, document)), stderr=err)
    assert message in err.getvalue()
    assert snapshot() == before
