"""The statistics API: docs/statistics.md's worked example (tests/teaching/statistics_example.py)
as an LMS dashboard reads it, in the issue's shape, as JSON and as CSV, for a key of its course
only; its cost in queries at two sizes of a quiz."""

from __future__ import annotations

import csv
import io
import math

import pytest
from rest_framework.test import APIClient

from integrations import services
from integrations.models import Integration
from teaching.statistics.export import CSV_COLUMNS, FIGURE_COLUMNS, ITEM_FIGURES, STATUSES
from tests.api.conftest import key_client, session_client
from tests.factories import InstructorFactory, LessonFactory, UserFactory
from tests.teaching.statistics.test_figures import HAND_ITEMS, HAND_QUIZ
from tests.teaching.statistics_example import example_build
from tests.teaching.test_queries import quiz_of

pytestmark = pytest.mark.django_db

QUIZ_KEYS = {
    "n",
    "mean",
    "median",
    "sd",
    "skewness",
    "kurtosis",
    "cronbach_alpha",
    "error_ratio",
    "standard_error",
}
ITEM_KEYS = {
    "item",
    "drawn",  # a pool's member; null for any other item (tests/teaching/statistics/test_pools.py)
    "position",
    "facility",
    "sd",
    "random_guess_score",
    "intended_weight",
    "effective_weight",
    "discrimination_index",
    "discriminative_efficiency",
    "responses",
}


@pytest.fixture
def worked(db):
    return example_build(by=InstructorFactory())


def key_for(*courses) -> str:
    integration = Integration.objects.create(name=f"LMS {Integration.objects.count()}")
    _, token = services.api_key_create(
        integration=integration, name="dashboard", courses=list(courses)
    )
    return token


@pytest.fixture
def client(worked):
    return key_client(key_for(worked.quiz.lesson.course))


def url(worked, suffix: str = "/") -> str:
    return f"/api/v1/quizzes/{worked.quiz.slug}/statistics{suffix}"


def test_the_worked_example_in_the_issue_s_shape(worked, client):
    response = client.get(url(worked))
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"quiz", "items"}
    assert set(body["quiz"]) == QUIZ_KEYS
    assert body["quiz"]["n"] == 5
    for name, value in HAND_QUIZ.items():
        assert body["quiz"][name] == pytest.approx(value, abs=1e-12), name
    assert [item["item"] for item in body["items"]] == [item.pk for item in worked.items]
    assert [item["position"] for item in body["items"]] == [1, 2, 3]
    for item, hand in zip(body["items"], HAND_ITEMS, strict=True):
        assert set(item) == ITEM_KEYS
        for name, value in hand.items():
            assert item[name] == pytest.approx(value, abs=1e-12), (item["position"], name)


def test_each_item_s_responses_counted_by_choice_misconception_and_status(worked, client):
    items = client.get(url(worked)).json()["items"]
    choices = worked.choices
    assert items[0]["responses"] == {
        "total": 5,
        "correct": 3,
        "incorrect": 2,
        "invalid": 0,
        "unexplained": 0,
        "choices": [
            {"choice": choices["True"].pk, "count": 3},
            {"choice": choices["False"].pk, "count": 2},
        ],
        "misconceptions": [{"code": "tf-wrong", "count": 2}],
        "diagnoses": [],
    }
    assert items[1]["responses"]["choices"] == [
        {"choice": choices[label].pk, "count": count}
        for label, count in (("A", 3), ("B", 1), ("C", 1), ("D", 0))
    ]
    assert items[2]["responses"] == {
        "total": 5,
        "correct": 1,
        "incorrect": 3,
        "invalid": 1,
        "unexplained": 1,
        "choices": [],
        "misconceptions": [{"code": "width-ignored", "count": 1}],
        # With its kind, so an LMS can tell near misses from structural findings.
        "diagnoses": [{"code": "sign-flipped", "kind": "near-miss", "count": 1}],
    }


def test_every_submitted_attempt_on_request(worked, client):
    body = client.get(url(worked), {"attempts": "all"}).json()
    assert body["quiz"]["n"] == 6
    assert body["quiz"]["mean"] == pytest.approx(15 / 6 / 5)
    assert body["items"][2]["responses"]["unexplained"] == 2


