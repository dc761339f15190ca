"""No page shows a correct answer or a mistake value before the policy releases it.

The scan formats every answer and mistake value of a variant (and every number of its grading
key) several ways (3 to 8 significant figures, fixed decimals, Python's repr) and looks for each
as a whole number anywhere in the page's HTML. Numbers that the problem statement itself shows
(the givens) cannot leak anything and are left out. A positive control proves the scan finds an
answer once it is released. A second scan (tests/grading/private_data.py) looks for every string
and key of a variant's grading key, such as a formula problem's formulas, before and after
release.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from django.urls import reverse

from courses.models import Lesson, Problem, Quiz
from grading import engine
from grading.engine.answers import format_number
from grading.families import problem_errors
from grading.models import Variant
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.practice import practice_variant_current
from grading.services.responses import response_submit
from tests.api.conftest import session_client
from tests.factories import PoolFactory, ProblemFactory, QuizFactory, QuizItemFactory
from tests.grading.private_data import (
    FORMULA_MISTAKES,
    FORMULA_SECRETS,
    exam_of_every_family,
    formula_problem,
    private_leaks,
    private_numbers,
    private_strings,
)
from tests.grading.test_views import token_in

pytestmark = pytest.mark.django_db

# A whole number in text: not part of a word or a longer number (tokens are letters and digits).
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?!\w|\.\d)")


def significant_digits(text: str) -> int:
    mantissa = text.lower().split("e")[0].replace("-", "").replace(".", "")
    return len(mantissa.lstrip("0"))


def spellings(value: float) -> set[str]:
    """The ways a page could print a value; short ones (like 8) are too common to scan for."""
    value = abs(float(value))
    forms = {format_number(value, sig) for sig in (3, 4, 5, 6, 8)}
    forms |= {f"{value:.2f}", f"{value:.3f}", f"{value:.4f}", repr(value), f"{value:g}"}
    return {form for form in forms if significant_digits(form) >= 3}


def secret_values(variant: Variant) -> list[float]:
    solution = engine.get_family(variant.family).solve(variant.givens, variant.grading_key)
    arrays = [solution.answer, *solution.mistakes.values()]
    values = [float(x) for array in arrays for x in np.asarray(array, dtype=float).ravel()]
    return values + private_numbers(variant)


def shown_numbers(variant: Variant) -> set[str]:
    """Numbers the statement shows on purpose: the givens, in every spelling."""
    family = engine.get_family(variant.family)
    text = family.prompt(variant.givens) + " " + (variant.problem.prompt or "")
    found = set(NUMBER.findall(text))
    for number in list(found):
        found |= spellings(float(number))
    return found


def authored_numbers(quiz: Quiz) -> set[str]:
    """Numbers the quiz's questions print on purpose (their prompts and choices)."""
    text = " ".join(
        [item.question.prompt for item in quiz.items.filter(question__isnull=False)]
        + [
            c.text
            for item in quiz.items.filter(question__isnull=False)
            for c in item.question.choices.all()
        ]
    )
    return set(NUMBER.findall(text))


# Where a page or a response names a record rather than a value: a record's id can equal an
# answer by chance (PostgreSQL's ids grow across the suite), which says nothing about a leak.
ID_KEY = re.compile(r"^(id|.*_id|variant|attempt|item|quiz_item|response|question|problem|choice)$")
ID_LIST_KEY = re.compile(r"^(choices|correct_choices)$")
TIME_KEY = re.compile(r"^(.*_at|deadline|timestamp|updated_since)$")
ID_ATTRIBUTE = re.compile(r'\b(value|name|id|for|data-choice|data-item)="\d+"')
# Attributes that only point at another element of the page ("item-4-choice-512" names choice
# 512): never shown to the learner, and on PostgreSQL a record id in them can equal any value.
REFERENCE_ATTRIBUTE = re.compile(
    r'\b(id|for|headers|aria-labelledby|aria-describedby|aria-controls|aria-owns)="[^"]*"'
)
ID_IN_PATH = re.compile(r"(?<=/)\d+(?=/)")


def _values_only(data):
    if isinstance(data, dict):
        return {
            key: _values_only(value)
            for key, value in data.items()
            if not (ID_KEY.match(key) and isinstance(value, int) and not isinstance(value, bool))
            and not (
                ID_LIST_KEY.match(key)
                and isinstance(value, list)
                and all(isinstance(v, int) for v in value)
            )
            and not TIME_KEY.match(key)
        }
    if isinstance(data, list):
        return [_values_only(value) for value in data]
    return data


