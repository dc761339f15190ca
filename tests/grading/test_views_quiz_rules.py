"""The quiz's rules as learners read them (grading.quiz_rules), the same on the quiz page and
the attempt page; an unreadable answer's message said once; plurals said right."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from courses.models import Quiz
from grading import quiz_rules
from tests.grading.test_views import token_in
from tests.grading.test_views_quiz import follow, sheet_post, start, take_url

pytestmark = pytest.mark.django_db


def _practice(**settings) -> Quiz:
    defaults = {"show_feedback": Quiz.Feedback.IMMEDIATELY, "tries_per_item": 3}
    return Quiz(mode=Quiz.Mode.PRACTICE, **{**defaults, **settings})


@pytest.mark.parametrize(
    ("quiz", "rule"),
    [
        (_practice(tries_per_item=1), "One try per item."),
        (_practice(), "3 tries per item; your best try counts."),
        (
            _practice(extra_try_penalty=1 / 3),
            "3 tries per item. Each try after the first costs a third of the item's points (an "
            "item never scores below 0), and your best try counts.",
        ),
        (_practice(extra_try_penalty=0.3333), "costs a third of the item's points"),
        (_practice(extra_try_penalty=0.5), "costs half of the item's points"),
        (_practice(extra_try_penalty=0.2), "costs a fifth of the item's points"),
        (_practice(extra_try_penalty=0.15), "costs 15% of the item's points"),
        (
            Quiz(mode=Quiz.Mode.EXAM, show_feedback=Quiz.Feedback.AFTER_SUBMISSION),
            "One answer per item, which you can change as often as you like until you submit.",
        ),
        # Feedback after submission: tries are not counted whatever tries_per_item says.
        (
            _practice(show_feedback=Quiz.Feedback.AFTER_SUBMISSION, tries_per_item=5),
            "One answer per item, which you can change",
        ),
    ],
)
def test_the_tries_rule_follows_the_settings(quiz, rule):
    assert rule in quiz_rules.tries_rule(quiz)


def test_the_tries_rule_says_a_coarse_rounding_costs_no_try_where_it_does_not():
    quiz = _practice()
    assert quiz_rules.tries_rule(quiz).endswith(quiz_rules.ROUNDING_RETRY)
    quiz.rounding_retries = False
    assert quiz_rules.tries_rule(quiz) == "3 tries per item; your best try counts."
    # Where the latest saved answer is the score, every answer counts: nothing to give back.
    exam = Quiz(mode=Quiz.Mode.EXAM, show_feedback=Quiz.Feedback.AFTER_SUBMISSION)
    assert quiz_rules.ROUNDING_RETRY not in quiz_rules.tries_rule(exam)


@pytest.mark.parametrize(
    ("minutes", "words"),
    [(None, "None"), (1, "1 minute, from"), (20, "20 minutes, from")],
)
def test_the_time_rule_follows_the_setting(minutes, words):
    assert quiz_rules.time_rule(Quiz(time_limit_minutes=minutes)).startswith(words)


def test_the_exam_s_description_and_rules_agree(learner_client, shipped_bank):
    """The exam's page states its rules once, from its settings: the description names none."""
    exam = Quiz.objects.get(slug="attention-exam")
    html = learner_client.get(reverse("quiz-detail", kwargs={"slug": exam.slug})).content.decode()
    rule = quiz_rules.tries_rule(exam)
    assert rule.startswith("One answer per item, which you can change")
    assert html.count(rule) == 1
    assert "one try per item" not in html.lower()
    attempt = start(learner_client, exam.slug)
    assert learner_client.get(take_url(attempt)).content.decode().count(rule) == 1


def test_a_penalty_is_stated_on_the_quiz_page_and_the_attempt_page(learner_client, shipped_bank):
    practice = Quiz.objects.get(slug="attention-practice")
    practice.extra_try_penalty = 1 / 3
    practice.save()
    said = "Each try after the first costs a third of the item&#x27;s points"
    html = learner_client.get(reverse("quiz-detail", kwargs={"slug": practice.slug}))
    assert said in html.content.decode()
    attempt = start(learner_client, practice.slug)
    assert said in learner_client.get(take_url(attempt)).content.decode()


def test_an_unreadable_answer_says_so_once(learner_client, shipped_bank):
    attempt = start(learner_client, "attention-practice")
    item = attempt.quiz.items.filter(problem__isnull=False).order_by("order").first()
    url = reverse("attempt-answer", kwargs={"pk": attempt.pk, "item_pk": item.pk})
    page = learner_client.get(take_url(attempt)).content.decode()
    html = follow(
        learner_client, learner_client.post(url, {"answer": "9^9^9", "token": token_in(page)})
    )
    section = re.search(rf'<section[^>]*id="item-{item.pk}".*?</section>', html, re.S).group(0)
    assert section.count("could not read") == 1
    assert section.count("too large") == 1
    assert "It cost no try." in section
    assert 'aria-invalid="true"' in section


def test_unreadable_answers_are_counted_in_words_that_fit_the_number(learner_client, shipped_bank):
    attempt = start(learner_client, "attention-exam")
    first, second = attempt.quiz.items.filter(problem__isnull=False).order_by("order")[:2]
    html = follow(learner_client, sheet_post(learner_client, attempt, {first: "9^9^9"}))
    assert "1 answer could not be read and was not saved; see the message next to the box." in html
    html = follow(
        learner_client, sheet_post(learner_client, attempt, {first: "(1", second: "9^9^9"})
    )
    assert (
        "2 answers could not be read and were not saved; see the message next to each box." in html
    )
    html = follow(learner_client, sheet_post(learner_client, attempt, {first: "2", second: "3"}))
    assert "Saved 2 answers." in html
    html = follow(learner_client, sheet_post(learner_client, attempt, {first: "4"}))
    assert "Saved 1 answer." in html
