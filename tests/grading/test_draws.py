"""Pools: each pool item of an attempt draws one member, different per learner, the same on
every read of the attempt (pages and API), kept when the pool is edited, graded and scored as
the item it was drawn into."""

from __future__ import annotations

import pytest
from django.test import override_settings
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from courses.models import Question, QuizItem
from grading import draws, selectors
from grading.models import Attempt, AttemptDraw, Response, Variant
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.errors import QuizNotOpen
from grading.services.practice import practice_refusal
from grading.services.responses import SheetAnswer, attempt_answers_save, response_submit
from teaching.models import CourseRole
from tests.api.conftest import session_client
from tests.factories import QuestionFactory, UserFactory
from tests.grading.pools import quiz_with_pool

pytestmark = pytest.mark.django_db

LEARNERS = 20


def drawn(attempt: Attempt) -> dict[int, tuple[str, int]]:
    """Pool item id → ("question" | "problem", id) as every surface reads the attempt."""
    attempt = Attempt.objects.get(pk=attempt.pk)
    return {
        row.item.pk: ("question", row.item.question_id)
        if row.item.question_id
        else ("problem", row.item.problem_id)
        for row in selectors.attempt_sheet(attempt=attempt)
        if row.item.pool_id
    }


# --- the rule, without the database ---------------------------------------------------------


@given(
    members=st.lists(st.integers(min_value=1, max_value=10_000), min_size=1, unique=True),
    attempt_id=st.integers(min_value=1, max_value=2**31),
    data=st.data(),
)
@override_settings(SECRET_KEY="a fixed key for the property")
def test_a_draw_is_k_distinct_members_of_the_pool(members, attempt_id, data):
    k = data.draw(st.integers(min_value=1, max_value=len(members)))
    pool = [draws.Member("question", m) for m in members]
    picked = draws.draw(
        pool,
        k=k,
        key=lambda m: draws.member_key(attempt_id=attempt_id, pool_id=1, member=m),
    )
    assert len(picked) == k
    assert len(set(picked)) == k
    assert set(picked) <= set(pool)
    # The same attempt draws the same members whatever order they are listed in.
    again = draws.draw(
        reversed(pool),
        k=k,
        key=lambda m: draws.member_key(attempt_id=attempt_id, pool_id=1, member=m),
    )
    assert again == picked


def test_pool_members_get_keys_of_their_own_per_attempt_pool_and_kind():
    keys = {
        draws.member_key(attempt_id=7, pool_id=1, member=draws.Member("question", 3)),
        draws.member_key(attempt_id=8, pool_id=1, member=draws.Member("question", 3)),
        draws.member_key(attempt_id=7, pool_id=2, member=draws.Member("question", 3)),
        draws.member_key(attempt_id=7, pool_id=1, member=draws.Member("problem", 3)),
    }
    assert len(keys) == 4


# --- per learner, per attempt ----------------------------------------------------------------


def test_learners_draw_different_members_each_distinct_within_the_attempt():
    quiz, pool = quiz_with_pool(draw=2, questions=6)
    members = set(pool.questions.values_list("pk", flat=True))
    draws_seen = set()
    for _ in range(LEARNERS):
        attempt = attempt_start(user=UserFactory(), quiz=quiz)
        shown = drawn(attempt)
        assert len(shown) == 2
        questions = {question for _, question in shown.values()}
        assert len(questions) == 2  # two items of one pool never show the same member
        assert questions <= members
        draws_seen.add(frozenset(questions))
    assert len(draws_seen) >= 2


def test_the_draw_is_the_same_on_reload_on_resume_after_submission_and_in_the_api():
    quiz, _ = quiz_with_pool(draw=3, questions=5, problems=2)
    attempt = attempt_start(user=UserFactory(), quiz=quiz)
    first = drawn(attempt)
    assert drawn(attempt) == first
    assert attempt_start(user=attempt.user, quiz=quiz).pk == attempt.pk
    assert drawn(attempt) == first
    api = session_client(attempt.user)
    body = api.get(reverse("api:attempt-items", kwargs={"attempt_id": attempt.pk})).json()
    by_id = {item["id"]: item for item in body}
    for item_id, (kind, member) in first.items():
        assert by_id[item_id]["kind"] == kind
        if kind == "question":
            question = Question.objects.get(pk=member)
            assert by_id[item_id]["prompt"] == question.prompt
            assert {c["id"] for c in by_id[item_id]["choices"]} == set(
                question.choices.values_list("pk", flat=True)
            )
        else:
            variant = Variant.objects.get(attempt=attempt, quiz_item_id=item_id)
            assert variant.problem_id == member
            assert by_id[item_id]["givens"] == variant.givens
    attempt_submit(attempt=attempt)
    assert drawn(attempt) == first


