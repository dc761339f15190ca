"""The grades API (teaching/api): every learner of the key's courses whatever their origin, who
they are as much as the key's integration may know, the attempt rule, and the same numbers as
the instructor's gradebook CSV.

The learners are the results grid's (test_results.py tells their numbers), plus Eve, sent by an
LMS through LTI: attempt 1 A and right = 5, attempt 2 B and 5 % off = 0. First and best 5 (#1),
last 0 (#2).
"""

from __future__ import annotations

import csv
import io
import uuid

import pytest
from lti_tool.models import LtiRegistration
from rest_framework.test import APIClient

from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from integrations import services
from integrations.models import Integration, LtiTie
from lti.models import LtiIdentity
from tests.api.conftest import key_client, session_client
from tests.factories import UserFactory
from tests.grading.exam_records import exam_build, sit
from tests.teaching.results.test_gradebook import gradebook

pytestmark = pytest.mark.django_db

ORIGINS = {"Ann Archer": "site", "Ben Okafor": "api", "Cai": "site", "Eve Lin": "lti"}


@pytest.fixture
def registration(db) -> LtiRegistration:
    return LtiRegistration.objects.create(
        name="Campus LMS (LTI)",
        uuid=uuid.uuid4(),
        issuer="https://lms.example.edu",
        client_id="softgrade",
        auth_url="https://lms.example.edu/auth",
        token_url="https://lms.example.edu/token",
        keyset_url="https://lms.example.edu/jwks",
    )


@pytest.fixture
def eve(exam, learners, registration):
    user = UserFactory(first_name="Eve", last_name="Lin", email="eve@example.edu")
    LtiIdentity.objects.create(registration=registration, sub="lms-user-5", user=user)
    learners["attempts"]["eve"] = [
        sit(exam, user, choice="A", factor=1.0),
        sit(exam, user, choice="B", factor=1.05),
    ]
    return user


def key_for(integration: Integration, *courses) -> APIClient:
    _, token = services.api_key_create(integration=integration, name="sync", courses=courses)
    return key_client(token)


@pytest.fixture
def campus(learners, course_a, registration) -> APIClient:
    """A key of the integration that provisioned Ben, tied to the LTI registration that sent
    Eve: the same LMS."""
    integration = Integration.objects.get(name="Campus LMS")
    LtiTie.objects.create(integration=integration, registration=registration)
    return key_for(integration, course_a)


@pytest.fixture
def other(course_a) -> APIClient:
    """Another integration's key for the same course."""
    return key_for(Integration.objects.create(name="Other LMS"), course_a)


def grades(client, query: str = "", path: str = "/api/v1/grades/") -> dict[str, dict]:
    response = client.get(path + query)
    assert response.status_code == 200, response.content
    if path.endswith(".csv"):
        text = b"".join(response.streaming_content).decode()
        return {row["learner_name"]: row for row in csv.DictReader(io.StringIO(text))}
    body = response.json()
    assert body["next"] is None
    return {row["learner_name"]: row for row in body["results"]}


def test_every_learner_with_an_attempt_has_a_grade_whatever_their_origin(campus, learners, eve):
    rows = grades(campus)
    # Dan, whom the LMS sent, made no attempt: he has no grade yet (the CSV lists him, empty).
    assert {name: row["origin"] for name, row in rows.items()} == ORIGINS
    users = {"Ann Archer": "ann", "Ben Okafor": "ben", "Cai": "cai"}
    for name, key in users.items():
        user = learners[key]
        assert (rows[name]["learner_id"], rows[name]["username"]) == (user.pk, user.username)
    assert rows["Eve Lin"]["learner_id"] == eve.pk
    # The integration's own learner by its own id, its own LMS's learner by the LMS's `sub`.
    assert rows["Ben Okafor"]["learner"] == "ben-1"
    assert rows["Eve Lin"]["lms_subject"] == "lms-user-5"
    assert rows["Ben Okafor"]["learner_email"] == "ben@example.edu"
    for name in ("Ann Archer", "Cai"):
        assert (rows[name]["learner"], rows[name]["lms_subject"]) == (None, None)
    cai = rows["Cai"]
    assert (cai["attempts"], cai["score"], cai["attempt"]) == (1, None, None)


