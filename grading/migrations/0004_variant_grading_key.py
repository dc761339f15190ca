"""Variant.grading_key: what grading needs that the learner is not shown.

Formula variants used to carry their answer and mistake formulas (and the problem's version) in
their givens, which pages and the API show to learners. This moves them, and the value of any
variable the prompt does not show, into the grading key; the givens keep the prompt and the
values it shows. Grading reads both, so every stored variant grades exactly as before.
"""

import re

from django.db import migrations, models

# Frozen copies of the rules in grading/engine/problems/formula.py as of this migration, so a
# later change to the engine cannot change what this migration does.
FORMULA = "formula"
PLACEHOLDER = re.compile(r"\{([A-Za-z][A-Za-z0-9_]*)\}")
OLD_KEYS = {"values", "answer", "mistakes", "prompt", "version"}
BATCH = 1000


def split(givens):
    """Old formula givens → (givens, grading key); None when they are not in the old form."""
    if not isinstance(givens, dict) or set(givens) != OLD_KEYS:
        return None
    values = givens["values"]
    shown = set(PLACEHOLDER.findall(givens["prompt"])) & set(values)
    key = {"answer": givens["answer"], "mistakes": givens["mistakes"], "version": givens["version"]}
    hidden = {name: value for name, value in values.items() if name not in shown}
    if hidden:
        key["hidden_values"] = hidden
    new = {
        "values": {name: value for name, value in values.items() if name in shown},
        "prompt": givens["prompt"],
    }
    return new, key


def join(givens, key):
    """The reverse of split: the old givens, values in name order as the family drew them."""
    if not isinstance(key, dict) or "answer" not in key:
        return None
    values = {**givens["values"], **key.get("hidden_values", {})}
    return {
        "values": dict(sorted(values.items())),
        "answer": key["answer"],
        "mistakes": key["mistakes"],
        "prompt": givens["prompt"],
        "version": key["version"],
    }


def _rewrite(apps, change):
    Variant = apps.get_model("grading", "Variant")
    batch = []
    for variant in Variant.objects.filter(family=FORMULA).only("givens", "grading_key").iterator(
        chunk_size=BATCH
    ):
        changed = change(variant)
        if changed is None:
            continue
        variant.givens, variant.grading_key = changed
        batch.append(variant)
        if len(batch) >= BATCH:
            Variant.objects.bulk_update(batch, ["givens", "grading_key"])
            batch = []
    if batch:
        Variant.objects.bulk_update(batch, ["givens", "grading_key"])


def move_formulas_out_of_givens(apps, schema_editor):
    _rewrite(apps, lambda variant: split(variant.givens))


def move_formulas_back_into_givens(apps, schema_editor):
    def back(variant):
        old = join(variant.givens, variant.grading_key)
        return None if old is None else (old, {})

    _rewrite(apps, back)


class Migration(migrations.Migration):
    dependencies = [
        ("grading", "0003_score_changes_audit_and_attempt_deletion"),
    ]

    operations = [
        migrations.AddField(
            model_name="variant",
            name="grading_key",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text="What grading needs beyond the givens; never shown.",
            ),
        ),
        migrations.AlterField(
            model_name="variant",
            name="givens",
            field=models.JSONField(
                help_text="What the learner is shown: the numbers of the prompt."
            ),
        ),
        migrations.RunPython(move_formulas_out_of_givens, move_formulas_back_into_givens),
    ]