def without_identifiers(text: str) -> str:
    """The text less the numbers that only identify records: JSON ids and times, and in HTML
    integer ids in attributes and URL paths."""
    try:
        return json.dumps(_values_only(json.loads(text)))
    except ValueError:
        return ID_IN_PATH.sub("", REFERENCE_ATTRIBUTE.sub("", ID_ATTRIBUTE.sub("", text)))


def leaks(
    html: str, variant: Variant, *, typed: str = "", authored: set[str] = frozenset()
) -> set[str]:
    """Spellings of the variant's answer or mistakes that appear in the page."""
    in_page = set(NUMBER.findall(without_identifiers(html)))
    allowed = shown_numbers(variant) | set(NUMBER.findall(typed)) | authored
    for number in NUMBER.findall(typed):
        allowed |= spellings(float(number))
    found = set()
    for value in secret_values(variant):
        found |= (spellings(value) - allowed) & in_page
    return found


def test_the_scan_ignores_element_references_but_not_content():
    """A record id inside an element's id or label reference is not a value; the same number in
    the text or in a data attribute still is."""
    references = '<input id="item-4-choice-512"><label for="item-4-choice-512">B.</label>'
    assert NUMBER.findall(without_identifiers(references)) == []
    shown = '<p data-answer="512">512</p><a href="/attempts/512/">Attempt</a>'
    assert NUMBER.findall(without_identifiers(shown)) == ["512", "512"]


def test_the_scan_finds_a_released_answer(learner_client, learner, db):
    """Positive control: once answers are released the scan must see them."""
    quiz = QuizFactory(mode=Quiz.Mode.EXAM, show_feedback=Quiz.Feedback.AFTER_SUBMISSION)
    QuizItemFactory(quiz=quiz, question=None, problem=ProblemFactory(lesson=quiz.lesson))
    attempt = attempt_start(user=learner, quiz=quiz)
    Variant.objects.filter(attempt=attempt).update(
        givens={"d_k": 1234, "sigma_q": 1.7, "sigma_k": 2.3}
    )
    variant = Variant.objects.get(attempt=attempt)
    take = learner_client.get(reverse("attempt-take", kwargs={"pk": attempt.pk}))
    assert leaks(take.content.decode(), variant) == set()
    attempt_submit(attempt=attempt)
    results = learner_client.get(reverse("attempt-results", kwargs={"pk": attempt.pk}))
    assert leaks(results.content.decode(), variant)


def test_practice_pages_never_show_an_answer_or_mistake(learner_client, learner, shipped_bank):
    for problem in Problem.objects.all():
        url = reverse("practice", kwargs={"slug": problem.slug})
        html = learner_client.get(url).content.decode()
        variant = practice_variant_current(user=learner, problem=problem)
        assert leaks(html, variant) == set(), problem.slug
        # After a wrong answer the page shows the learner's own value, and nothing more.
        solution = engine.get_family(variant.family).solve(variant.givens, variant.grading_key)
        codes = list(solution.mistakes)
        if codes:
            mistake = solution.mistakes[codes[0]]
            typed = engine.format_answer(mistake)
            learner_client.post(
                url, {"variant": variant.pk, "answer": typed, "token": token_in(html)}
            )
            html = learner_client.get(url).content.decode()
            assert "Not correct" in html
            assert leaks(html, variant, typed=typed) == set(), problem.slug


@pytest.mark.parametrize("slug", ["attention-exam", "attention-practice"])
def test_quiz_pages_show_no_answer_before_release(learner_client, learner, shipped_bank, slug):
    quiz = Quiz.objects.get(slug=slug)
    attempt = attempt_start(user=learner, quiz=quiz)
    take = reverse("attempt-take", kwargs={"pk": attempt.pk})
    variants = list(Variant.objects.filter(attempt=attempt).select_related("problem"))
    assert variants
    # Every problem's givens are printed on the page: one problem's d_k may equal another's answer.
    authored = authored_numbers(quiz) | set().union(*(shown_numbers(v) for v in variants))
    html = learner_client.get(take).content.decode()
    for variant in variants:
        assert leaks(html, variant, authored=authored) == set(), variant.problem.slug
    # Saving a wrong answer to every problem item shows the typed values back, nothing more.
    typed = "12345"
    for variant in variants:
        response_submit(attempt=attempt, item=variant.quiz_item, text=typed)
    html = learner_client.get(take).content.decode()
    for variant in variants:
        assert leaks(html, variant, typed=typed, authored=authored) == set()
    for page in ("home", "history"):
        html = learner_client.get(reverse(page)).content.decode()
        for variant in variants:
            assert leaks(html, variant) == set(), page
    detail = learner_client.get(reverse("quiz-detail", kwargs={"slug": slug})).content.decode()
    for variant in variants:
        assert leaks(detail, variant, authored=authored) == set()


