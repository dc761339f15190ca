"""The computations behind the instructor's reports import no Django, no DRF and no app: they take
plain rows, so the data layer stays the one place that queries, and each is tested without a
database."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.test_architecture import DRF, PACKAGES

TEACHING = Path(__file__).resolve().parents[2] / "teaching"
PURE = (
    "statistics/figures",
    "discovery/mistakes",
    "statistics/responses",
    "discovery/parameters",
    "charts/bars",
    "profiles/summaries",
    "charts/histogram",
)
FORBIDDEN = (*DRF, "django", *PACKAGES, "teaching")


def _imported(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            found.add("teaching" if node.level else node.module or "")
    return found


@pytest.mark.parametrize("module", PURE)
def test_a_pure_module_imports_no_django_and_no_app(module):
    imported = _imported(TEACHING / f"{module}.py")
    assert imported, module
    offences = {name for name in imported if name.split(".")[0] in FORBIDDEN}
    assert offences == set()


def test_the_check_sees_a_django_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import numpy\nfrom django.db import models\nfrom . import other\n")
    assert _imported(sample) == {"numpy", "django.db", "teaching"}