def test_a_second_attempt_draws_afresh():
    quiz, _ = quiz_with_pool(draw=1, questions=8)
    learner = UserFactory()
    seen = set()
    for _ in range(8):
        attempt = attempt_start(user=learner, quiz=quiz)
        seen.add(tuple(drawn(attempt).values()))
        attempt_submit(attempt=attempt)
    assert len(seen) >= 2


def test_editing_the_pool_changes_no_attempt_already_started():
    quiz, pool = quiz_with_pool(draw=2, questions=4)
    attempts = [attempt_start(user=UserFactory(), quiz=quiz) for _ in range(4)]
    before = {attempt.pk: drawn(attempt) for attempt in attempts}
    for question in list(pool.questions.all()):
        pool.questions.remove(question)
    pool.questions.add(QuestionFactory(lesson=quiz.lesson), QuestionFactory(lesson=quiz.lesson))
    assert {attempt.pk: drawn(attempt) for attempt in attempts} == before
    # and the drawn questions still take answers and count
    attempt = attempts[0]
    item_id, (_, question_id) = next(iter(before[attempt.pk].items()))
    item = selectors.attempt_item(attempt=attempt, item_id=item_id)
    right = item.question.choices.get(is_correct=True)
    response = response_submit(attempt=attempt, item=item, choice_ids=[right.pk])
    assert response.question_id == question_id
    assert response.status == Response.Status.CORRECT


def test_a_pool_smaller_than_its_items_refuses_the_start_and_names_the_pool():
    quiz, pool = quiz_with_pool(draw=3, questions=3)
    pool.questions.remove(pool.questions.first())
    learner = UserFactory()
    with pytest.raises(QuizNotOpen, match=pool.title):
        attempt_start(user=learner, quiz=quiz)
    assert not Attempt.objects.filter(user=learner).exists()
    assert not AttemptDraw.objects.exists()


# --- graded and scored as the item it was drawn into -----------------------------------------


def test_each_drawn_entry_is_worth_its_items_points_and_grades_against_the_drawn_member():
    quiz, _ = quiz_with_pool(draw=2, questions=5, problems=0, points=3)
    attempt = attempt_start(user=UserFactory(), quiz=quiz)
    assert attempt.max_score == 1 + 3 + 3
    rows = selectors.attempt_sheet(attempt=attempt)
    answers = {}
    for row in rows:
        right = next(c for c in row.choices if c.is_correct)
        wrong = next(c for c in row.choices if not c.is_correct)
        # the fixed item and one drawn item right, the other drawn item wrong
        pick = wrong if row.item.pool_id and not answers.get("wrong") else right
        if pick is wrong:
            answers["wrong"] = row.item.pk
        answers[row.item.pk] = SheetAnswer(choice_ids=(pick.pk,))
    answers.pop("wrong")
    saved = attempt_answers_save(attempt=attempt, answers=answers)
    for item_id, response in saved.items():
        item = QuizItem.objects.get(pk=item_id)
        if item.pool_id:
            assert response.question_id == drawn(attempt)[item_id][1]
    attempt = attempt_submit(attempt=attempt)
    assert attempt.max_score == 7
    assert attempt.score == 1 + 3


def test_a_drawn_problem_gets_its_variant_and_an_api_answer_grades_on_it():
    quiz, _ = quiz_with_pool(draw=2, questions=0, problems=3, fixed=False)
    attempt = attempt_start(user=UserFactory(), quiz=quiz)
    variants = Variant.objects.filter(attempt=attempt)
    assert variants.count() == 2
    assert {v.problem_id for v in variants} == {member for _, member in drawn(attempt).values()}
    api = session_client(attempt.user)
    variant = variants.first()
    url = reverse(
        "api:item-answer", kwargs={"attempt_id": attempt.pk, "item_id": variant.quiz_item_id}
    )
    refused = api.post(url, {"choices": [1]}, format="json")
    assert refused.status_code == 400
    answered = api.post(url, {"text": "1"}, format="json")
    assert answered.status_code == 201, answered.content
    assert Response.objects.get(attempt=attempt).variant_id == variant.pk


def test_the_attempt_page_shows_the_drawn_questions_and_takes_their_answers(client):
    quiz, _ = quiz_with_pool(draw=2, questions=6)
    learner = UserFactory()
    attempt = attempt_start(user=learner, quiz=quiz)
    client.force_login(learner)
    page = client.get(reverse("attempt-take", kwargs={"pk": attempt.pk})).content.decode()
    shown = drawn(attempt)
    prompts = {q.prompt for q in Question.objects.filter(pk__in=[m for _, m in shown.values()])}
    others = set(
        Question.objects.filter(pools__isnull=False)
        .exclude(pk__in=[m for _, m in shown.values()])
        .values_list("prompt", flat=True)
    )
    assert all(prompt in page for prompt in prompts)
    assert not any(prompt in page for prompt in others)
    item_id, (_, question_id) = next(iter(shown.items()))
    right = Question.objects.get(pk=question_id).choices.get(is_correct=True)
    answer = client.post(
        reverse("attempt-answer", kwargs={"pk": attempt.pk, "item_pk": item_id}),
        {"choice": [right.pk]},
    )
    assert answer.status_code == 302
    response = Response.objects.get(attempt=attempt)
    assert (response.quiz_item_id, response.question_id) == (item_id, question_id)
    assert response.status == Response.Status.CORRECT


