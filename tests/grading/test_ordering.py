"""The order of an attempt's items and choices: its own, drawn from the attempt, and the same on
every reload, on the attempt and results pages, in the API, and whatever the instructor changes
after the start."""

from __future__ import annotations

import re

import pytest
from django.test import Client, override_settings
from django.urls import reverse

from courses.models import Choice, Question, Quiz
from grading import ordering, selectors
from grading.families import attempt_seed
from grading.models import Attempt, Response
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from tests.api.conftest import session_client
from tests.factories import (
    ChoiceFactory,
    MisconceptionFactory,
    ProblemFactory,
    QuestionFactory,
    QuizFactory,
    QuizItemFactory,
    UserFactory,
)
from tests.grading.test_views import token_in

pytestmark = pytest.mark.django_db

LEARNERS = 20


def quiz_of_questions(
    *,
    mode: str = Quiz.Mode.EXAM,
    questions: int = 6,
    choices: int = 4,
    pinned: tuple[int, ...] = (),
    problems: int = 0,
    **settings,
) -> Quiz:
    """A quiz of single-choice questions whose stored first choice is the correct one (the old
    shipped bank's habit), then `problems` problem items."""
    feedback = Quiz.Feedback.AFTER_SUBMISSION if mode == Quiz.Mode.EXAM else "immediately"
    quiz = QuizFactory(mode=mode, show_feedback=feedback, **settings)
    misconception = MisconceptionFactory(lesson=quiz.lesson)
    for n in range(questions):
        question = QuestionFactory(lesson=quiz.lesson, kind=Question.Kind.SINGLE)
        for c in range(choices):
            ChoiceFactory(
                question=question,
                text=f"Choice {n}.{c}",
                is_correct=c == 0,
                misconception=None if c == 0 else misconception,
                order=c,
                pinned=c in pinned,
            )
        QuizItemFactory(quiz=quiz, question=question, order=n)
    for n in range(problems):
        problem = ProblemFactory(lesson=quiz.lesson)
        QuizItemFactory(quiz=quiz, question=None, problem=problem, order=questions + n)
    return quiz


def stored_order(quiz: Quiz) -> list[tuple[int, list[int]]]:
    return [
        (
            item.pk,
            list(item.question.choices.order_by("order", "id").values_list("pk", flat=True))
            if item.question_id
            else [],
        )
        for item in quiz.items.order_by("order", "id")
    ]


def shown_order(attempt: Attempt) -> list[tuple[int, list[int]]]:
    """What the attempt shows, as every surface reads it: items, each with its choice ids."""
    attempt = Attempt.objects.get(pk=attempt.pk)
    return [
        (row.item.pk, [choice.pk for choice in row.choices])
        for row in selectors.attempt_sheet(attempt=attempt)
    ]


def attempts_of(quiz: Quiz, learners: int = LEARNERS) -> list[Attempt]:
    return [attempt_start(user=UserFactory(), quiz=quiz) for _ in range(learners)]


# --- the rule, without the database ---------------------------------------------------------


def test_arrange_orders_by_key_and_leaves_pinned_entries_where_they_are():
    keys = {"a": 3, "b": 1, "c": 2, "d": 0, "e": 9}
    assert ordering.arrange("abcde", key=keys.get) == ["d", "b", "c", "a", "e"]
    pinned = {"a", "d"}
    assert ordering.arrange("abcde", key=keys.get, pinned=pinned.__contains__) == [
        "a",
        "b",
        "c",
        "d",
        "e",
    ]
    assert ordering.arrange("abcde", key=keys.get, pinned={"b"}.__contains__) == [
        "d",
        "b",
        "c",
        "a",
        "e",
    ]


