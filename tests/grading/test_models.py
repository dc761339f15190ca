"""The learner records' schema: every foreign key can be followed by an index, and none twice."""

from __future__ import annotations

import pytest
from django.db import connection

from grading.models import Attempt, PracticeStreak, Response, Variant

pytestmark = pytest.mark.django_db

MODELS = [Attempt, Variant, Response, PracticeStreak]


def _index_columns(model) -> list[list[str]]:
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, model._meta.db_table)
    # A partial index (one with a condition) cannot serve every lookup; the introspection does
    # not tell them apart on every backend, so the model's own declarations do.
    declared = [*model._meta.constraints, *model._meta.indexes]
    partial = {item.name for item in declared if getattr(item, "condition", None) is not None}
    return [
        info["columns"]
        for name, info in constraints.items()
        if (info["index"] or info["unique"] or info["primary_key"]) and name not in partial
    ]


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
def test_every_foreign_key_leads_an_index(model):
    """Deleting a quiz, a learner or an attempt looks rows up by the key: never a full scan."""
    indexes = _index_columns(model)
    for field in model._meta.concrete_fields:
        if field.is_relation:
            assert any(columns[:1] == [field.column] for columns in indexes), field.name


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
def test_no_index_is_the_prefix_of_another(model):
    """Each answer writes a response and rewrites its attempt: an index that another one
    already covers would only cost writes."""
    indexes = [columns for columns in _index_columns(model) if columns]
    for columns in indexes:
        longer = [o for o in indexes if o != columns and o[: len(columns)] == columns]
        assert not longer, (columns, longer)
