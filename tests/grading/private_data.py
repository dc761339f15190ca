"""A variant's private data (its grading key) and the scan that proves no learner ever sees it.

Most families keep nothing private; a formula problem keeps its answer and mistake formulas,
its version and the values its prompt does not show. The scan is generic: whatever a family puts
in a variant's grading key, every string in it (formulas), every key of it in the form a leaked
mapping would take (`"answer":`) and every key below the top level as a word (mistake codes,
hidden variable names) must be absent from a response body; so must every number in it while
answers are unreleased. Tests/grading/test_views_leaks.py, tests/api/test_leaks.py and
tests/lti/test_leaks.py run it over every surface, before and after answers are released.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from courses.models import Lesson, Problem, Quiz
from grading.models import Variant
from tests.factories import QuizFactory, QuizItemFactory

# Every name and formula here is distinctive, so finding one in a page can only be a leak.
FORMULA_ANSWER = "d_k * s^2 + hidden_shift"
FORMULA_MISTAKES = {
    "forgot-the-square-zq": "d_k * s + hidden_shift",
    "shift-ignored-zq": "d_k * s^2",
}
FORMULA_PARAMS = {
    "variables": {
        "d_k": {"choices": [4, 8, 16]},
        "s": {"choices": [1.5, 2.5, 3.5]},
        # Not shown by the prompt: its value belongs to the grading key.
        "hidden_shift": {"choices": [3.4375, 5.8125]},
    },
    "answer": FORMULA_ANSWER,
    "mistakes": FORMULA_MISTAKES,
    "prompt": "Each component of $q$ and $k$ has standard deviation {@s@}, and $d_k = {@d_k@}$. "
    "What is the variance of $q \\cdot k$, shifted as in the lesson?",
    "version": 3,
}
# What a formula variant must keep private, as the scan must find it: a check on the scan.
FORMULA_SECRETS = {FORMULA_ANSWER, *FORMULA_MISTAKES, *FORMULA_MISTAKES.values(), "hidden_shift"}


def formula_problem(lesson: Lesson, slug: str = "variance-by-formula") -> Problem:
    """An instructor's formula problem with two mistakes and a variable the prompt hides."""
    return Problem.objects.create(
        lesson=lesson,
        slug=slug,
        title="Shifted variance, by formula",
        family="formula",
        params=FORMULA_PARAMS,
        order=99,
        published=True,
    )


def exam_of_every_family(lesson: Lesson, **options: Any) -> Quiz:
    """An exam with one item per problem of the lesson: every family the lesson uses."""
    settings = {
        "mode": Quiz.Mode.EXAM,
        "show_feedback": Quiz.Feedback.AFTER_SUBMISSION,
        "release_answers": Quiz.AnswerRelease.AFTER_SUBMISSION,
        **options,
    }
    quiz = QuizFactory(lesson=lesson, slug="every-family-exam", **settings)
    for order, problem in enumerate(lesson.problems.order_by("pk")):
        QuizItemFactory(quiz=quiz, question=None, problem=problem, order=order)
    return quiz


def _walk(value: Any, depth: int = 0) -> Iterator[tuple[str, Any, int]]:
    """('key', name, depth) for every mapping key, ('leaf', value, depth) for every leaf."""
    if isinstance(value, Mapping):
        for name, inner in value.items():
            yield "key", name, depth
            yield from _walk(inner, depth + 1)
    elif isinstance(value, list | tuple):
        for inner in value:
            yield from _walk(inner, depth + 1)
    else:
        yield "leaf", value, depth


def _forms(text: str) -> set[str]:
    """How a string shows in a body: as is, HTML-escaped, and escaped inside JSON."""
    return {text, html.escape(text), html.escape(text, quote=False), json.dumps(text)[1:-1]}


def private_strings(variant: Variant) -> dict[str, set[str]]:
    """Each private string of the variant → the spellings the scan looks for."""
    needles: dict[str, set[str]] = {}
    for kind, value, depth in _walk(variant.grading_key):
        if kind == "key":
            # A key as a leaked mapping would show it; below the top level keys are data
            # (mistake codes, hidden variable names), so they must not show even as words.
            quoted = f'"{value}":'
            forms = _forms(quoted) | {f"'{value}':", f"&#x27;{value}&#x27;:"}
            needles[quoted] = forms | (_forms(str(value)) if depth > 0 else set())
        elif isinstance(value, str):
            needles[value] = _forms(value)
    return needles


def private_numbers(variant: Variant) -> list[float]:
    """Every number in the variant's grading key (a hidden variable's value, the version)."""
    return [
        float(value)
        for kind, value, _ in _walk(variant.grading_key)
        if kind == "leaf" and isinstance(value, int | float) and not isinstance(value, bool)
    ]


def private_leaks(text: str, variants: Iterable[Variant]) -> set[tuple[str, str]]:
    """(problem slug, private string) for every private string of the variants in the text."""
    return {
        (variant.problem.slug, secret)
        for variant in variants
        for secret, forms in private_strings(variant).items()
        if any(form in text for form in forms)
    }


def body(response) -> str:
    """A response's text, streamed or not."""
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content).decode()
    return response.content.decode()
