"""Query counts: every list endpoint costs the same few queries whatever the page size, and an
answer to a problem item costs a fixed few SQL statements (transaction control included): the
key, the scoped variant with its attempt and item, the item's counted tries (with any earlier
answer under the idempotency key), then BEGIN, the attempt's guarded update, the insert and
COMMIT, on PostgreSQL and SQLite alike."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from courses.models import Problem, Quiz
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.practice import practice_answer_submit, practice_variant_new
from integrations import services as integrations
from tests.factories import KeyTermFactory, LessonFactory, ProblemFactory, QuizFactory

pytestmark = pytest.mark.django_db

ANSWER_STATEMENTS = {"postgresql": 7, "sqlite": 7}


@pytest.fixture
def crowd(lms, course, practice_quiz, exam):
    """Enough rows that a page of 1 and a page of 200 differ: 25 learners with attempts,
    practice and streaks, 25 more lessons with key terms, quizzes and problems, 25 more
    courses."""
    problem = Problem.objects.get(slug="dot-variance")
    key = lms.integration.api_keys.get()
    for n in range(25):
        learner, _ = integrations.learner_provision(
            integration=lms.integration, external_id=f"crowd-{n}", name=f"L{n}"
        )
        attempt = attempt_start(user=learner.user, quiz=exam)
        attempt_submit(attempt=attempt)
        attempt_start(user=learner.user, quiz=practice_quiz)
        variant = practice_variant_new(user=learner.user, problem=problem)
        practice_answer_submit(user=learner.user, variant=variant, text="7")
        lesson = LessonFactory(course=course, order=100 + n)
        KeyTermFactory.create_batch(2, lesson=lesson)
        QuizFactory(lesson=lesson)
        ProblemFactory(lesson=lesson)
        other = LessonFactory()
        key.courses.add(other.course)


LISTS = {
    "/api/v1/courses/": 4,
    "/api/v1/lessons/": 4,
    "/api/v1/quizzes/": 3,
    "/api/v1/problems/": 3,
    "/api/v1/learners/": 3,
    # The key, the overdue attempts closed first (grading/services/overdue.py), the page.
    "/api/v1/attempts/": 3,
    "/api/v1/streaks/": 3,
    # The key, the overdue attempts closed first, the page of (learner, quiz) pairs, their
    # attempts, the quizzes with their maximum scores, the LMS identities and the key's LTI ties
    # (tests/teaching/test_grades_api.py).
    "/api/v1/grades/": 7,
}


@pytest.mark.parametrize(("url", "queries"), LISTS.items(), ids=list(LISTS))
def test_list_endpoints_cost_the_same_whatever_the_page_size(
    crowd, lms, django_assert_max_num_queries, url, queries
):
    client = lms.client()
    client.get(url)  # records the key's use, once a minute: not part of the counts
    sizes = []
    for page_size in (1, 200):
        with django_assert_max_num_queries(queries):
            response = client.get(url, {"page_size": page_size})
        assert response.status_code == 200
        sizes.append(len(response.json()["results"]))
    assert sizes[0] == 1
    assert sizes[1] > 20


def test_the_grades_csv_is_a_few_queries_for_every_row(crowd, lms, django_assert_max_num_queries):
    client = lms.client()
    client.get("/api/v1/courses/")  # records the key's use, once a minute
    with django_assert_max_num_queries(LISTS["/api/v1/grades/"]):
        response = client.get("/api/v1/grades.csv")
        lines = b"".join(response.streaming_content).decode().splitlines()
    assert len(lines) == 1 + 2 * 25  # a header, then each crowd learner at both quizzes


@pytest.mark.parametrize("path", ["items/", "result/", ""])
def test_attempt_reads_are_bounded_by_a_constant(lms, exam, django_assert_max_num_queries, path):
    client = lms.client()
    attempt = client.post("/api/v1/attempts/", {"quiz": exam.slug, "learner": "stud-1"}).json()
    for item in client.get(f"/api/v1/attempts/{attempt['id']}/items/").json():
        body = (
            {"text": "3"} if item["kind"] == "problem" else {"choices": [item["choices"][0]["id"]]}
        )
        client.post(f"/api/v1/attempts/{attempt['id']}/items/{item['id']}/answers/", body)
    with django_assert_max_num_queries(7):
        assert client.get(f"/api/v1/attempts/{attempt['id']}/{path}").status_code == 200


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("slug", ["attention-practice", "attention-exam"])
def test_an_answer_costs_a_fixed_few_statements(lms, slug):
    """Measured outside any test transaction, so BEGIN (SQLite) and COMMIT are what they are in
    production."""
    client = lms.client()
    quiz = Quiz.objects.get(slug=slug)
    attempt = client.post("/api/v1/attempts/", {"quiz": quiz.slug, "learner": "stud-1"}).json()
    item = next(
        i
        for i in client.get(f"/api/v1/attempts/{attempt['id']}/items/").json()
        if i["kind"] == "problem"
    )
    url = f"/api/v1/attempts/{attempt['id']}/items/{item['id']}/answers/"
    for n in range(3):
        with CaptureQueriesContext(connection) as statements:
            # Wrong and no near miss, so every answer is a counted try.
            response = client.post(url, {"text": f"{123457 + n}.7"}, HTTP_IDEMPOTENCY_KEY=f"k{n}")
        assert response.status_code == 201
        expected = ANSWER_STATEMENTS[connection.vendor]
        assert len(statements) == expected, [q["sql"][:80] for q in statements]
        # Every answer reads its key, so a key revoked a moment ago is refused at once.
        assert statements[0]["sql"].split(" FROM ")[1].startswith('"integrations_apikey"')
