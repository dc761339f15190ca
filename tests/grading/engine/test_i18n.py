"""The engine's translation hook (grading/engine/i18n.py): every sentence a learner reads goes
through the installed translator, caches never keep a translated sentence, and numbers follow the
page's decimal separator. The translator here marks each sentence instead of translating it, so
the test needs no catalog."""

import re

import numpy as np
import pytest

from grading.engine import FAMILIES, ParseError, Tolerance, describe_tolerance, grade, i18n, parse
from grading.engine.answers.formatting import format_answer, format_count, format_number
from grading.engine.sentences import sentence
from grading.engine.solutions import worked_solution

MARK = "«"


def _marked(message: str) -> str:
    return MARK + message


def _marked_plural(singular: str, plural: str, n: int) -> str:
    return MARK + (singular if n == 1 else plural)


@pytest.fixture
def marked():
    """Every sentence the engine makes starts with « while the fixture is active."""
    saved = i18n._translator
    i18n.install(_marked, _marked_plural)
    yield
    i18n._translator = saved


def test_the_engine_speaks_english_without_a_translator():
    saved = i18n._translator
    i18n.uninstall()
    try:
        assert i18n.gettext("Not correct.") == "Not correct."
        assert i18n.ngettext("one row", "%(n)s rows", 2) == "%(n)s rows"
        assert i18n.gettext_noop("x") == "x"
    finally:
        i18n._translator = saved


def test_parse_errors_go_through_the_translator(marked):
    for text, shape in [("", ()), ("1/0", ()), ("x", ()), ("1, 2", (3,)), ("1.000", ())]:
        with pytest.raises(ParseError) as caught:
            parse(text, shape, "," if text == "1.000" else ".")
        assert caught.value.message.startswith(MARK), caught.value.message


def test_feedback_goes_through_the_translator(marked):
    family = FAMILIES["dot-variance"]
    givens = {"d_k": 64, "sigma_q": 1.5, "sigma_k": 2.0}
    right = grade(family, givens, repr(64 * 1.5**2 * 2.0**2))
    wrong = grade(family, givens, "-" + repr(64 * 1.5**2 * 2.0**2))
    mistake = grade(family, givens, repr(1.5**2 * 2.0**2))
    assert right.feedback.startswith(MARK + "Correct")
    assert wrong.feedback.count(MARK) >= 3  # "Not correct.", the rule, the tolerance
    assert mistake.feedback.startswith(MARK)  # the family's own sentence is translated


def test_no_cache_keeps_a_translated_sentence(marked):
    tolerance = Tolerance(0.01, 0.01)
    assert describe_tolerance(tolerance).startswith(MARK)
    family = FAMILIES["scaled-variance"]
    givens = {"d_k": 64, "divisor": 4.0}
    marked_feedback = grade(family, givens, "40").feedback  # ten times the answer
    i18n.uninstall()
    assert not describe_tolerance(tolerance).startswith(MARK)
    assert MARK not in grade(family, givens, "40").feedback
    assert MARK in marked_feedback


@pytest.mark.parametrize("key", sorted(FAMILIES))
def test_prompts_and_solutions_of_built_in_families_go_through_the_translator(key, marked):
    if key == "formula":
        return  # its prompt and solution template are the instructor's words
    family = FAMILIES[key]
    givens = family.generate(np.random.default_rng(3), {}).givens
    assert MARK in family.prompt(givens)
    assert all(MARK in step for step in worked_solution(key, givens))


def test_numbers_in_sentences_follow_the_separator():
    assert format_number(0.25, decimal=",") == "0,25"
    assert format_answer([[0.5, 1], [2, 0.25]], decimal=",") == "[[0,5; 1]; [2; 0,25]]"
    assert format_count(1000) == "1,000"
    assert format_count(1000, ",") == "1\u202f000"
    assert describe_tolerance(Tolerance(0.002, 0.005), ",") == (
        "within 0,002 or 0,5% of the correct value, whichever is larger"
    )
    assert "1\u202f000" in sentence("power-of-ten", ",", direction="large", factor=1000)
    assert sentence("power-of-ten", direction="large", factor=1000) == (
        "Your value is too large by a factor of 1,000: check the decimal point, percentages and "
        "powers of ten."
    )
    p = sentence("jacobian-from-other-probabilities", ",", p=(0.25, 0.75))
    assert "p = (0,25; 0,75)" in p


_POINT_IN_NUMBER = re.compile(r"\d\.\d")


@pytest.mark.parametrize("key", sorted(FAMILIES))
def test_a_decimal_comma_page_shows_no_decimal_point(key):
    family = FAMILIES[key]
    params = {}
    if key == "formula":
        params = {
            "variables": {"s": {"min": 0.5, "max": 2.5, "step": 0.25}},
            "answer": "s^2",
            "prompt": "A spread of {@s@}, or $s = {@s@}$. What is s²?",
        }
    for seed in range(5):
        drawn = family.generate(np.random.default_rng(seed), params)
        english = family.prompt(drawn.givens)
        german = family.prompt(drawn.givens, ",")
        assert not _POINT_IN_NUMBER.search(german.replace("[0.1, 0.2, 0.7]", "")), german
        if _POINT_IN_NUMBER.search(english):
            assert "," in german
        for step in worked_solution(key, drawn.givens, drawn.grading_key, ","):
            # A formula problem's own formula is shown in code spans, as it is typed.
            shown = re.sub(r"`[^`]*`", "", step)
            assert not _POINT_IN_NUMBER.search(shown), step


def test_a_decimal_comma_verdict_says_how_it_was_read():
    family = FAMILIES["softmax"]
    givens = {"z": [1.0, 2.0, 0.5]}
    answer = family.solve(givens).answer
    typed = format_answer(answer, decimal=",")
    verdict = grade(family, givens, typed, decimal=",")
    assert verdict.status == "correct"
    assert verdict.detail["decimal"] == ","
    assert "0,002" in verdict.feedback
    assert "decimal" not in grade(family, givens, format_answer(answer)).detail
    unread = grade(family, givens, format_answer(answer), decimal=",")
    assert unread.status == "invalid"
    assert unread.detail["decimal"] == ","


def test_regrading_many_with_a_decimal_comma_matches_grading_one_by_one():
    from grading.engine import grade_many

    family = FAMILIES["dot-variance"]
    givens = {"d_k": 64, "sigma_q": 1.5, "sigma_k": 2.0}
    texts = ["576", "576,5", "1.000", "0,5", "-576", "12", "0.5", "1,2,3"]
    many = grade_many(family, givens, texts, decimal=",")
    assert many == [grade(family, givens, text, decimal=",") for text in texts]
    assert [v.status for v in many][:3] == ["correct", "correct", "invalid"]
