"""Export: a lesson as bank YAML, field by field from the schema; importing it gives it back."""

from __future__ import annotations

from typing import Any

import yaml
from django.db.models import Model

from ..models import Lesson
from .schema import BANK_FORMAT, COURSE, LESSON, SECTIONS, Entity, Field, ListOf, Nested, Ref, Refs


class _BankDumper(yaml.SafeDumper):
    """Multi-line text as `|` blocks so an exported bank stays as readable as a hand-written one."""


def _represent_text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BankDumper.add_representer(str, _represent_text)


def bank_export(*, lesson: Lesson) -> str:
    """The lesson as bank YAML; importing it gives back the same lesson."""
    lesson = (
        Lesson.objects.select_related("course")
        .prefetch_related(
            "key_terms",
            "misconceptions",
            "questions__choices__misconception",
            "problems",
            "pools__questions",
            "pools__problems",
            "quizzes__items__pool",
        )
        .get(pk=lesson.pk)
    )
    document: dict[str, Any] = {
        "format": BANK_FORMAT,
        "course": _entry(COURSE, lesson.course),
        "lesson": _entry(LESSON, lesson),
    }
    for section in SECTIONS:
        document[section.name] = _rows(section, lesson)
    return yaml.dump(document, Dumper=_BankDumper, sort_keys=False, allow_unicode=True, width=100)


def _rows(spec: Field, row: Model) -> list[dict]:
    kind = spec.kind
    assert isinstance(kind, ListOf)
    related = getattr(row, spec.attr)
    rows = related.order_by(*kind.order_by) if kind.order_by else related.all()
    return [_entry(kind.entity, child) for child in rows]


def _entry(entity: Entity, row: Model) -> dict[str, Any]:
    """One row as the bank writes it: every field, but those marked sparse only when set."""
    entry: dict[str, Any] = {}
    for spec in entity:
        kind = spec.kind
        if isinstance(kind, ListOf):
            value: Any = _rows(spec, row)
        elif isinstance(kind, Nested):  # flattened: a tolerance's atol and rtol
            value = {sub.name: getattr(row, sub.attr) for sub in kind.entity}
            if all(v is None for v in value.values()):
                value = None
        elif isinstance(kind, Refs):
            value = sorted(
                getattr(member, kind.target.key) for member in getattr(row, spec.attr).all()
            )
        elif isinstance(kind, Ref):
            target = getattr(row, spec.attr)
            value = getattr(target, kind.target.key) if target is not None else None
        else:
            value = getattr(row, spec.attr)
        if spec.sparse and value == spec.fallback():
            continue
        entry[spec.name] = value
    return entry
