"""Formula variants already drawn get the {@name@} placeholders too (courses' 0011 has the rule).

A variant keeps its prompt (in its givens), its worked-solution steps (in its grading key) and a
copy of its problem's params: each is rewritten as the problem was, with the variant's own
variables (the values shown and hidden). Which values the variant shows is not changed: a value
its learner was shown stays in the givens. An attempt whose variant changed loses its stored
exam sheet (grading/sheets.py), which was rendered from the old text; the next request renders
it again.
"""

import importlib

from django.db import migrations

FORMULA = "formula"
BATCH = 500
_rule = importlib.import_module("courses.migrations.0011_formula_placeholders")


def variant_changed(variant, change):
    """(givens, grading key, params) rewritten, or None when nothing changes."""
    givens, key = variant.givens, variant.grading_key
    if not isinstance(givens, dict) or not isinstance(givens.get("values"), dict):
        return None
    hidden = key.get("hidden_values", {}) if isinstance(key, dict) else {}
    names = set(givens["values"]) | set(hidden if isinstance(hidden, dict) else {})
    new_givens = {**givens, "prompt": change(givens.get("prompt"), names)}
    new_key = key
    if isinstance(key, dict) and isinstance(key.get("solution"), list):
        new_key = {**key, "solution": [change(step, names) for step in key["solution"]]}
    new_params = _rule.params_changed(variant.params, change) or variant.params
    if (new_givens, new_key, new_params) == (givens, key, variant.params):
        return None
    return new_givens, new_key, new_params


def _rewrite(apps, change):
    Variant = apps.get_model("grading", "Variant")
    AttemptSheet = apps.get_model("grading", "AttemptSheet")
    fields = ["givens", "grading_key", "params"]
    batch, attempts = [], set()
    rows = Variant.objects.filter(family=FORMULA).only(*fields, "attempt_id")
    for variant in rows.iterator(chunk_size=BATCH):
        changed = variant_changed(variant, change)
        if changed is None:
            continue
        variant.givens, variant.grading_key, variant.params = changed
        batch.append(variant)
        if variant.attempt_id:
            attempts.add(variant.attempt_id)
        if len(batch) >= BATCH:
            Variant.objects.bulk_update(batch, fields)
            batch = []
    if batch:
        Variant.objects.bulk_update(batch, fields)
    attempts = sorted(attempts)
    for start in range(0, len(attempts), BATCH):
        AttemptSheet.objects.filter(attempt_id__in=attempts[start : start + BATCH]).delete()


def forward(apps, schema_editor):
    _rewrite(apps, _rule.upgraded)


def backward(apps, schema_editor):
    _rewrite(apps, _rule.downgraded)


class Migration(migrations.Migration):
    dependencies = [
        ("courses", "0011_formula_placeholders"),
        ("grading", "0015_attempt_sheet"),
    ]

    operations = [migrations.RunPython(forward, backward)]