def test_another_integration_sees_the_learners_but_never_the_ids_others_gave_them(
    campus, other, learners, eve
):
    rows = grades(other)
    assert set(rows) == set(ORIGINS)
    assert {name: row["origin"] for name, row in rows.items()} == ORIGINS
    assert {(row["learner"], row["lms_subject"]) for row in rows.values()} == {(None, None)}
    assert rows["Ben Okafor"]["learner_id"] == learners["ben"].pk
    # `learner` names the key's own integration's learner: Ben's id means nothing here, and
    # another learner of this integration with the same external id is theirs alone.
    assert grades(other, "?learner=ben-1") == {}
    integration = Integration.objects.get(name="Other LMS")
    namesake = services.learner_provision(
        integration=integration, external_id="ben-1", name="Ben Other"
    )[0].user
    quiz = learners["attempts"]["ann"][0].quiz
    attempt_submit(attempt=attempt_start(user=namesake, quiz=quiz))
    assert list(grades(other, "?learner=ben-1")) == ["Ben Other"]
    assert list(grades(campus, "?learner=ben-1")) == ["Ben Okafor"]


def test_a_key_for_one_course_never_sees_another_course_s_learners_or_grades(
    campus, learners, eve, course_a
):
    exam_b = exam_build()
    zed = UserFactory(first_name="Zed")
    sit(exam_b, zed, choice="A", factor=1.0)
    course_b = exam_b.quiz.lesson.course
    integration = Integration.objects.get(name="Campus LMS")
    b_only = key_for(Integration.objects.create(name="Course B LMS"), course_b)
    rows = grades(campus)
    assert "Zed" not in rows
    assert {row["course"] for row in rows.values()} == {course_a.slug}
    assert grades(campus, f"?quiz={exam_b.quiz.slug}") == {}
    assert grades(campus, f"?course={course_b.slug}") == {}
    assert grades(campus, f"?quiz={exam_b.quiz.slug}", "/api/v1/grades.csv") == {}
    b_rows = grades(b_only)
    assert list(b_rows) == ["Zed"]
    assert b_rows["Zed"]["quiz"] == exam_b.quiz.slug
    # A key of the same integration for both courses sees both.
    both = key_for(integration, course_a, course_b)
    assert set(grades(both)) == {*ORIGINS, "Zed"}


@pytest.mark.parametrize(
    ("attempts", "rule", "expected"),
    [
        ("first", "first", {"Ann Archer": (1, 0.0), "Ben Okafor": (1, 5.0), "Eve Lin": (1, 5.0)}),
        ("best", "best", {"Ann Archer": (2, 3.5), "Ben Okafor": (1, 5.0), "Eve Lin": (1, 5.0)}),
        ("last", "last", {"Ann Archer": (3, 0.0), "Ben Okafor": (1, 5.0), "Eve Lin": (2, 0.0)}),
        (None, "best", {"Ann Archer": (2, 3.5), "Ben Okafor": (1, 5.0), "Eve Lin": (1, 5.0)}),
    ],
)
def test_the_attempt_rule_changes_the_numbers_as_worked_out_by_hand(
    campus, learners, eve, attempts, rule, expected
):
    rows = grades(campus, f"?attempts={attempts}" if attempts else "")
    found = {name: (rows[name]["attempt"], rows[name]["score"]) for name in expected}
    assert found == expected
    assert {row["attempt_rule"] for row in rows.values()} == {rule}
    assert {row["max_score"] for row in rows.values()} == {5.0}
    # Ann made 3 attempts (all submitted), Ben 2 (one in progress): whatever the rule.
    assert (rows["Ann Archer"]["attempts"], rows["Ann Archer"]["submitted_attempts"]) == (3, 3)
    assert (rows["Ben Okafor"]["attempts"], rows["Ben Okafor"]["submitted_attempts"]) == (2, 1)
    counted = learners["attempts"]["ann"][expected["Ann Archer"][0] - 1]
    assert rows["Ann Archer"]["submitted_at"] == counted.submitted_at.isoformat().replace(
        "+00:00", "Z"
    )


