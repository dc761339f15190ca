"""A learner takes an exam with items drawing from a pool, in Chromium: the page shows the
questions their attempt drew (and no other member), the same after a reload, and the results
count each drawn question at its item's points."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from courses.models import Question
from grading.models import Attempt, AttemptDraw
from tests.browser.conftest import log_in
from tests.grading.pools import quiz_with_pool

pytestmark = pytest.mark.browser


def test_a_learner_takes_an_exam_that_draws_from_a_pool(page, live_server, learner_account):
    quiz, pool = quiz_with_pool(draw=2, questions=5, points=2, mode="exam")
    log_in(page, live_server, learner_account)
    page.goto(f"{live_server.url}/quizzes/{quiz.slug}/")
    page.get_by_role("button", name="Start attempt 1").click()
    expect(page.locator('form[data-autosave="on"]')).to_have_count(1)
    attempt = Attempt.objects.get(user=learner_account)
    drawn = dict(
        AttemptDraw.objects.filter(attempt=attempt).values_list("quiz_item_id", "question_id")
    )
    assert len(set(drawn.values())) == 2
    questions = Question.objects.in_bulk(drawn.values())
    for question in pool.questions.all():
        shown = page.get_by_text(question.prompt, exact=True)
        expect(shown).to_have_count(1 if question.pk in questions else 0)
    page.reload()
    for question in questions.values():
        expect(page.get_by_text(question.prompt, exact=True)).to_have_count(1)

    # The right choice of the fixed question and of the first drawn one, a wrong one of the other.
    second = max(drawn)
    for item in quiz.items.order_by("order"):
        question = questions[drawn[item.pk]] if item.pool_id else item.question
        right = item.pk != second
        choice = question.choices.get(is_correct=right)
        page.locator(f"#item-{item.pk}-choice-{choice.pk}").check()
    page.get_by_role("button", name="Submit attempt").click()
    page.get_by_role("dialog").get_by_role("button", name="Submit now").click()
    expect(page.get_by_role("heading", name=re.compile("Results"))).to_be_visible()
    expect(page.locator("#score")).to_have_text("3 of 5 points")
    for item_id, question_id in drawn.items():
        expect(page.locator(f"#item-{item_id}")).to_contain_text(questions[question_id].prompt)
    attempt.refresh_from_db()
    assert (attempt.score, attempt.max_score) == (3.0, 5.0)