@override_settings(SECRET_KEY="a fixed key, so the orders below are the same on every run")
def test_the_correct_choice_lands_in_every_position_across_attempts():
    """Deterministic: fixed key, fixed ids. Stored first, the right answer is shown first in
    about a quarter of the attempts, and in every other position too."""
    question = Question(kind=Question.Kind.SINGLE)
    choices = [Choice(pk=100 + c, is_correct=c == 0, order=c) for c in range(4)]
    positions = []
    for attempt_id in range(1, 41):
        attempt = Attempt(pk=attempt_id, shuffle_choices=True)
        shown = ordering.choice_order(attempt=attempt, question=question, choices=choices)
        assert sorted(c.pk for c in shown) == [100, 101, 102, 103]
        positions.append(next(i for i, c in enumerate(shown) if c.is_correct))
    assert set(positions) == {0, 1, 2, 3}
    assert positions.count(0) <= 20


def test_items_and_choices_get_separate_keys_from_the_variant_seeds():
    keys = {
        ordering.order_key(purpose=ordering.ITEM_ORDER, attempt_id=7, entry_id=3),
        ordering.order_key(purpose=ordering.CHOICE_ORDER, attempt_id=7, entry_id=3),
        ordering.order_key(purpose=ordering.ITEM_ORDER, attempt_id=8, entry_id=3),
    }
    assert len(keys) == 3
    assert attempt_seed(attempt_id=7, item_id=3) not in keys


# --- drawn per attempt -----------------------------------------------------------------------


def test_an_exam_shuffles_items_and_choices_differently_for_each_learner():
    quiz = quiz_of_questions()
    assert quiz.shuffle_items is None
    assert quiz.shuffles_items
    orders = [shown_order(attempt) for attempt in attempts_of(quiz)]
    stored = stored_order(quiz)
    item_orders = {tuple(item for item, _ in order) for order in orders}
    assert len(item_orders) > 1
    assert item_orders != {tuple(item for item, _ in stored)}
    for position, (item_id, stored_choices) in enumerate(stored):
        choice_orders = {
            tuple(choices) for order in orders for item, choices in order if item == item_id
        }
        assert len(choice_orders) > 1, position
        assert all(sorted(c) == sorted(stored_choices) for c in choice_orders)
    # Stored first, the right answer is not shown first to everyone.
    correct = set(Choice.objects.filter(is_correct=True).values_list("pk", flat=True))
    firsts = [choices[0] in correct for order in orders for _, choices in order]
    assert not all(firsts)


def test_the_order_is_the_same_on_every_read():
    quiz = quiz_of_questions(problems=2)
    attempt = attempts_of(quiz, learners=1)[0]
    first = shown_order(attempt)
    assert shown_order(attempt) == first
    assert attempt_start(user=attempt.user, quiz=quiz).pk == attempt.pk  # resumed
    assert shown_order(attempt) == first
    attempt_submit(attempt=attempt)
    assert shown_order(attempt) == first


def test_a_practice_quiz_keeps_the_stored_order_unless_told_to_shuffle():
    practice = quiz_of_questions(mode=Quiz.Mode.PRACTICE)
    assert not practice.shuffles_items
    assert not practice.shuffles_choices
    for attempt in attempts_of(practice):
        assert shown_order(attempt) == stored_order(practice)
    shuffled = quiz_of_questions(mode=Quiz.Mode.PRACTICE, shuffle_choices=True)
    orders = [shown_order(attempt) for attempt in attempts_of(shuffled)]
    assert {tuple(item for item, _ in order) for order in orders} == {
        tuple(item for item, _ in stored_order(shuffled))
    }
    assert len({tuple(order[0][1]) for order in orders}) > 1


def test_an_exam_with_shuffling_turned_off_keeps_the_stored_order():
    quiz = quiz_of_questions(shuffle_items=False, shuffle_choices=False)
    for attempt in attempts_of(quiz):
        assert shown_order(attempt) == stored_order(quiz)


def test_items_alone_can_be_shuffled():
    quiz = quiz_of_questions(shuffle_choices=False)
    stored_choices = dict(stored_order(quiz))
    orders = [shown_order(attempt) for attempt in attempts_of(quiz)]
    assert len({tuple(item for item, _ in order) for order in orders}) > 1
    assert all(choices == stored_choices[item] for order in orders for item, choices in order)


