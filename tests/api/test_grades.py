"""Grades for the gradebook: per learner and quiz, filterable, paged by a sync cursor, and CSV."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.utils import timezone

from grading.models import Attempt
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from integrations import services as integrations
from integrations.models import Learner

pytestmark = pytest.mark.django_db


def provisioned(lms, external_id: str, **fields):
    learner, _ = integrations.learner_provision(
        integration=lms.integration, external_id=external_id, **fields
    )
    return learner.user


def submitted(user, quiz):
    attempt = attempt_start(user=user, quiz=quiz)
    return attempt_submit(attempt=attempt)


def test_one_row_per_learner_and_quiz_with_the_best_submitted_score(lms, practice_quiz, exam):
    user = Learner.objects.get(external_id="stud-1").user
    first = submitted(user, exam)
    Attempt.objects.filter(pk=first.pk).update(score=3.0)
    second = submitted(user, exam)
    Attempt.objects.filter(pk=second.pk).update(score=5.0)
    attempt_start(user=user, quiz=practice_quiz)
    rows = lms.client().get("/api/v1/grades/").json()["results"]
    by_quiz = {row["quiz"]: row for row in rows}
    assert by_quiz["attention-exam"]["score"] == 5.0
    assert by_quiz["attention-exam"]["attempts"] == 2
    assert by_quiz["attention-exam"]["submitted_attempts"] == 2
    # An attempt in progress is an attempt but gives no score yet.
    assert by_quiz["attention-practice"]["score"] is None
    assert by_quiz["attention-practice"]["attempts"] == 1
    assert by_quiz["attention-exam"]["learner"] == "stud-1"
    assert by_quiz["attention-exam"]["learner_email"] == "ada@example.org"


def test_filters_and_incremental_sync(lms, practice_quiz, exam):
    client = lms.client()
    for n in range(3):
        submitted(provisioned(lms, f"s{n}"), exam)
    submitted(provisioned(lms, "late"), practice_quiz)
    assert len(client.get("/api/v1/grades/?quiz=attention-exam").json()["results"]) == 3
    assert len(client.get("/api/v1/grades/?learner=late").json()["results"]) == 1
    assert len(client.get("/api/v1/grades/?course=attention-math").json()["results"]) == 4
    all_rows = client.get("/api/v1/grades/").json()["results"]
    newest = max(row["updated_at"] for row in all_rows)
    changed = client.get("/api/v1/grades/", {"updated_since": newest}).json()["results"]
    assert [row["learner"] for row in changed] == ["late"]
    future = (timezone.now() + timedelta(days=1)).isoformat()
    assert client.get("/api/v1/grades/", {"updated_since": future}).json()["results"] == []


def test_the_cursor_walks_every_row_once(lms, exam):
    client = lms.client()
    for n in range(7):
        submitted(provisioned(lms, f"s{n}"), exam)
    seen, url = [], "/api/v1/grades/?page_size=3"
    while url:
        page = client.get(url).json()
        seen += [row["learner"] for row in page["results"]]
        url = page["next"]
    assert sorted(seen) == sorted(f"s{n}" for n in range(7))
    bad = client.get("/api/v1/grades/?cursor=garbage")
    assert (bad.status_code, bad.json()["field"]) == (404, "cursor")


def test_site_learners_come_without_an_external_id_and_other_courses_stay_out(
    lms, other_lms, exam, learner_a
):
    """Every learner of the key's courses has a grade (tests/teaching/test_grades_api.py has
    each origin and what each key may know of them); another course's key sees none of them."""
    submitted(learner_a, exam)
    submitted(provisioned(lms, "mine"), exam)
    rows = lms.client().get("/api/v1/grades/").json()["results"]
    assert sorted((row["learner"] or "", row["origin"], row["username"]) for row in rows) == [
        ("", "site", "learner-a"),
        ("mine", "api", Learner.objects.get(external_id="mine").user.username),
    ]
    assert other_lms.client().get("/api/v1/grades/").json()["results"] == []


def test_csv_has_every_row_and_defuses_spreadsheet_formulas(lms, exam):
    submitted(provisioned(lms, "s1", name="=HYPERLINK(1)"), exam)
    submitted(provisioned(lms, "s2", name="Bo"), exam)
    response = lms.client().get("/api/v1/grades.csv?quiz=attention-exam")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [row["learner"] for row in rows] == ["s1", "s2"]
    assert rows[0]["learner_name"] == "'=HYPERLINK(1)"
    assert rows[1]["score"] == "0.0"
    assert rows[1]["max_score"] == str(
        float(exam.items.count() and sum(item.points for item in exam.items.all()))
    )


def test_csv_errors_are_json_in_the_error_shape(lms):
    response = lms.client().get("/api/v1/grades.csv?upto=now", HTTP_ACCEPT="text/csv")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json()["field"] == "upto"
