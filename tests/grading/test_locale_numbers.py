"""The page's decimal separator (grading/locale_numbers.py) and where pages use it: grading a
typed answer, the hint under the answer box, the numbers shown, and a regrade that reads a stored
answer with the separator it was typed with."""

import pytest
from django.utils import translation

from grading import engine
from grading.locale_numbers import decimal_separator
from grading.models import Variant
from grading.regrade_graders import decimal_of
from grading.services.verdicts import variant_grade
from grading.templatetags.grading_display import (
    answer_hint,
    correct_answer,
    tolerance_text,
    variant_prompt,
)


def _variant(key: str, seed: int = 1) -> Variant:
    family = engine.get_family(key)
    data = engine.make_variant(family, {}, seed)
    tolerance = family.default_tolerance
    return Variant(
        family=key,
        givens=data.givens,
        grading_key=data.grading_key,
        atol=tolerance.atol,
        rtol=tolerance.rtol,
    )


@pytest.mark.parametrize(("language", "separator"), [("en", "."), ("de", ","), ("ar", ",")])
def test_the_separator_follows_the_active_language(language, separator):
    with translation.override(language):
        assert decimal_separator() == separator


def test_a_typed_answer_is_graded_with_the_page_separator():
    variant = _variant("softmax")
    answer = engine.get_family("softmax").solve(variant.givens).answer
    german = variant_grade(
        variant=variant, text=engine.format_answer(answer, decimal=","), decimal=","
    )
    assert german.status == "correct"
    assert german.detail["decimal"] == ","
    english = variant_grade(variant=variant, text=engine.format_answer(answer))
    assert english.status == "correct"
    assert "decimal" not in english.detail


def test_a_regrade_reads_an_answer_with_the_separator_it_was_typed_with():
    assert decimal_of({"decimal": ","}) == ","
    assert decimal_of({"status": "correct"}) == "."
    assert decimal_of(None) == "."


@pytest.mark.parametrize("key", ["dot-variance", "softmax", "softmax-jacobian"])
def test_the_hint_names_the_separators_of_the_page(key):
    variant = _variant(key)
    english = answer_hint(variant)
    with translation.override("de"):
        german = answer_hint(variant)
    assert "0,5" in german or ";" in german
    assert german != english
    if key != "dot-variance":
        assert "[0,1; 0,2; 0,7]" in german or "[[a; b]; [c; d]]" in german


def test_numbers_shown_on_a_page_follow_the_language():
    variant = _variant("scaled-dot", seed=4)
    with translation.override("de"):
        assert "0,01" in tolerance_text(variant)
        shown = correct_answer(variant)
        assert "." not in shown
        assert "<mn>" in variant_prompt(variant)
        assert "0{,}" not in variant_prompt(variant)  # TeX's decimal comma became one number
    assert "0.01" in tolerance_text(variant)
