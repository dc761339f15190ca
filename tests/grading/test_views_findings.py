"""Every wrong answer teaches on the learner's pages: a structural finding or a near miss is
named in the feedback, which never holds the right value; a too coarsely rounded answer is given
back its try in practice and in a quiz that keeps rounding retries."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from courses.models import Problem, Quiz
from grading.engine.answers import format_number
from grading.models import PracticeStreak, Response, Variant
from grading.services.practice import practice_variant_current
from tests.grading.test_views import practice_url, submit_practice, token_in
from tests.grading.test_views_quiz import follow, start, take_url

pytestmark = pytest.mark.django_db

# softmax([1, 2, 3]) = (0.0900, 0.2447, 0.6652); its Jacobian has 0.0819, −0.0220, …
LOGITS = {"z": [1.0, 2.0, 3.0]}
RIGHT_P = (0.09003057, 0.24472847, 0.66524096)
# d_k = 512, σq = 0.5, σk = 1: Var(q·k) = 128, to be given to 3 significant figures (1%).
ISSUE_GIVENS = {"d_k": 512, "sigma_q": 0.5, "sigma_k": 1.0}


def variant_of(learner, slug: str, givens: dict) -> Variant:
    variant = practice_variant_current(user=learner, problem=Problem.objects.get(slug=slug))
    Variant.objects.filter(pk=variant.pk).update(givens=givens)
    variant.refresh_from_db()
    return variant


def feedback_of(html: str) -> str:
    """The verdict's feedback text as the page shows it."""
    return re.search(r'<div class="verdict-feedback">(.*?)</div>', html, re.S).group(1)


def forms(values) -> set[str]:
    """Each value as a learner could read it off a page: 2 to 4 significant figures."""
    return {format_number(value, figures) for value in values for figures in (2, 3, 4)}


@pytest.mark.parametrize(
    ("text", "phrase", "code"),
    [
        ("[-0.1, 0.4, 0.7]", "A probability is never negative", "probability-out-of-range"),
        ("[0.2, 0.3, 0.6]", "do not add up to 1", "probabilities-do-not-sum-to-1"),
        ("[0.6652, 0.2447, 0.0900]", "in the wrong order", "probabilities-permuted"),
        ("[9.00, 24.47, 66.52]", "looks like a percentage", "percentage-for-fraction"),
    ],
)
def test_a_wrong_softmax_is_told_what_kind_of_answer_it_is(
    learner_client, learner, shipped_bank, text, phrase, code
):
    variant = variant_of(learner, "softmax", LOGITS)
    html = follow(learner_client, submit_practice(learner_client, variant, text))
    feedback = feedback_of(html)
    assert phrase in feedback
    assert not forms(RIGHT_P) & set(re.findall(r"\d+(?:\.\d+)?", feedback))
    response = Response.objects.get(variant=variant)
    assert (response.detail["diagnosis"], response.counts_as_try) == (code, True)


def test_a_structural_finding_shows_no_right_value_anywhere_on_the_page(
    learner_client, learner, shipped_bank
):
    variant = variant_of(learner, "softmax", LOGITS)
    html = follow(learner_client, submit_practice(learner_client, variant, "[0.2, 0.3, 0.6]"))
    assert not forms(RIGHT_P) & set(re.findall(r"\d+(?:\.\d+)?", html))


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("[[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.3]]", "do not sum to 0"),
        ("[[0.2, -0.1, -0.1], [-0.1, 0.2, -0.1], [-0.1, -0.1, 0.2]]", "no probability vector"),
        ("[[0.1, -0.05, -0.05], [-0.2, 0.25, -0.05], [-0.05, -0.05, 0.1]]", "not symmetric"),
    ],
)
def test_a_wrong_jacobian_is_told_which_property_it_breaks(
    learner_client, learner, shipped_bank, text, phrase
):
    variant = variant_of(learner, "softmax-jacobian", LOGITS)
    html = follow(learner_client, submit_practice(learner_client, variant, text))
    feedback = feedback_of(html)
    assert phrase in feedback
    p = RIGHT_P
    right = [p[i] * ((i == j) - p[j]) for i in range(3) for j in range(3)]
    assert not forms(map(abs, right)) & set(re.findall(r"\d+(?:\.\d+)?", feedback))


def test_too_few_figures_costs_no_try_and_keeps_the_first_try_streak(
    learner_client, learner, shipped_bank
):
    variant = variant_of(learner, "dot-variance", ISSUE_GIVENS)
    html = follow(learner_client, submit_practice(learner_client, variant, "130"))
    assert "but nearly: this one cost no try" in html
    assert "at least 3 significant figures" in feedback_of(html)
    assert "128" not in feedback_of(html)
    near = Response.objects.get(variant=variant)
    assert (near.status, near.counts_as_try, near.detail["finding"]) == (
        "incorrect",
        False,
        "near-miss",
    )
    assert not PracticeStreak.objects.filter(user=learner).exists()
    # The right value next is still a first try on fresh numbers: the streak grows.
    submit_practice(learner_client, variant, "128")
    assert PracticeStreak.objects.get(user=learner).current == 1


def test_other_near_misses_cost_a_try(learner_client, learner, shipped_bank):
    variant = variant_of(learner, "dot-variance", ISSUE_GIVENS)
    html = follow(learner_client, submit_practice(learner_client, variant, "-128"))
    assert "wrong sign" in feedback_of(html)
    assert "cost no try" not in html
    assert Response.objects.get(variant=variant).counts_as_try
    html = learner_client.get(practice_url()).content.decode()
    assert "Or try again on these numbers" in html


def _quiz_near_miss(learner_client, rounding_retries: bool) -> str:
    Quiz.objects.filter(slug="attention-practice").update(rounding_retries=rounding_retries)
    attempt = start(learner_client, "attention-practice")
    item = attempt.quiz.items.filter(problem__slug="dot-variance").get()
    Variant.objects.filter(attempt=attempt, quiz_item=item).update(givens=ISSUE_GIVENS)
    page = learner_client.get(take_url(attempt)).content.decode()
    url = reverse("attempt-answer", kwargs={"pk": attempt.pk, "item_pk": item.pk})
    html = follow(
        learner_client, learner_client.post(url, {"answer": "130", "token": token_in(page)})
    )
    item_html = html[html.index(f'id="item-{item.pk}"') :]
    return item_html[: item_html.index("</section>")] if "</section>" in item_html else item_html


def test_a_quiz_with_rounding_retries_gives_the_try_back(learner_client, shipped_bank):
    html = _quiz_near_miss(learner_client, rounding_retries=True)
    assert "0 of 3 tries used" in html
    assert "at least 3 significant figures" in html
    assert Response.objects.get().counts_as_try is False


def test_a_quiz_without_rounding_retries_counts_the_try(learner_client, shipped_bank):
    html = _quiz_near_miss(learner_client, rounding_retries=False)
    assert "1 of 3 tries used" in html
    assert "at least 3 significant figures" in html
    assert Response.objects.get().counts_as_try is True
