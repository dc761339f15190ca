"""Simultaneous requests on PostgreSQL leave exactly the rows the rules allow.

Each request runs in its own thread with its own database connection, released together by a
barrier, in tests without a wrapping transaction. SQLite serialises writers on one file (and the
test database is in memory), so these run only on PostgreSQL.
"""

from __future__ import annotations

import threading
from functools import partial

import pytest
from django.db import connection, connections

from courses.models import Quiz
from grading import engine
from grading.models import Attempt, Response, Variant
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from integrations.models import Learner
from tests.api.conftest import first_item, items_of_kind, key_client, start_attempt

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="needs PostgreSQL (DATABASE_URL=postgres://…): SQLite serialises writers and "
        "the test database is in memory, so requests cannot race",
    ),
]

ROUNDS = 8


def simultaneously(*calls):
    """Run the calls in threads released at the same instant; returns their results in order."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(index, call):
        try:
            barrier.wait()
            results[index] = call()
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_the_same_answer_twice_with_one_key_is_one_try(lms, practice_quiz):
    client = lms.client()
    attempt = start_attempt(client)
    item = first_item(client, attempt, "problem")
    url = f"/api/v1/attempts/{attempt['id']}/items/{item['id']}/answers/"
    for round_ in range(ROUNDS):
        # A fresh attempt each round, so the item's tries never run out.
        if round_:
            client.post(f"/api/v1/attempts/{attempt['id']}/submit/")
            attempt = start_attempt(client)
            url = f"/api/v1/attempts/{attempt['id']}/items/{item['id']}/answers/"
        key = f"same-{round_}"

        def answer(url=url, key=key):
            return key_client(lms.token).post(url, {"text": "12345"}, HTTP_IDEMPOTENCY_KEY=key)

        first, second = simultaneously(answer, answer)
        assert sorted([first.status_code, second.status_code]) in ([200, 201], [201, 201]), (
            first.content,
            second.content,
        )
        assert first.json() == second.json()
        assert Response.objects.filter(idempotency_key=key).count() == 1
        assert Response.objects.filter(attempt_id=attempt["id"], counts_as_try=True).count() == 1


def test_two_starts_at_the_attempt_limit_leave_the_allowed_attempts(lms, exam):
    user = Learner.objects.get(external_id="stud-1").user
    for round_ in range(ROUNDS):
        quiz = Quiz.objects.create(
            lesson=exam.lesson,
            slug=f"limit-{round_}",
            title="Limit",
            attempts_allowed=2,
            published=True,
        )
        attempt_submit(attempt=attempt_start(user=user, quiz=quiz))

        def start(slug=quiz.slug):
            return key_client(lms.token).post(
                "/api/v1/attempts/", {"quiz": slug, "learner": "stud-1"}
            )

        first, second = simultaneously(start, start)
        assert Attempt.objects.filter(quiz=quiz).count() == 2
        # One start creates the last allowed attempt; the other resumes it, never refused.
        assert sorted([first.status_code, second.status_code]) == [200, 201], (
            first.content,
            second.content,
        )
        assert first.json()["id"] == second.json()["id"]


def test_two_starts_of_an_unlimited_quiz_leave_one_attempt_in_progress(lms, practice_quiz):
    def start():
        return start_attempt(key_client(lms.token))

    for _ in range(ROUNDS):
        first, second = simultaneously(start, start)
        assert first["id"] == second["id"]
        assert Attempt.objects.filter(status=Attempt.Status.IN_PROGRESS).count() == 1
        attempt_submit(attempt=Attempt.objects.get(pk=first["id"]))


def test_two_answers_for_the_last_try_count_once(lms, practice_quiz):
    client = lms.client()
    for round_ in range(ROUNDS):
        attempt = start_attempt(client)
        item = first_item(client, attempt, "problem")
        url = f"/api/v1/attempts/{attempt['id']}/items/{item['id']}/answers/"
        for n in range(practice_quiz.tries_per_item - 1):
            client.post(url, {"text": str(2000 + n)})

        def answer(text, url=url):
            return key_client(lms.token).post(url, {"text": text})

        first, second = simultaneously(lambda: answer("3001"), lambda: answer("3002"))
        assert sorted([first.status_code, second.status_code]) == [201, 409], round_
        tries = Response.objects.filter(attempt_id=attempt["id"], counts_as_try=True).count()
        assert tries == practice_quiz.tries_per_item
        client.post(f"/api/v1/attempts/{attempt['id']}/submit/")


def test_right_answers_to_two_items_at_once_both_count_in_the_score(lms, practice_quiz):
    """Each answer moves the attempt's running score; two arriving together must not lose one."""
    client = lms.client()
    for round_ in range(ROUNDS):
        attempt = start_attempt(client)
        items = items_of_kind(client, attempt, "problem")[:2]
        variants = Variant.objects.filter(
            attempt_id=attempt["id"], quiz_item_id__in=[item["id"] for item in items]
        )
        right = {
            variant.quiz_item_id: engine.format_answer(
                engine.get_family(variant.family).solve(variant.givens).answer
            )
            for variant in variants
        }

        def answer(item_id, text, url=f"/api/v1/attempts/{attempt['id']}/items/"):
            return key_client(lms.token).post(f"{url}{item_id}/answers/", {"text": text})

        first, second = simultaneously(
            *(partial(answer, item["id"], right[item["id"]]) for item in items)
        )
        assert [first.status_code, second.status_code] == [201, 201], round_
        assert first.json()["status"] == second.json()["status"] == "correct"
        stored = Attempt.objects.get(pk=attempt["id"])
        assert stored.score == sum(item["points"] for item in items), round_
        client.post(f"/api/v1/attempts/{attempt['id']}/submit/")
        stored.refresh_from_db()
        assert stored.score == sum(item["points"] for item in items), round_