def test_undefined_figures_are_null(worked, client):
    """A quiz nobody has submitted: no figure but the intended weights."""
    other = worked.quiz.lesson.quizzes.create(slug="empty-quiz", title="Empty")
    other.items.create(question=worked.items[0].question, points=3)
    body = client.get(f"/api/v1/quizzes/{other.slug}/statistics/").json()
    assert body["quiz"] == {"n": 0, **dict.fromkeys(QUIZ_KEYS - {"n"})}
    (item,) = body["items"]
    assert item["intended_weight"] == 1.0
    assert item["random_guess_score"] == 0.5
    assert [name for name, value in item.items() if value is None] == [
        "drawn",  # not a pool's member
        "facility",
        "sd",
        "effective_weight",
        "discrimination_index",
        "discriminative_efficiency",
    ]


def test_a_quiz_without_items_has_no_item_rows(other_course):
    client = key_client(key_for(other_course))
    body = client.get("/api/v1/quizzes/other-quiz/statistics/").json()
    assert len(body["items"]) == 1  # the other course's quiz has one item
    other_course.lessons.get().quizzes.get().items.all().delete()
    body = client.get("/api/v1/quizzes/other-quiz/statistics/").json()
    assert body == {"quiz": {"n": 0, **dict.fromkeys(QUIZ_KEYS - {"n"})}, "items": []}
    lines = csv_rows(client.get("/api/v1/quizzes/other-quiz/statistics.csv"))
    assert lines == []


@pytest.mark.parametrize(
    ("query", "field"), [({"attempts": "best"}, "attempts"), ({"attempt": "all"}, "attempt")]
)
def test_an_unknown_rule_or_parameter_is_a_400_naming_it(worked, client, query, field):
    for suffix in ("/", ".csv"):
        response = client.get(url(worked, suffix), query)
        assert response.status_code == 400
        assert response["Content-Type"] == "application/json"
        assert response.json()["field"] == field


def test_a_quiz_outside_the_key_s_courses_is_a_404_like_a_missing_one(worked, other_course):
    """Another course's quiz for a key of the example's course, and the other way round."""
    mine = key_client(key_for(worked.quiz.lesson.course))
    theirs = key_client(key_for(other_course))
    for suffix in ("/", ".csv"):
        hidden = mine.get(f"/api/v1/quizzes/other-quiz/statistics{suffix}")
        missing = mine.get(f"/api/v1/quizzes/no-such-quiz/statistics{suffix}")
        assert hidden.status_code == missing.status_code == 404
        assert hidden.json() == missing.json()
        assert theirs.get(url(worked, suffix)).status_code == 404
        assert theirs.get(f"/api/v1/quizzes/other-quiz/statistics{suffix}").status_code == 200


def test_learners_and_instructors_signed_in_to_the_site_get_no_statistics(worked):
    for user in (UserFactory(), InstructorFactory()):
        response = session_client(user).get(url(worked))
        assert response.status_code == 403
        assert session_client(user).get(url(worked, ".csv")).status_code == 403


def csv_rows(response) -> list[dict[str, str]]:
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    text = b"".join(response.streaming_content).decode()
    reader = csv.DictReader(io.StringIO(text))
    assert reader.fieldnames == CSV_COLUMNS
    # A share names its unit; a coefficient keeps its name (teaching/numbers.py).
    assert "facility_fraction" in CSV_COLUMNS
    assert "discrimination_index" in CSV_COLUMNS
    return list(reader)


def cell(value: str) -> float | None:
    return None if value == "" else float(value)


def test_the_csv_has_the_same_item_rows(worked, client):
    document = client.get(url(worked), {"attempts": "all"}).json()
    rows = csv_rows(client.get(url(worked, ".csv"), {"attempts": "all"}))
    assert [int(row["item"]) for row in rows] == [item["item"] for item in document["items"]]
    for row, item in zip(rows, document["items"], strict=True):
        assert int(row["position"]) == item["position"]
        for name in ITEM_FIGURES:
            found, expected = cell(row[FIGURE_COLUMNS[name]]), item[name]
            assert (found is None and expected is None) or math.isclose(found, expected), name
        counts = item["responses"]
        assert int(row["responses"]) == counts["total"]
        for status in STATUSES:
            assert int(row[status]) == counts[status]
    choices = worked.choices
    assert rows[1]["choices"] == "; ".join(
        f"{choices[label].pk}={count}" for label, count in (("A", 3), ("B", 1), ("C", 1), ("D", 1))
    )
    assert rows[1]["misconceptions"] == "picked-c-or-d=2; picked-b=1"
    assert rows[2]["diagnoses"] == "sign-flipped=1"
    assert rows[2]["choices"] == ""


