"""Statistics of a quiz that draws from a pool: per question or problem, whatever item an
attempt drew it into, on the statistics page, its response analysis and the API export."""

from __future__ import annotations

import csv
import math
from collections import Counter

import pytest
from django.urls import reverse

from courses.models import Question
from grading import selectors
from grading.models import Attempt, AttemptDraw, Response
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.responses import SheetAnswer, attempt_answers_save
from teaching.models import CourseRole
from teaching.statistics import figures as quiz_statistics
from teaching.statistics.data import RULES, item_data, quiz_data
from teaching.statistics.export import statistics_csv_lines, statistics_document
from teaching.statistics.pools import entry_key
from teaching.statistics.responses import counts_of
from tests.factories import QuizItemFactory, UserFactory
from tests.grading.pools import pool_of, quiz_with_pool, two_choice_question

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
    members = [entry_key(item) for item in quiz_data(quiz=quiz).items[1:]]
    assert [row["drawn"] for row in document["items"]] == [None, *members]
    lines = list(csv.DictReader(statistics_csv_lines(quiz_data(quiz=quiz))))
    assert [line["drawn"] for line in lines] == ["", *members]


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


def test_a_pool_every_attempt_draws_whole_gives_the_figures_of_fixed_items():
    """Two items drawing from a pool of two: every attempt shows both questions, in either
    item. Each question's figures are then those of a quiz with the two as fixed items."""
    quiz, pool = quiz_with_pool(draw=2, questions=2, mode="exam")
    a, b = pool.questions.order_by("pk")
    rows = []
    for n in range(10):
        attempt = attempt_start(user=UserFactory(), quiz=quiz)
        right = {"fixed": n % 4 != 0, a.pk: n % 2 == 1, b.pk: n % 3 == 0}
        answers = {}
        for row in selectors.attempt_sheet(attempt=attempt):
            key = row.item.question_id if row.item.pool_id else "fixed"
            pick = next(c for c in row.choices if c.is_correct == right[key])
            answers[row.item.pk] = SheetAnswer(choice_ids=(pick.pk,))
        attempt_answers_save(attempt=attempt, answers=answers)
        attempt = attempt_submit(attempt=attempt)
        rows.append(
            ([float(right["fixed"]), float(right[a.pk]), float(right[b.pk])], attempt.score)
        )
    data = quiz_data(quiz=quiz)
    assert [entry_key(item) for item in data.items][1:] == [f"question-{a.pk}", f"question-{b.pk}"]
    order = {attempt.pk: index for index, attempt in enumerate(data.attempts)}
    assert len(order) == 10
    expected = quiz_statistics.quiz_statistics(
        [scores for scores, _ in rows], [1.0, 2.0, 2.0], [total for _, total in rows]
    )
    report = data.report()
    # Not the effective weights: a share of the totals' spread among the quiz's own items, where
    # each pool item holds one question in some attempts and the other in the rest.
    for name in ("facility", "sd", "discrimination_index", "discriminative_efficiency",
                 "intended_weight"):  # fmt: skip
        for found, wanted in zip(report.items, expected.items, strict=True):
            assert getattr(found, name) == pytest.approx(getattr(wanted, name)), name
    assert report.quiz.mean == pytest.approx(expected.quiz.mean)
    # The quiz level reads the quiz's own items: each pool item scored what it drew.
    slots = list(quiz.items.filter(pool=pool).order_by("order"))
    by_slot = []
    for (marks, total), attempt in zip(
        rows, Attempt.objects.filter(quiz=quiz).order_by("pk"), strict=True
    ):
        drew = dict(
            AttemptDraw.objects.filter(attempt=attempt).values_list("quiz_item_id", "question_id")
        )
        index = {a.pk: 1, b.pk: 2}
        by_slot.append(([marks[0], *(marks[index[drew[slot.pk]]] for slot in slots)], total))
    whole = quiz_statistics.quiz_statistics(
        [marks for marks, _ in by_slot], [1.0, 2.0, 2.0], [total for _, total in by_slot]
    )
    assert report.quiz == whole.quiz


def test_each_pool_s_members_sit_at_its_own_first_item_worth_its_points():
    """A quiz: a draw from pool A (2 points), a fixed question, a draw from pool B (3 points).
    A's members stand where A's item stands, B's where B's stands, each worth its own points."""
    quiz, pool_a = quiz_with_pool(draw=1, questions=2, fixed=False, mode="exam", points=2)
    QuizItemFactory(quiz=quiz, question=two_choice_question(quiz, "Fixed question?"), order=5)
    pool_b = pool_of(quiz, questions=2)
    QuizItemFactory(quiz=quiz, question=None, pool=pool_b, points=3, order=9)
    for _ in range(8):
        attempt_submit(attempt=attempt_start(user=UserFactory(), quiz=quiz))
    drawn = AttemptDraw.objects.filter(attempt__quiz=quiz)
    members = {
        pool: sorted(set(drawn.filter(quiz_item__pool=pool).values_list("question_id", flat=True)))
        for pool in (pool_a, pool_b)
    }
    fixed = quiz.items.get(pool=None)
    data = quiz_data(quiz=quiz)
    assert [(entry_key(item), item.points) for item in data.items] == [
        *((f"question-{q}", 2) for q in members[pool_a]),
        (fixed.pk, 1),
        *((f"question-{q}", 3) for q in members[pool_b]),
    ]
    report = data.report()
    weights = [figures.intended_weight for figures in report.items]
    assert weights == pytest.approx(
        [2 / 6] * len(members[pool_a]) + [1 / 6] + [3 / 6] * len(members[pool_b])
    )


@pytest.mark.parametrize("rule", list(RULES))
def test_the_api_counts_a_member_s_responses_as_its_response_analysis_does(rule):
    """A pool of questions and problems: the database's grouped counts (the API) give each
    drawn member what the response-by-response analysis (the pages) gives it."""
    quiz, _ = quiz_with_pool(draw=2, questions=2, problems=2, mode="exam")
    for n in range(8):
        attempt = attempt_start(user=UserFactory(), quiz=quiz)
        answers = {}
        for row in selectors.attempt_sheet(attempt=attempt):
            if row.choices:
                pick = row.choices[n % len(row.choices)]
                answers[row.item.pk] = SheetAnswer(choice_ids=(pick.pk,))
            else:
                answers[row.item.pk] = SheetAnswer(text=("1.5", "x", "")[n % 3])
        attempt_answers_save(attempt=attempt, answers=answers)
        attempt_submit(attempt=attempt)
    data = quiz_data(quiz=quiz, rule=rule)
    counted = data.response_counts()
    assert counted == tuple(counts_of(a) for a in data.item_responses())
    assert [counts.item for counts in counted] == [entry_key(item) for item in data.items]
    assert any(isinstance(counts.item, str) and counts.responses for counts in counted)
    assert (
        sum(counts.responses for counts in counted)
        == Response.objects.filter(attempt__quiz=quiz).count()
    )
