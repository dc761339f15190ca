"""Statistics of a quiz that draws from a pool: per question or problem, whatever item an
attempt drew it into, on the statistics page, its response analysis and the API export."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from django.urls import reverse

from courses.models import Question
from grading import selectors
from grading.models import AttemptDraw
from grading.services.attempts import attempt_start, attempt_submit
from grading.services.responses import SheetAnswer, attempt_answers_save
from teaching.models import CourseRole
from teaching.pool_statistics import entry_key
from teaching.statistics_data import item_data, quiz_data
from teaching.statistics_export import statistics_document
from tests.factories import UserFactory
from tests.grading.pools import quiz_with_pool

pytestmark = pytest.mark.django_db

LEARNERS = 12


@pytest.fixture
def pooled():
    """12 learners took a quiz of a fixed question and two items drawing from a pool of four
    questions: each answered the pool's first question right and every other one wrong."""
    quiz, pool = quiz_with_pool(draw=2, questions=4, mode="exam")
    right_one = pool.questions.order_by("pk").first()
    for _ in range(LEARNERS):
        attempt = attempt_start(user=UserFactory(), quiz=quiz)
        answers = {}
        for row in selectors.attempt_sheet(attempt=attempt):
            correct = not row.item.pool_id or row.item.question_id == right_one.pk
            pick = next(c for c in row.choices if c.is_correct == correct)
            answers[row.item.pk] = SheetAnswer(choice_ids=(pick.pk,))
        attempt_answers_save(attempt=attempt, answers=answers)
        attempt_submit(attempt=attempt)
    return quiz, pool, right_one


def drawn_counts(quiz) -> Counter:
    return Counter(
        f"question-{q}"
        for q in AttemptDraw.objects.filter(attempt__quiz=quiz).values_list(
            "question_id", flat=True
        )
    )


def test_each_drawn_question_is_an_entry_of_its_own_across_the_items(pooled):
    quiz, _, right_one = pooled
    data = quiz_data(quiz=quiz)
    counts = drawn_counts(quiz)
    keys = [entry_key(item) for item in data.items]
    fixed = quiz.items.get(pool=None).pk
    assert keys[0] == fixed
    # One entry per question any attempt drew, none per pool item.
    assert sorted(keys[1:]) == sorted(counts)
    report = data.report()
    # The quiz level reads the quiz's own items: a fixed 1-point question, two 2-point draws.
    assert data.max_score == 5
    assert report.quiz.n == LEARNERS
    assert [figures.position for figures in report.items] == list(range(1, len(keys) + 1))
    for item, figures, column in zip(data.items, report.items, data.scores.T, strict=True):
        answered = [score for score in column if not math.isnan(score)]
        if item.pool_id:
            # Only the attempts that drew the question count for it.
            assert figures.n == len(answered) == counts[entry_key(item)]
            expected = 1.0 if item.question_id == right_one.pk else 0.0
            assert figures.facility == pytest.approx(expected)
        else:
            assert len(answered) == LEARNERS
            assert figures.facility == pytest.approx(1.0)
    # every attempt's two drawn entries are scored: 2 per learner over the members
    assert sum(counts.values()) == 2 * LEARNERS


def test_the_response_analysis_of_a_member_counts_its_answers_from_every_item(pooled):
    quiz, pool, right_one = pooled
    counts = drawn_counts(quiz)
    first = quiz.items.filter(pool=pool).order_by("order").first()
    for question in pool.questions.all():
        key = f"question-{question.pk}"
        data = item_data(quiz=quiz, rule=quiz_data(quiz=quiz).rule, item_id=first.pk, drawn=key)
        if not counts[key]:
            assert data is None
            continue
        assert data.item.question_id == question.pk
        assert data.analysis.responses == counts[key]
        right = question.pk == right_one.pk
        assert data.analysis.correct.count == (counts[key] if right else 0)
        assert [c.pk for c in data.choices] == list(
            question.choices.order_by("order", "id").values_list("pk", flat=True)
        )
    analyses = quiz_data(quiz=quiz).item_responses()
    assert [a.responses for a in analyses[1:]] == [
        counts[entry_key(item)] for item in quiz_data(quiz=quiz).items[1:]
    ]
    document = statistics_document(quiz_data(quiz=quiz))
    assert [row["drawn"] for row in document["items"]] == [None] + [
        entry_key(item) for item in quiz_data(quiz=quiz).items[1:]
    ]


def test_the_statistics_page_lists_the_members_and_links_their_responses(pooled, client):
    quiz, pool, _ = pooled
    assistant = UserFactory()
    CourseRole.objects.create(
        course=quiz.lesson.course, user=assistant, role=CourseRole.Role.TEACHING_ASSISTANT
    )
    client.force_login(assistant)
    html = client.get(reverse("teaching:quiz-statistics", args=[quiz.slug])).content.decode()
    first = quiz.items.filter(pool=pool).order_by("order").first()
    for key in drawn_counts(quiz):
        question = Question.objects.get(pk=key.removeprefix("question-"))
        assert question.slug in html
        link = reverse("teaching:item-responses", args=[quiz.slug, first.pk])
        assert f"{link}?attempts=first&amp;drawn={key}" in html
        page = client.get(link, {"attempts": "first", "drawn": key})
        assert page.status_code == 200
        assert question.slug in page.content.decode()
    missing = client.get(
        reverse("teaching:item-responses", args=[quiz.slug, first.pk]), {"drawn": "question-0"}
    )
    assert missing.status_code == 404