def _limited_quiz(exam, slug: str, attempts_allowed: int | None) -> Quiz:
    return Quiz.objects.create(
        lesson=exam.lesson,
        slug=slug,
        title="Starts",
        attempts_allowed=attempts_allowed,
        published=True,
    )


def _start_call(token: str, slug: str):
    def start():
        return key_client(token).post("/api/v1/attempts/", {"quiz": slug, "learner": "stud-1"})

    return start


@pytest.mark.parametrize("attempts_allowed", [1, 3, None])
def test_ten_starts_at_once_create_one_attempt_and_the_rest_resume_it(lms, exam, attempts_allowed):
    """One 201 for the attempt created, 200 with that same attempt for every other start, and
    no start refused: the learner's attempt is open while they arrive."""
    for round_ in range(ROUNDS):
        quiz = _limited_quiz(exam, f"starts-{round_}", attempts_allowed)
        results = simultaneously(*[_start_call(lms.token, quiz.slug)] * 10)
        statuses = sorted(result.status_code for result in results)
        assert statuses == [200] * 9 + [201], [result.content for result in results]
        assert len({result.json()["id"] for result in results}) == 1
        assert Attempt.objects.filter(quiz=quiz).count() == 1


def test_ten_starts_with_an_attempt_open_all_resume_it(lms, exam):
    user = Learner.objects.get(external_id="stud-1").user
    for round_ in range(ROUNDS):
        quiz = _limited_quiz(exam, f"open-{round_}", 1)
        open_attempt = attempt_start(user=user, quiz=quiz)
        results = simultaneously(*[_start_call(lms.token, quiz.slug)] * 10)
        assert [result.status_code for result in results] == [200] * 10, [
            result.content for result in results
        ]
        assert {result.json()["id"] for result in results} == {open_attempt.pk}
        assert Attempt.objects.filter(quiz=quiz).count() == 1


@pytest.mark.parametrize(
    ("quiz", "text"),
    [("attention-practice", "12345"), ("attention-exam", "12345"), ("attention-practice", "[[")],
    ids=["graded-try", "exam-answer", "invalid-input"],
)
def test_twenty_identical_answers_with_one_key_are_one_201_and_nineteen_replays(
    lms, practice_quiz, exam, quiz, text
):
    Quiz.objects.filter(slug=quiz).update(attempts_allowed=None)  # a fresh attempt each round
    client = lms.client()
    for round_ in range(ROUNDS):
        attempt = start_attempt(client, quiz)
        item = first_item(client, attempt, "problem")
        url = f"/api/v1/attempts/{attempt['id']}/items/{item['id']}/answers/"
        key = f"twenty-{round_}"

        def answer(url=url, key=key):
            return key_client(lms.token).post(url, {"text": text}, HTTP_IDEMPOTENCY_KEY=key)

        results = simultaneously(*[answer] * 20)
        created = [result for result in results if result.status_code == 201]
        replayed = [result for result in results if result.status_code == 200]
        assert len(created) == 1, [(result.status_code, result.content) for result in results]
        assert len(replayed) == 19, [(result.status_code, result.content) for result in results]
        assert all(result["Idempotent-Replayed"] == "true" for result in replayed)
        assert not created[0].has_header("Idempotent-Replayed")
        assert all(result.json() == created[0].json() for result in replayed)
        assert Response.objects.filter(idempotency_key=key).count() == 1
        client.post(f"/api/v1/attempts/{attempt['id']}/submit/")


def test_twenty_identical_practice_answers_with_one_key_are_one_201_and_nineteen_replays(lms):
    client = lms.client()
    for round_ in range(ROUNDS):
        variant = client.post(
            "/api/v1/variants/", {"problem": "dot-variance", "learner": "stud-1"}
        ).json()
        url = f"/api/v1/variants/{variant['id']}/answers/"
        key = f"practice-{round_}"

        def answer(url=url, key=key):
            return key_client(lms.token).post(url, {"text": "12345"}, HTTP_IDEMPOTENCY_KEY=key)

        results = simultaneously(*[answer] * 20)
        statuses = sorted(result.status_code for result in results)
        assert statuses == [200] * 19 + [201], [result.content for result in results]
        created = next(result for result in results if result.status_code == 201)
        for result in results:
            if result is not created:
                assert result["Idempotent-Replayed"] == "true"
                assert result.json()["id"] == created.json()["id"]
        assert Response.objects.filter(idempotency_key=key).count() == 1


def test_two_preview_starts_and_the_instructor_s_own_start_resume_one_preview(
    instructor, practice_quiz
):
    """Two presses of "Preview as a learner" at once, and the instructor's start on the quiz
    page at the same moment, resume one preview: whoever teaches the course starts no attempt
    of their own."""
    from grading.services.previews import preview_start

    for round_ in range(ROUNDS):
        first, second, own = simultaneously(
            partial(preview_start, user=instructor, quiz=practice_quiz),
            partial(preview_start, user=instructor, quiz=practice_quiz),
            partial(attempt_start, user=instructor, quiz=practice_quiz),
        )
        assert first.pk == second.pk == own.pk, round_
        assert (first.preview, first.number) == (True, round_ + 1)
        assert Attempt.objects.filter(status=Attempt.Status.IN_PROGRESS).count() == 1
        attempt_submit(attempt=first)
