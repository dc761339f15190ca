"""Every LaTeX command of the shipped bank survives a formula prompt whose variables share the
names of its arguments: it renders to MathML, untouched by placeholder substitution."""

import keyword
import re
from collections import defaultdict

import pytest
import yaml

from courses.bank.importer import BANKS_DIR
from courses.markup import math_spans, render_markup
from grading import engine
from grading.engine.answers import RESERVED_NAMES

BANK = BANKS_DIR / "scaled-dot-product-attention.yaml"
COMMAND = re.compile(r"\\[a-zA-Z]+")
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
# Commands learners meet in every lesson of this kind, on top of those the bank uses.
COMMON = {
    r"\frac": r"\frac{a}{b}",
    r"\sqrt": r"\sqrt{d_k}",
    r"\mathbb": r"\mathbb{R}^{n}",
    r"\text": r"\text{s} = s",
    r"\mathrm": r"\mathrm{d}x",
    r"\hat": r"\hat{y}",
    r"\bar": r"\bar{x}",
    r"\vec": r"\vec{v}",
    r"\binom": r"\binom{n}{k}",
    r"\log": r"\log_{b} x",
}


def _strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def _formulas_by_command() -> dict[str, list[tuple[str, bool]]]:
    """Every command of the bank (as `\\\\[a-zA-Z]+` finds it) with each formula that uses it."""
    found: dict[str, list[tuple[str, bool]]] = defaultdict(list)
    document = yaml.safe_load(BANK.read_text("utf-8"))
    for text in _strings(document):
        for span in math_spans(text):
            for command in set(COMMAND.findall(span.latex)):
                if (span.latex, span.display) not in found[command]:
                    found[command].append((span.latex, span.display))
    for command, latex in COMMON.items():
        found[command].append((latex, False))
    return dict(found)


FORMULAS = _formulas_by_command()


def test_the_bank_uses_the_commands_this_test_is_about():
    assert {r"\sqrt", r"\frac", r"\operatorname", r"\mathbb", r"\left", r"\sum"} <= set(FORMULAS)
    assert len(FORMULAS) >= 20


def _variable_names(latex: str) -> list[str]:
    """Names a careless author might give variables here: every word in braces (`d_k` of
    `\\sqrt{d_k}`, `ij` of `\\delta_{ij}`) and every command's own name (`sqrt`, `frac`)."""
    words = set(re.findall(r"\{([A-Za-z][A-Za-z0-9_]*)\}", latex))
    words |= {command[1:] for command in COMMAND.findall(latex)}
    words |= set(NAME.findall(latex))
    return sorted(w for w in words if w not in RESERVED_NAMES and not keyword.iskeyword(w))


@pytest.mark.parametrize("command", sorted(FORMULAS))
def test_each_command_renders_as_mathml_with_no_value_substituted(command):
    family = engine.get_family(engine.FORMULA_FAMILY)
    for latex, display in FORMULAS[command]:
        names = _variable_names(latex)
        values = {name: 900001 + index for index, name in enumerate(names)}
        shown = " ".join("{@" + name + "@}" for name in names)
        formula = f"$${latex}$$" if display else f"${latex}$"
        prompt = f"{formula}\n\nThe values: {shown}."
        params = {
            "variables": {name: {"choices": [value]} for name, value in values.items()},
            "answer": "1",
            "prompt": prompt,
        }
        # The engine accepts the text: no brace group of real LaTeX reads as an old placeholder.
        family.clean_params(params)
        variant = engine.make_variant(family, params, 0)
        text = family.prompt(variant.givens)
        assert text.startswith(formula), (command, latex)
        html = str(render_markup(text))
        # The formula is rendered exactly as on its own: nothing inside it was substituted.
        assert str(render_markup(formula, inline=not display)) in html, (command, latex)
        assert "<math" in html
        before_values = html.split("The values:")[0]
        for value in values.values():
            assert str(value) not in before_values, (command, latex, value)
        assert "\\" not in html, (command, latex)
        for value in values.values():
            assert str(value) in html  # the placeholders outside the formula did show