def test_crafted_numbers_never_leak_in_any_spelling_before_release(learner_client, learner, db):
    """With givens chosen so every value is distinctive, even short spellings must not appear."""
    # Titles without digits: a factory's counter ("Quiz 137") is not a leak of 137.35.
    quiz = QuizFactory(
        title="Crafted exam",
        lesson__title="Crafted lesson",
        lesson__course__title="Crafted course",
        mode=Quiz.Mode.EXAM,
        show_feedback=Quiz.Feedback.AFTER_SUBMISSION,
        release_answers=Quiz.AnswerRelease.NEVER,
    )
    problem = ProblemFactory(lesson=quiz.lesson, title="Crafted problem")
    QuizItemFactory(quiz=quiz, question=None, problem=problem)
    attempt = attempt_start(user=learner, quiz=quiz)
    Variant.objects.filter(attempt=attempt).update(
        givens={"d_k": 1234, "sigma_q": 1.7, "sigma_k": 2.3}
    )
    variant = Variant.objects.get(attempt=attempt)
    # d_k σq² σk² = 18865.9…, √d_k σq σk = 137.35…, σq² σk² = 15.29…, d_k(σq² + σk²) = 10094.1…,
    # d_k σq σk = 4824.9…, √d_k = 35.13…; the σ-ignored mistake d_k = 1234 is a given, shown.
    values = [value for value in secret_values(variant) if value != 1234]
    assert len(values) == 7
    pages = [reverse("attempt-take", kwargs={"pk": attempt.pk})]
    response_submit(attempt=attempt, item=variant.quiz_item, text="7")
    attempt_submit(attempt=attempt)
    pages.append(reverse("attempt-results", kwargs={"pk": attempt.pk}))
    for url in pages:
        html = learner_client.get(url).content.decode()
        # Short spellings are looked for in what the page says; an id or a slug in a link
        # (attempt 137) is not a spelling of 137.35. Longer ones anywhere, attributes included.
        text = re.sub(r"<[^>]*>", " ", html)
        for value in values:
            for sig in (4, 6):
                assert format_number(value, sig) not in html, (url, value, sig)
            assert format_number(value, 3) not in text, (url, value, 3)
            if value >= 100:
                assert str(int(value)) not in text, (url, value)


def lesson_with_a_formula_problem() -> Lesson:
    """The shipped lesson (one problem per built-in family) plus an instructor's formula problem
    with mistakes and a hidden variable, valid as the admin would save it."""
    lesson = Lesson.objects.filter(problems__isnull=False).distinct().get()
    problem = formula_problem(lesson)
    assert problem_errors(problem.family, problem.params, None, None) == {}
    families = set(lesson.problems.values_list("family", flat=True))
    assert families == set(engine.FAMILIES), "every family must be scanned"
    return lesson


def assert_nothing_private(html: str, variants: list[Variant], where: str, *, numbers: bool):
    """No private string of any variant in the page; before release, no secret number either."""
    assert private_leaks(html, variants) == set(), where
    if numbers:
        # Every variant's givens are public: one problem's d_k may equal another's answer.
        public = set().union(*(shown_numbers(variant) for variant in variants))
        for variant in variants:
            found = leaks(html, variant, typed="12345", authored=public)
            assert found == set(), (where, variant.problem.slug)