def test_the_csv_defuses_a_cell_a_spreadsheet_would_run(worked, client):
    """A misconception code is authored text: one starting with - is prefixed with '."""
    misconception = worked.choices["B"].misconception
    misconception.code = "-2+3"
    misconception.save()
    worked.quiz.attempts.get(pk=worked.first["Cai"].pk).responses.filter(
        misconception="picked-b"
    ).update(misconception="-2+3")
    rows = csv_rows(client.get(url(worked, ".csv"), {"format": "csv"}))
    assert rows[1]["misconceptions"] == "'-2+3=1; picked-c-or-d=1"


def test_the_csv_is_named_after_the_quiz_and_rule(worked, client):
    response = client.get(url(worked, ".csv"), {"attempts": "all"}, HTTP_ACCEPT="text/csv")
    assert response.status_code == 200
    disposition = f'attachment; filename="softgrade-{worked.quiz.slug}-statistics-all.csv"'
    assert response["Content-Disposition"] == disposition


# The key (1), the quiz in the key's courses (1), its overdue attempts closed first (1,
# grading/services/overdue.py), teaching.statistics.data.quiz_data (items, choices, attempts,
# responses, overrides: 5), then the responses counted by the database (1).
STATISTICS_QUERIES = 9


@pytest.mark.parametrize(("learners", "items"), [(2, 2), (12, 6)])
@pytest.mark.parametrize("suffix", ["/", ".csv"])
def test_the_statistics_cost_the_same_queries_whatever_the_size(
    db, django_assert_max_num_queries, learners, items, suffix
):
    lesson = LessonFactory()
    built = quiz_of(lesson, learners=learners, items=items, launched={}, by=InstructorFactory())
    client = key_client(key_for(lesson.course))
    client.get("/api/v1/courses/")  # records the key's use, once a minute: not counted
    with django_assert_max_num_queries(STATISTICS_QUERIES):
        response = client.get(f"/api/v1/quizzes/{built.quiz.slug}/statistics{suffix}")
        assert response.status_code == 200
        text = (
            b"".join(response.streaming_content).decode()
            if response.streaming
            else response.content.decode()
        )
    if suffix == ".csv":
        assert len(text.splitlines()) == 1 + items
    else:
        assert response.json()["quiz"]["n"] == learners


def test_the_schema_documents_both_endpoints_in_the_issue_s_shape():
    schema = APIClient().get("/api/v1/schema/?format=json").json()
    components = schema["components"]["schemas"]
    json_operation = schema["paths"]["/api/v1/quizzes/{slug}/statistics/"]["get"]
    csv_operation = schema["paths"]["/api/v1/quizzes/{slug}/statistics.csv"]["get"]
    reference = json_operation["responses"]["200"]["content"]["application/json"]["schema"]
    document = components[reference["$ref"].rsplit("/", 1)[1]]
    assert set(document["properties"]) == {"quiz", "items"}
    quiz = components["QuizFigures"]["properties"]
    assert set(quiz) == QUIZ_KEYS
    assert all(quiz[name].get("nullable") for name in QUIZ_KEYS - {"n"})
    item = components["ItemStatistics"]["properties"]
    assert set(item) == ITEM_KEYS
    assert item["discrimination_index"]["nullable"]
    counts = components["ResponseCounts"]["properties"]
    assert set(counts) == {"total", *STATUSES, "choices", "misconceptions", "diagnoses"}
    assert "text/csv" in csv_operation["responses"]["200"]["content"]
    for operation in (json_operation, csv_operation):
        (attempts,) = [p for p in operation["parameters"] if p["name"] == "attempts"]
        assert attempts["schema"]["enum"] == ["first", "all"]
        assert attempts["schema"]["default"] == "first"