@pytest.mark.parametrize("release", ["never", "after_submission"])
def test_no_drawn_question_shows_its_correct_choice_before_release(client, release):
    quiz, _ = quiz_with_pool(draw=2, questions=4, mode="exam", release_answers=release)
    learner = UserFactory()
    attempt = attempt_start(user=learner, quiz=quiz)
    client.force_login(learner)
    take = client.get(reverse("attempt-take", kwargs={"pk": attempt.pk})).content.decode()
    api = session_client(learner)
    items = api.get(reverse("api:attempt-items", kwargs={"attempt_id": attempt.pk})).json()
    assert "Correct answer" not in take
    assert all("correct" not in choice for item in items for choice in item["choices"])
    attempt_submit(attempt=attempt)
    results = client.get(reverse("attempt-results", kwargs={"pk": attempt.pk})).content.decode()
    result = api.get(reverse("api:attempt-result", kwargs={"attempt_id": attempt.pk})).json()
    pooled = [item for item in result["items"] if QuizItem.objects.get(pk=item["id"]).pool_id]
    assert len(pooled) == 2
    if release == "never":
        assert "Correct answer" not in results
        assert all(item["correct_choices"] is None for item in pooled)
    else:  # the positive control: released, each drawn question's own right choice shows
        for item in pooled:
            question = Question.objects.get(pk=drawn(attempt)[item["id"]][1])
            assert item["correct_choices"] == [question.choices.get(is_correct=True).pk]
        assert results.count("Correct answer") == 3  # the fixed question and the two drawn


def test_an_instructors_pages_show_what_the_attempt_drew(client):
    quiz, pool = quiz_with_pool(draw=1, questions=3, mode="exam")
    learner = UserFactory()
    attempt = attempt_submit(attempt=attempt_start(user=learner, quiz=quiz))
    instructor = UserFactory()
    CourseRole.objects.create(
        course=quiz.lesson.course, user=instructor, role=CourseRole.Role.INSTRUCTOR
    )
    client.force_login(instructor)
    item_id, (_, question_id) = next(iter(drawn(attempt).items()))
    others = Question.objects.filter(pools__isnull=False).exclude(pk=question_id)
    for url in (
        reverse("teaching:item-override", args=[attempt.pk, item_id]),
        reverse("teaching:attempt", args=[attempt.pk]),
    ):
        html = client.get(url).content.decode()
        assert Question.objects.get(pk=question_id).prompt in html, url
        assert not any(question.prompt in html for question in others), url
    grid = client.get(reverse("teaching:quiz-results", args=[quiz.slug])).content.decode()
    assert f"Draws from {pool.title} (pool)" in grid


def test_practice_on_a_problem_drawn_into_a_running_exam_is_refused():
    quiz, pool = quiz_with_pool(draw=1, questions=0, problems=3, fixed=False, mode="exam")
    learner = UserFactory()
    attempt = attempt_start(user=learner, quiz=quiz)
    (drawn_problem,) = [member for _, member in drawn(attempt).values()]
    for problem in pool.problems.all():
        refusal = practice_refusal(user=learner, problem=problem)
        assert (refusal is not None) == (problem.pk == drawn_problem), problem.pk
    attempt_submit(attempt=attempt)
    assert practice_refusal(user=learner, problem=pool.problems.get(pk=drawn_problem)) is None


def test_an_api_answer_to_a_drawn_question_grades_against_it():
    quiz, _ = quiz_with_pool(draw=2, questions=4)
    attempt = attempt_start(user=UserFactory(), quiz=quiz)
    api = session_client(attempt.user)
    for item_id, (_, question_id) in drawn(attempt).items():
        url = reverse("api:item-answer", kwargs={"attempt_id": attempt.pk, "item_id": item_id})
        assert api.post(url, {"text": "1"}, format="json").status_code == 400
        right = Question.objects.get(pk=question_id).choices.get(is_correct=True)
        answered = api.post(url, {"choices": [right.pk]}, format="json")
        assert answered.status_code == 201, answered.content
        assert answered.json()["status"] == "correct"
        response = Response.objects.get(attempt=attempt, quiz_item_id=item_id)
        assert response.question_id == question_id
    attempt = attempt_submit(attempt=attempt)
    assert attempt.score == 4.0  # two drawn items of 2 points; the fixed one unanswered
