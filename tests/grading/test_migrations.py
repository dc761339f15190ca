"""The migration that moved formula variants' private data out of their givens.

Variants stored before it carried their formulas in the givens; after it they carry them in their
grading key, grade exactly as before, and migrating back restores the old givens byte for byte.
"""

from __future__ import annotations

import numpy as np
import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from grading import engine
from grading.models import Variant
from grading.services.verdicts import variant_grade
from tests.factories import LessonFactory, ProblemFactory
from tests.grading.private_data import FORMULA_PARAMS
from tests.migration_steps import migrate

pytestmark = pytest.mark.django_db(transaction=True)

SPLITTING = "variant_grading_key"


def _nodes() -> tuple[tuple[str, str], tuple[str, str], list[tuple[str, str]]]:
    """(the splitting migration, the grading migration before it, every leaf node)."""
    graph = MigrationExecutor(connection).loader.graph
    splitting = next(
        node for node in graph.nodes if node[0] == "grading" and node[1].endswith(SPLITTING)
    )
    before = next(parent for parent in graph.node_map[splitting].parents if parent[0] == "grading")
    return splitting, before, graph.leaf_nodes()


# The prompt as written before placeholders were {@name@} (grading's 0016 converts it later).
OLD_PROMPT = FORMULA_PARAMS["prompt"].replace("{@s@}", "{s}").replace("{@d_k@}", "{d_k}")


def _old_givens(seed: int) -> dict:
    """Formula givens as the family stored them before the split: everything drawn."""
    family = engine.get_family("formula")
    cleaned = family.clean_params(FORMULA_PARAMS)
    return family.draw(np.random.default_rng(seed), {**cleaned, "prompt": OLD_PROMPT})


@pytest.fixture
def before_the_split():
    splitting, before, leaves = _nodes()
    executor = migrate([before])
    yield executor.loader.project_state(before).apps, splitting, before
    migrate(leaves)  # leave the schema as every other test expects it


def test_formula_variants_move_their_formulas_to_the_grading_key_and_grade_the_same(
    before_the_split,
):
    old_apps, splitting, before = before_the_split
    problem = ProblemFactory(lesson=LessonFactory(), family="formula", params=FORMULA_PARAMS)
    OldVariant = old_apps.get_model("grading", "Variant")
    stored = {}
    for seed in (0, 1, 2, 3):
        givens = _old_givens(seed)
        row = OldVariant.objects.create(
            problem_id=problem.pk,
            seed=seed,
            family="formula",
            family_version=1,
            params=FORMULA_PARAMS,
            givens=givens,
            atol=0.0,
            rtol=0.01,
        )
        stored[row.pk] = (seed, givens)
    other = OldVariant.objects.create(
        problem_id=ProblemFactory(lesson=problem.lesson).pk,
        seed=5,
        family="dot-variance",
        family_version=1,
        params={},
        givens={"d_k": 64, "sigma_q": 1.0, "sigma_k": 2.0},
        atol=0.0,
        rtol=0.01,
    )

    migrate([splitting])
    # The instructor edits the problem afterwards: stored variants keep their own formulas.
    problem.params = dict(FORMULA_PARAMS, answer="2 * d_k", mistakes={})
    problem.save()
    for pk, (seed, givens) in stored.items():
        variant = Variant.objects.get(pk=pk)
        fresh = engine.make_variant(engine.get_family("formula"), FORMULA_PARAMS, seed)
        assert variant.givens == {**fresh.givens, "prompt": OLD_PROMPT}
        assert variant.grading_key == fresh.grading_key
        assert set(variant.givens) == {"values", "prompt"}
        assert variant.grading_key["answer"] == FORMULA_PARAMS["answer"]
        assert variant.grading_key["hidden_values"] == {
            "hidden_shift": givens["values"]["hidden_shift"]
        }
        values = givens["values"]
        answer = values["d_k"] * values["s"] ** 2 + values["hidden_shift"]
        right = variant_grade(variant=variant, text=repr(answer))
        assert right.status == "correct"
        mistake = values["d_k"] * values["s"] + values["hidden_shift"]
        wrong = variant_grade(variant=variant, text=repr(mistake))
        assert wrong.misconception == "forgot-the-square-zq"
    untouched = Variant.objects.get(pk=other.pk)
    assert untouched.givens == {"d_k": 64, "sigma_q": 1.0, "sigma_k": 2.0}
    assert untouched.grading_key == {}

    migrate([before])
    for pk, (_, givens) in stored.items():
        assert OldVariant.objects.get(pk=pk).givens == givens
