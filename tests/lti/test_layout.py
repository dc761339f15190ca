"""The shape of the lti app: launch, deep linking, passback and roster each in a module of its own,
small enough to read in one sitting, and grading reaching lti only through the hooks in settings."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.conf import settings
from django.utils.module_loading import import_string

from lti import passback

ROOT = Path(__file__).resolve().parents[2]
# The house rule for a module's length (about 400 lines).
READABLE_LINES = 400


def imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize(
    "setting", ["SOFTGRADE_ATTEMPT_SUBMITTED_HOOKS", "SOFTGRADE_MASTERY_CHANGED_HOOKS"]
)
def test_the_grading_hooks_in_settings_are_the_passback_module_s(setting):
    hooks = [import_string(path) for path in getattr(settings, setting)]
    assert hooks
    assert all(hook.__module__ == passback.__name__ for hook in hooks)


def test_grading_never_imports_lti():
    importers = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "grading").rglob("*.py"))
        if any(name == "lti" or name.startswith("lti.") for name in imported_modules(path))
    ]
    assert importers == []


def test_every_lti_module_reads_in_one_sitting():
    modules = [path for path in (ROOT / "lti").rglob("*.py") if "migrations" not in path.parts]
    assert len(modules) > 10
    long = [
        f"{path.relative_to(ROOT)}: {len(path.read_text(encoding='utf-8').splitlines())} lines"
        for path in modules
        if len(path.read_text(encoding="utf-8").splitlines()) > READABLE_LINES
    ]
    assert long == []