@pytest.mark.parametrize("pinned", [(3,), (1,), (0, 3)], ids=["last", "second", "both-ends"])
def test_a_pinned_choice_keeps_its_stored_position(pinned):
    quiz = quiz_of_questions(questions=2, choices=5, pinned=pinned)
    stored = dict(stored_order(quiz))
    moving_orders = set()
    for attempt in attempts_of(quiz):
        for item, choices in shown_order(attempt):
            for position in pinned:
                assert choices[position] == stored[item][position]
            moving_orders.add(tuple(c for i, c in enumerate(choices) if i not in pinned))
    assert len(moving_orders) > 2  # the others still move


def test_true_false_keeps_true_then_false():
    quiz = quiz_of_questions(questions=1)
    misconception = MisconceptionFactory(lesson=quiz.lesson)
    question = QuestionFactory(lesson=quiz.lesson, kind=Question.Kind.TRUE_FALSE)
    true = ChoiceFactory(question=question, text="True", is_correct=True, order=0)
    false = ChoiceFactory(
        question=question, text="False", is_correct=False, misconception=misconception, order=1
    )
    item = QuizItemFactory(quiz=quiz, question=question, order=1)
    for attempt in attempts_of(quiz):
        assert dict(shown_order(attempt))[item.pk] == [true.pk, false.pk]


def test_changing_the_settings_never_reorders_an_attempt_already_started():
    quiz = quiz_of_questions()
    shuffled = attempts_of(quiz, learners=3)
    before = {attempt.pk: shown_order(attempt) for attempt in shuffled}
    Quiz.objects.filter(pk=quiz.pk).update(shuffle_items=False, shuffle_choices=False)
    assert {attempt.pk: shown_order(attempt) for attempt in shuffled} == before
    later = attempts_of(Quiz.objects.get(pk=quiz.pk), learners=3)
    assert all(shown_order(attempt) == stored_order(quiz) for attempt in later)
    Quiz.objects.filter(pk=quiz.pk).update(shuffle_items=True, shuffle_choices=True)
    assert all(shown_order(attempt) == stored_order(quiz) for attempt in later)


# --- every surface shows the one order -------------------------------------------------------


def attempt_in_a_new_order(quiz: Quiz) -> tuple[Attempt, list[tuple[int, list[int]]]]:
    """A new learner's attempt whose order differs from the stored one in both items and
    choices, and that order. Not luck: the first of a few learners, so a comparison with the
    order a page shows cannot pass on the stored order."""
    stored = stored_order(quiz)
    for _ in range(5):
        attempt = attempt_start(user=UserFactory(), quiz=quiz)
        shown = shown_order(attempt)
        items_moved = [item for item, _ in shown] != [item for item, _ in stored]
        if items_moved and any(choices != dict(stored)[item] for item, choices in shown if choices):
            return attempt, shown
    pytest.fail("five learners in a row were shown the stored order")


def take_order(html: str) -> list[tuple[int, list[int]]]:
    """Items and choice ids in the order the attempt page shows them."""
    sections = re.split(r'<section class="card item[^"]*" id="item-(\d+)"', html)[1:]
    return [
        (int(item), [int(c) for c in re.findall(rf'id="item-{item}-choice-(\d+)"', body)])
        for item, body in zip(sections[::2], sections[1::2], strict=True)
    ]


def results_order(html: str) -> list[tuple[int, list[int]]]:
    sections = re.split(r'<section class="card item[^"]*" id="item-(\d+)"', html)[1:]
    return [
        (int(item), [int(c) for c in re.findall(r'data-choice="(\d+)"', body)])
        for item, body in zip(sections[::2], sections[1::2], strict=True)
    ]


def api_order(items: list[dict]) -> list[tuple[int, list[int]]]:
    return [(item["id"], [choice["id"] for choice in item["choices"]]) for item in items]