@pytest.mark.parametrize("rule", ["first", "best", "last"])
def test_the_api_and_the_instructor_s_gradebook_csv_give_the_same_numbers(
    client, campus, exam, people, learners, eve, rule
):
    client.force_login(people.instructor)
    book = {row["learner"]: row for row in gradebook(client, exam.quiz, rule)}
    api = {row["username"]: row for row in grades(campus, f"?attempts={rule}").values()}
    api_csv = {
        row["username"]: row
        for row in grades(campus, f"?attempts={rule}", "/api/v1/grades.csv").values()
    }
    # The gradebook also lists Dan, whom an LMS sent and who made no attempt yet.
    assert set(book) - set(api) == {learners["dan"].username}
    assert set(api) == set(api_csv)
    for username, row in api.items():
        expected = book[username]
        as_cells = {
            "attempts": str(row["attempts"]),
            "attempt": "" if row["attempt"] is None else str(row["attempt"]),
            "score": "" if row["score"] is None else str(row["score"]),
            "max_score": str(row["max_score"]),
            "name": row["learner_name"],
            "email": row["learner_email"],
        }
        # The gradebook's score columns name their unit (teaching/numbers.py); the API's fields
        # are its documented contract and keep their names.
        in_book = {"score": "score_points", "max_score": "max_score_points"}
        assert as_cells == {column: expected[in_book.get(column, column)] for column in as_cells}, (
            username
        )
        submitted = expected["submitted_at_utc"]
        assert (row["submitted_at"] or "").replace("Z", "+00:00") == submitted, username
        for column in ("attempts", "attempt", "score", "max_score"):
            assert api_csv[username][column] == as_cells[column], (username, column)


@pytest.mark.parametrize("value", ["all", "worst", "BEST", ""])
@pytest.mark.parametrize("path", ["/api/v1/grades/", "/api/v1/grades.csv"])
def test_a_bad_attempts_value_is_a_clear_400(campus, value, path):
    accept = "text/csv" if path.endswith(".csv") else "application/json"
    response = campus.get(path, {"attempts": value}, HTTP_ACCEPT=accept)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    error = response.json()
    assert error["field"] == "attempts"
    assert "first, best or last" in error["message"]


def test_grades_are_for_keys_only(learners):
    response = session_client(learners["ann"]).get("/api/v1/grades/")
    assert response.status_code == 403


def test_the_schema_documents_the_rule_and_the_learner_s_identity():
    schema = APIClient().get("/api/v1/schema/?format=json").json()
    for path in ("/api/v1/grades/", "/api/v1/grades.csv"):
        parameters = {p["name"]: p for p in schema["paths"][path]["get"]["parameters"]}
        assert parameters["attempts"]["schema"]["enum"] == ["first", "best", "last"]
        assert {"learner", "quiz", "course", "updated_since"} <= set(parameters)
    components = schema["components"]["schemas"]
    grade = components["Grade"]["properties"]
    origin = grade["origin"]["allOf"][0]["$ref"].rsplit("/", 1)[1]
    assert components[origin]["enum"] == ["site", "api", "lti"]
    assert grade["lms_subject"]["nullable"]
    assert grade["learner"]["nullable"]
    assert {"learner_id", "username", "attempt_rule", "attempt", "score"} <= set(grade)


@pytest.fixture
def crowd(exam, registration, course_a):
    """36 learners, a third of each origin, two submitted attempts each."""
    campus = Integration.objects.create(name="Campus LMS")
    for n in range(12):
        site = UserFactory(first_name=f"Site {n}")
        provisioned = services.learner_provision(
            integration=campus, external_id=f"p-{n}", name=f"Api {n}"
        )[0].user
        launched = UserFactory(first_name=f"Lti {n}")
        LtiIdentity.objects.create(registration=registration, sub=f"sub-{n}", user=launched)
        for user in (site, provisioned, launched):
            for _ in range(2):
                attempt_submit(attempt=attempt_start(user=user, quiz=exam.quiz))
    LtiTie.objects.create(integration=campus, registration=registration)
    return key_for(campus, course_a)


# The key, the overdue attempts closed first (grading/services/overdue.py), the page of
# (learner, quiz) pairs, their attempts with learners, the quizzes with their maximum scores,
# the LMS identities and the key's LTI ties.
GRADE_QUERIES = 7


def test_a_page_of_grades_costs_the_same_few_queries_whatever_its_size(
    crowd, django_assert_max_num_queries
):
    crowd.get("/api/v1/courses/")  # records the key's use, once a minute: not counted
    for size in (1, 200):
        with django_assert_max_num_queries(GRADE_QUERIES):
            response = crowd.get("/api/v1/grades/", {"page_size": size})
        assert len(response.json()["results"]) == min(size, 36)
    rows = response.json()["results"]
    assert {row["origin"] for row in rows} == {"site", "api", "lti"}
    assert len({row["lms_subject"] for row in rows if row["origin"] == "lti"}) == 12


def test_the_grades_csv_costs_the_same_few_queries_whatever_the_number_of_learners(
    crowd, django_assert_max_num_queries
):
    crowd.get("/api/v1/courses/")
    with django_assert_max_num_queries(GRADE_QUERIES):
        response = crowd.get("/api/v1/grades.csv")
        lines = b"".join(response.streaming_content).decode().splitlines()
    assert len(lines) == 1 + 36
