"""Worked solutions in practice (offered after wrong tries, revealed by a POST, recorded, the
streak ended, the variant closed) and on a quiz's results page (only with released answers)."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from courses.models import Problem, Quiz
from grading import engine
from grading.models import PracticeStreak, Response, SolutionReveal, Variant
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.errors import ServiceError, SolutionNotAvailable, SolutionRevealed
from grading.services.practice import practice_answer_submit, practice_variant_new
from grading.services.responses import response_submit
from grading.services.solutions import solution_reveal
from tests.factories import ProblemFactory, QuizFactory, QuizItemFactory, UserFactory
from tests.grading.test_views import token_in

pytestmark = pytest.mark.django_db

# The example: d_k = 512, σq = 0.5, σk = 1. By hand: σq²σk² = 0.25 · 1 = 0.25, and
# Var(q·k) = 512 · 0.25 = 128.
GIVENS = {"d_k": 512, "sigma_q": 0.5, "sigma_k": 1.0}
WRONG = "12345"


@pytest.fixture
def problem():
    return ProblemFactory(slug="dot-variance-x", title="Variance", family="dot-variance")


def variant_for(learner, problem, givens=GIVENS) -> Variant:
    variant = practice_variant_new(user=learner, problem=problem)
    Variant.objects.filter(pk=variant.pk).update(givens=givens)
    variant.refresh_from_db()
    return variant


def wrong_tries(learner, variant, count: int) -> None:
    for _ in range(count):
        # Each a different wrong value: the same text again at once is a double submit.
        tried = Response.objects.filter(variant=variant).count()
        response = practice_answer_submit(user=learner, variant=variant, text=f"{WRONG}{tried}")
        assert response.status == Response.Status.INCORRECT


def right_answer(variant) -> str:
    family = engine.get_family(variant.family)
    return engine.format_answer(family.solve(variant.givens, variant.grading_key).answer)


# --- the service -----------------------------------------------------------------------------


def test_no_solution_before_a_wrong_try(learner, problem):
    variant = variant_for(learner, problem)
    with pytest.raises(SolutionNotAvailable, match="after a wrong try"):
        solution_reveal(user=learner, variant=variant, give_up=True)
    assert not SolutionReveal.objects.exists()


def test_after_one_wrong_try_only_a_learner_who_gives_up_gets_it(learner, problem):
    variant = variant_for(learner, problem)
    wrong_tries(learner, variant, 1)
    with pytest.raises(SolutionNotAvailable, match="give up"):
        solution_reveal(user=learner, variant=variant)
    assert not SolutionReveal.objects.exists()
    reveal, made = solution_reveal(user=learner, variant=variant, give_up=True)
    assert made
    assert (reveal.user, reveal.variant, reveal.gave_up_early) == (learner, variant, True)
    assert reveal.revealed_at is not None


def test_after_the_problems_wrong_tries_it_is_offered_without_giving_up(learner, problem):
    variant = variant_for(learner, problem)
    wrong_tries(learner, variant, 2)
    with pytest.raises(SolutionNotAvailable):
        solution_reveal(user=learner, variant=variant)
    wrong_tries(learner, variant, 1)
    reveal, made = solution_reveal(user=learner, variant=variant)
    assert made
    assert reveal.gave_up_early is False


def test_the_threshold_is_the_problems_own(learner, problem):
    problem.solution_after_tries = 1
    problem.save()
    variant = variant_for(learner, problem)
    wrong_tries(learner, variant, 1)
    _, made = solution_reveal(user=learner, variant=variant)
    assert made


def test_invalid_input_is_not_a_wrong_try(learner, problem):
    variant = variant_for(learner, problem)
    practice_answer_submit(user=learner, variant=variant, text="[1, 2")
    assert Response.objects.get().status == Response.Status.INVALID
    with pytest.raises(SolutionNotAvailable):
        solution_reveal(user=learner, variant=variant, give_up=True)


def test_no_solution_for_numbers_answered_right(learner, problem):
    variant = variant_for(learner, problem)
    wrong_tries(learner, variant, 3)
    practice_answer_submit(user=learner, variant=variant, text=right_answer(variant))
    with pytest.raises(SolutionNotAvailable):
        solution_reveal(user=learner, variant=variant, give_up=True)


def test_revealing_ends_the_streak_and_closes_the_variant(learner, problem):
    old = variant_for(learner, problem)
    wrong_tries(learner, old, 1)
    # Two fresh variants right at the first try: a streak of 2 built after the wrong try.
    for _ in range(2):
        fresh = practice_variant_new(user=learner, problem=problem)
        practice_answer_submit(user=learner, variant=fresh, text=right_answer(fresh))
    streak = PracticeStreak.objects.get(user=learner, problem=problem)
    assert (streak.current, streak.tries_total) == (2, 3)
    solution_reveal(user=learner, variant=old, give_up=True)
    streak.refresh_from_db()
    assert (streak.current, streak.best, streak.tries_total) == (0, 2, 3)
    # The revealed numbers take no more answers, not even the right one.
    with pytest.raises(SolutionRevealed, match="new variant"):
        practice_answer_submit(user=learner, variant=old, text=right_answer(old))
    assert Response.objects.filter(variant=old).count() == 1
    streak.refresh_from_db()
    assert (streak.current, streak.correct_total) == (0, 2)


def test_revealing_again_changes_nothing(learner, problem):
    variant = variant_for(learner, problem)
    wrong_tries(learner, variant, 3)
    first, made = solution_reveal(user=learner, variant=variant)
    again, made_again = solution_reveal(user=learner, variant=variant)
    assert (made, made_again, again) == (True, False, first)
    assert SolutionReveal.objects.count() == 1


def test_only_the_learners_own_practice_variant(learner, problem):
    variant = variant_for(learner, problem)
    wrong_tries(learner, variant, 3)
    with pytest.raises(ServiceError, match="not one of your"):
        solution_reveal(user=UserFactory(), variant=variant)
    assert not SolutionReveal.objects.exists()


# --- the practice page ------------------------------------------------------------------------


def page(client, problem) -> str:
    return client.get(reverse("practice", kwargs={"slug": problem.slug})).content.decode()


def answer(client, problem, variant, text=WRONG) -> None:
    url = reverse("practice", kwargs={"slug": problem.slug})
    html = client.get(url).content.decode()
    client.post(url, {"variant": variant.pk, "answer": text, "token": token_in(html)})


SOLUTION_URL = 'action="/practice/dot-variance-x/solution/"'
OFFERED = "Show the worked solution"
GIVE_UP = 'name="give_up"'
RULE = (
    "A worked solution for these numbers is offered after 3 wrong tries on them; from your "
    "first wrong try you may give up and ask for it sooner."
)


def test_the_page_states_the_rule_and_offers_nothing_before_a_wrong_try(learner_client, problem):
    html = page(learner_client, problem)
    assert RULE in html
    assert SOLUTION_URL not in html
    assert OFFERED not in html
    assert GIVE_UP not in html


def test_the_give_up_form_after_one_wrong_try_the_offer_after_three(
    learner_client, learner, problem
):
    variant = variant_for(learner, problem)
    for tries in (1, 2):
        answer(learner_client, problem, variant, text=f"{WRONG}{tries}")
        html = page(learner_client, problem)
        assert SOLUTION_URL in html, tries
        assert GIVE_UP in html, tries
        assert OFFERED not in html, tries
    answer(learner_client, problem, variant, text=f"{WRONG}3")
    html = page(learner_client, problem)
    assert OFFERED in html
    assert GIVE_UP not in html


def test_revealing_shows_the_learners_own_numbers_and_offers_new_ones(
    learner_client, learner, problem
):
    variant = variant_for(learner, problem)
    answer(learner_client, problem, variant)
    before = page(learner_client, problem)
    assert 'id="solution"' not in before
    assert "<mn>128</mn>" not in before
    response = learner_client.post(
        reverse("practice-solution", kwargs={"slug": problem.slug}),
        {"variant": variant.pk, "give_up": "yes"},
    )
    assert response.status_code == 302
    assert response.url.endswith("#solution")
    html = page(learner_client, problem)
    section = re.search(r'<section class="solution".*?</section>', html, flags=re.S).group(0)
    # 0.5² · 1² = 0.25, and 512 · 0.25 = 128, written with this variant's numbers.
    for number in ("512", "0.5", "0.25", "128"):
        assert f"<mn>{number}</mn>" in section, number
    # No step is a tab stop in the HTML: page.js makes only those that overflow one.
    assert section.count("<li>") == 3
    assert "tabindex" not in section.split("</h2>", 1)[1]
    assert "$" not in section
    assert 'name="answer"' not in html  # no more answers on these numbers
    assert "Next variant" in html
    assert PracticeStreak.objects.get(user=learner, problem=problem).current == 0
    # The next variant is a fresh one, without a solution.
    learner_client.post(
        reverse("practice-new", kwargs={"slug": problem.slug}), {"replaces": variant.pk}
    )
    html = page(learner_client, problem)
    assert 'id="solution"' not in html
    assert 'name="answer"' in html


def test_giving_up_needs_the_box_ticked(learner_client, learner, problem):
    variant = variant_for(learner, problem)
    answer(learner_client, problem, variant)
    response = learner_client.post(
        reverse("practice-solution", kwargs={"slug": problem.slug}),
        {"variant": variant.pk},
        follow=True,
    )
    html = response.content.decode()
    assert "only if you confirm that you give up" in html
    assert not SolutionReveal.objects.exists()
    assert 'id="solution"' not in html


def test_an_answer_sent_after_the_reveal_is_refused_with_a_message(
    learner_client, learner, problem
):
    variant = variant_for(learner, problem)
    wrong_tries(learner, variant, 3)
    solution_reveal(user=learner, variant=variant)
    url = reverse("practice", kwargs={"slug": problem.slug})
    html = learner_client.get(url).content.decode()
    response = learner_client.post(
        url, {"variant": variant.pk, "answer": "128", "token": "a-token-1"}, follow=True
    )
    assert "take no more answers" in response.content.decode()
    assert Response.objects.filter(variant=variant).count() == 3
    assert "Next variant" in html


def test_reveal_is_a_post_with_csrf_and_for_the_learners_own_variant(learner, problem):
    variant = variant_for(learner, problem)
    wrong_tries(learner, variant, 3)
    url = reverse("practice-solution", kwargs={"slug": problem.slug})
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(learner)
    assert strict.post(url, {"variant": variant.pk}).status_code == 403
    assert strict.get(url).status_code == 405
    other = Client()
    other.force_login(UserFactory())
    assert other.post(url, {"variant": variant.pk}).status_code == 404
    assert other.post(url, {"variant": "x"}).status_code == 404
    assert not SolutionReveal.objects.exists()


def test_a_reveal_appears_in_the_admin_records(admin_client, learner, problem):
    variant = variant_for(learner, problem)
    wrong_tries(learner, variant, 3)
    solution_reveal(user=learner, variant=variant)
    html = admin_client.get(reverse("admin:grading_solutionreveal_changelist")).content.decode()
    assert learner.username in html


# --- quiz results -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("release", "shown"),
    [
        (Quiz.AnswerRelease.AFTER_SUBMISSION, True),
        (Quiz.AnswerRelease.NEVER, False),
    ],
)
def test_quiz_results_show_solutions_only_with_released_answers(
    learner_client, learner, problem, release, shown
):
    quiz = QuizFactory(
        lesson=problem.lesson,
        mode=Quiz.Mode.EXAM,
        show_feedback=Quiz.Feedback.AFTER_SUBMISSION,
        release_answers=release,
    )
    QuizItemFactory(quiz=quiz, question=None, problem=problem)
    attempt = attempt_start(user=learner, quiz=quiz)
    Variant.objects.filter(attempt=attempt).update(givens=GIVENS)
    variant = Variant.objects.get(attempt=attempt)
    response_submit(attempt=attempt, item=variant.quiz_item, text=WRONG)
    results = reverse("attempt-results", kwargs={"pk": attempt.pk})
    take = learner_client.get(reverse("attempt-take", kwargs={"pk": attempt.pk}))
    assert 'class="solution"' not in take.content.decode()
    attempt_submit(attempt=attempt)
    html = learner_client.get(results).content.decode()
    assert ('<details class="solution"' in html) is shown
    assert ("<mn>128</mn>" in html) is shown


def test_problem_threshold_is_at_least_one():
    problem = Problem(solution_after_tries=0)
    with pytest.raises(Exception, match="greater than or equal to 1"):
        problem.full_clean(exclude=["lesson", "slug", "title", "family"])