def test_the_pages_and_the_api_show_the_same_order(client: Client):
    quiz = quiz_of_questions(questions=5, problems=2)
    attempt, shown = attempt_in_a_new_order(quiz)
    learner = attempt.user

    client.force_login(learner)
    api = session_client(learner)
    take = client.get(reverse("attempt-take", kwargs={"pk": attempt.pk})).content.decode()
    assert take_order(take) == shown
    again = client.get(reverse("attempt-take", kwargs={"pk": attempt.pk})).content.decode()
    assert take_order(again) == shown
    items = api.get(f"/api/v1/attempts/{attempt.pk}/items/").json()
    assert api_order(items) == shown
    assert [item["number"] for item in items] == list(range(1, len(shown) + 1))
    assert re.findall(r'class="item-heading">Item (\d+)', take) == [
        str(n) for n in range(1, len(shown) + 1)
    ]

    # Answer every question with its right choice, picked by id, then submit.
    data = {"action": "submit", "token": token_in(take)}
    for item in items:
        if item["kind"] == "question":
            right = Choice.objects.get(question__quiz_items=item["id"], is_correct=True)
            data[f"item-{item['id']}-choice"] = [right.pk]
    client.post(reverse("attempt-save", kwargs={"pk": attempt.pk}), data)
    attempt.refresh_from_db()
    assert attempt.status == Attempt.Status.SUBMITTED

    results = client.get(reverse("attempt-results", kwargs={"pk": attempt.pk})).content.decode()
    assert results_order(results) == shown
    result = api.get(f"/api/v1/attempts/{attempt.pk}/result/").json()
    assert [item["id"] for item in result["items"]] == [item for item, _ in shown]
    assert [item["number"] for item in result["items"]] == list(range(1, len(shown) + 1))
    assert api_order(api.get(f"/api/v1/attempts/{attempt.pk}/items/").json()) == shown


# --- grading reads choice ids, never positions -----------------------------------------------


def test_a_shuffled_exam_grades_the_choices_picked_by_id(client: Client):
    quiz = quiz_of_questions(questions=4)
    learner = UserFactory()
    attempt = attempt_start(user=learner, quiz=quiz)
    client.force_login(learner)
    take = client.get(reverse("attempt-take", kwargs={"pk": attempt.pk})).content.decode()
    data = {"action": "submit", "token": token_in(take)}
    picked = {}
    for item_id, choices in shown_order(attempt):
        # The right choice for half the items, the first one shown for the others.
        right = Choice.objects.get(question__quiz_items=item_id, is_correct=True).pk
        picked[item_id] = right if len(picked) % 2 == 0 else choices[0]
        data[f"item-{item_id}-choice"] = [picked[item_id]]
    client.post(reverse("attempt-save", kwargs={"pk": attempt.pk}), data)
    attempt.refresh_from_db()
    right_ids = set(Choice.objects.filter(is_correct=True).values_list("pk", flat=True))
    assert attempt.score == sum(1 for choice in picked.values() if choice in right_ids)
    for item_id, choice in picked.items():
        response = Response.objects.get(attempt=attempt, quiz_item_id=item_id)
        assert [c.pk for c in response.choices.all()] == [choice]
        assert response.status == ("correct" if choice in right_ids else "incorrect")


def test_a_shuffled_exam_page_costs_no_query_per_item(
    client: Client, django_assert_max_num_queries
):
    learner = UserFactory()
    client.force_login(learner)
    for questions in (2, 12):
        attempt = attempt_start(user=learner, quiz=quiz_of_questions(questions=questions))
        take = reverse("attempt-take", kwargs={"pk": attempt.pk})
        # 11 before sheets were stored; the first page now also looks for the stored sheet and
        # stores the one it renders (grading/sheets.py): 13.
        with django_assert_max_num_queries(13):
            html = client.get(take).content.decode()
        assert len(take_order(html)) == questions
        # Every later page reads the stored sheet with the attempt: no item, choice or variant
        # read at all.
        with django_assert_max_num_queries(5):
            assert take_order(client.get(take).content.decode()) == take_order(html)
        attempt_submit(attempt=attempt)
        with django_assert_max_num_queries(11):
            html = client.get(reverse("attempt-results", kwargs={"pk": attempt.pk})).content
        assert len(results_order(html.decode())) == questions
