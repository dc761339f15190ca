"""The gradebook export: every learner of a quiz with the chosen attempt's score, parsed and
checked against the numbers worked out by hand in test_results.py, streamed, and safe to open
in a spreadsheet."""

from __future__ import annotations

import csv
import io
from datetime import UTC

import pytest
from django.urls import reverse

from accounts.models import Profile
from accounts.time_zones import BROWSER_ZONE_COOKIE
from grading import scores
from teaching.results.gradebook import COLUMNS, spreadsheet_safe
from tests.factories import UserFactory
from tests.grading.exam_records import sit

pytestmark = pytest.mark.django_db


def gradebook(client, quiz, rule: str | None = None) -> list[dict[str, str]]:
    url = reverse("teaching:quiz-gradebook", args=[quiz.slug])
    response = client.get(url + (f"?attempts={rule}" if rule else ""))
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == (
        f'attachment; filename="softgrade-{quiz.slug}-{rule or "best"}.csv"'
    )
    text = b"".join(response.streaming_content).decode()
    reader = csv.DictReader(io.StringIO(text))
    assert reader.fieldnames == COLUMNS
    return list(reader)


def scores_by_learner(rows) -> dict[str, tuple[str, str, str, str]]:
    return {
        row["name"]: (row["attempts"], row["attempt"], row["score_points"], row["max_score_points"])
        for row in rows
    }


@pytest.mark.parametrize(
    ("rule", "ann", "ben"),
    [
        ("first", ("3", "1", "0.0", "5.0"), ("2", "1", "5.0", "5.0")),
        (None, ("3", "2", "3.5", "5.0"), ("2", "1", "5.0", "5.0")),  # best, the default
        ("best", ("3", "2", "3.5", "5.0"), ("2", "1", "5.0", "5.0")),
        ("last", ("3", "3", "0.0", "5.0"), ("2", "1", "5.0", "5.0")),
    ],
)
def test_every_learner_with_the_chosen_attempt_s_score(
    client, exam, people, learners, rule, ann, ben
):
    client.force_login(people.assistant)
    rows = gradebook(client, exam.quiz, rule)
    # A site sign-up, an integration's learner, one with an attempt in progress only, and one
    # an LMS sent who made none; the instructor who launched the quiz is no learner.
    assert scores_by_learner(rows) == {
        "Ann Archer": ann,
        "Ben Okafor": ben,
        "Cai": ("1", "", "", "5.0"),
        "Dan": ("0", "", "", "5.0"),
    }
    by_name = {row["name"]: row for row in rows}
    assert by_name["Ben Okafor"]["email"] == "ben@example.edu"
    assert by_name["Ben Okafor"]["learner"] == learners["ben"].username
    assert (by_name["Ben Okafor"]["lms_course"], by_name["Ann Archer"]["lms_course"]) == (
        "ML 101",
        "",
    )
    submitted = learners["attempts"]["ben"][0].submitted_at
    assert by_name["Ben Okafor"]["submitted_at_utc"] == submitted.isoformat()
    assert by_name["Cai"]["submitted_at_utc"] == ""


def test_the_times_are_utc_whatever_zone_the_instructor_reads_pages_in(
    client, exam, people, learners
):
    Profile.objects.create(user=people.instructor, time_zone="Pacific/Auckland")
    client.force_login(people.instructor)
    client.cookies[BROWSER_ZONE_COOKIE] = "Asia/Kolkata"
    rows = {row["name"]: row for row in gradebook(client, exam.quiz)}
    submitted = learners["attempts"]["ben"][0].submitted_at
    assert rows["Ben Okafor"]["submitted_at_utc"] == submitted.astimezone(UTC).isoformat()
    assert rows["Ben Okafor"]["submitted_at_utc"].endswith("+00:00")


def test_the_best_score_is_the_one_the_lms_is_sent(client, exam, people, learners):
    client.force_login(people.instructor)
    rows = {row["learner"]: row for row in gradebook(client, exam.quiz, "best")}
    for key in ("ann", "ben"):
        best = scores.best_attempt(user=learners[key], quiz=exam.quiz)
        assert rows[learners[key].username]["attempt"] == str(best.number)
        assert float(rows[learners[key].username]["score_points"]) == best.score


@pytest.mark.parametrize(
    "name",
    ['=HYPERLINK("http://x")', "+1+1", "-2+3", "@SUM(A1)"],
)
def test_a_cell_a_spreadsheet_would_run_is_prefixed(client, exam, people, lms_contexts, name):
    learner = UserFactory(first_name=name, email="plain@example.org")
    sit(exam, learner, choice="A", factor=1.0)
    lms_contexts[learner.pk] = name  # an LMS names its courses as it likes
    client.force_login(people.instructor)
    (row,) = gradebook(client, exam.quiz)
    assert row["name"] == row["lms_course"] == "'" + name
    assert row["email"] == "plain@example.org"
    assert row["score_points"] == "5.0"


def test_spreadsheet_safe_leaves_other_values_alone():
    assert spreadsheet_safe("Ann") == "Ann"
    assert spreadsheet_safe(3.5) == 3.5
    assert spreadsheet_safe(-1.0) == -1.0  # a number is no formula
    assert spreadsheet_safe(None) == ""
    assert spreadsheet_safe("-") == "'-"
    # A name is stripped before it reaches a cell, but an email or an LMS course name need not be.
    assert spreadsheet_safe("\tTab") == "'\tTab"
    assert spreadsheet_safe("\rReturn") == "'\rReturn"


def test_a_quiz_without_learners_gives_the_header_alone(client, exam, people):
    client.force_login(people.instructor)
    assert gradebook(client, exam.quiz) == []