def test_no_page_shows_a_variants_private_data_before_or_after_release(
    learner_client, learner, shipped_bank
):
    lesson = lesson_with_a_formula_problem()
    quiz = exam_of_every_family(lesson)
    attempt = attempt_start(user=learner, quiz=quiz)
    variants = list(Variant.objects.filter(attempt=attempt).select_related("problem", "quiz_item"))
    formula = next(v for v in variants if v.family == "formula")
    found = {form for forms in private_strings(formula).values() for form in forms}
    assert found >= FORMULA_SECRETS  # the scan looks for every formula, code and hidden name
    take = reverse("attempt-take", kwargs={"pk": attempt.pk})
    pages = [take, reverse("quiz-detail", kwargs={"slug": quiz.slug})]
    pages += [reverse("home"), reverse("history")]
    pages.append(reverse("practice-lesson", kwargs={"slug": lesson.slug}))
    for url in pages:
        assert_nothing_private(
            learner_client.get(url).content.decode(), variants, url, numbers=True
        )
    for variant in variants:
        response_submit(attempt=attempt, item=variant.quiz_item, text="12345")
    html = learner_client.get(take).content.decode()
    assert_nothing_private(html, variants, "saved sheet", numbers=True)

    attempt_submit(attempt=attempt)
    # Practice on every problem, the formula problem included, before and after an answer: once
    # the exam is submitted, since practice on a running exam's problems is refused.
    for problem in lesson.problems.all():
        url = reverse("practice", kwargs={"slug": problem.slug})
        html = learner_client.get(url).content.decode()
        practised = [practice_variant_current(user=learner, problem=problem)]
        assert_nothing_private(html, practised, url, numbers=True)
        shape = engine.get_family(problem.family).answer_shape(practised[0].givens)
        typed = engine.format_answer(np.full(shape, 12345.0))
        learner_client.post(
            url, {"variant": practised[0].pk, "answer": typed, "token": token_in(html)}
        )
        html = learner_client.get(url).content.decode()
        assert "Not correct" in html
        assert_nothing_private(html, practised, f"{url} answered", numbers=True)

    results = learner_client.get(reverse("attempt-results", kwargs={"pk": attempt.pk}))
    html = results.content.decode()
    # Released: the formula problem's answer value shows, and so do the worked solutions. A
    # formula problem's solution shows how its answer is computed (the answer formula, every
    # value, hidden ones too): that is what a solution is for. Its mistakes never show.
    assert leaks(html, formula), "the answer should show once released"
    solutions = re.findall(r'<details class="solution".*?</details>', html, flags=re.S)
    assert len(solutions) == len(variants)
    formula_solution = next(block for block in solutions if "hidden_shift" in block)
    assert "d_k * s^2 + hidden_shift" in formula_solution
    for secret in ("d_k * s + hidden_shift", *FORMULA_MISTAKES):
        assert secret not in html, secret
    assert_nothing_private(without_solutions(html), variants, "results", numbers=False)
    for url in pages:
        html = learner_client.get(url, follow=True).content.decode()
        assert_nothing_private(
            without_solutions(html), variants, f"{url} after release", numbers=False
        )


def without_solutions(html: str) -> str:
    """The page without its released worked solutions (they show how answers are computed)."""
    return re.sub(r'<details class="solution".*?</details>', "", html, flags=re.S)


def test_problems_drawn_from_a_pool_leak_nothing_before_release(
    learner_client, learner, shipped_bank
):
    """The same scans over an exam whose items draw every problem of the lesson, the formula
    problem included, from a pool (grading/draws.py): the page, the API and the answers saved."""
    lesson = lesson_with_a_formula_problem()
    quiz = QuizFactory(
        lesson=lesson,
        title="Pooled exam",
        mode=Quiz.Mode.EXAM,
        show_feedback=Quiz.Feedback.AFTER_SUBMISSION,
        release_answers=Quiz.AnswerRelease.AFTER_SUBMISSION,
    )
    pool = PoolFactory(lesson=lesson)
    pool.problems.set(lesson.problems.all())
    for order in range(lesson.problems.count()):
        QuizItemFactory(quiz=quiz, question=None, pool=pool, order=order)
    attempt = attempt_start(user=learner, quiz=quiz)
    variants = list(Variant.objects.filter(attempt=attempt).select_related("problem", "quiz_item"))
    assert {v.problem_id for v in variants} == set(lesson.problems.values_list("pk", flat=True))
    take = reverse("attempt-take", kwargs={"pk": attempt.pk})
    api = session_client(learner)
    items = reverse("api:attempt-items", kwargs={"attempt_id": attempt.pk})
    pages = {
        take: lambda: learner_client.get(take).content.decode(),
        items: lambda: api.get(items).content.decode(),
    }
    for url, read in pages.items():
        assert_nothing_private(read(), variants, url, numbers=True)
    for variant in variants:
        response_submit(attempt=attempt, item=variant.quiz_item, text="12345")
    for url, read in pages.items():
        assert_nothing_private(read(), variants, f"{url} saved", numbers=True)
    attempt_submit(attempt=attempt)
    results = learner_client.get(reverse("attempt-results", kwargs={"pk": attempt.pk}))
    formula = next(v for v in variants if v.family == "formula")
    assert leaks(results.content.decode(), formula), "the answer should show once released"
