"""Importing the bank again over a quiz learners have attempted: its items keep their place, and
a change of points is reported (dry run) and regraded as an instructor, audited."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from courses.bank.importer import bank_import
from courses.bank.issues import BankError
from courses.models import Quiz, QuizItem
from grading.models import Attempt, Regrade
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.responses import response_submit
from teaching.models import CourseRole
from tests.courses.test_bank import shipped_document, write_bank
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

SLUG = "attention-practice"


@pytest.fixture
def attempted(tmp_path):
    """The shipped bank imported; Ann answers the practice quiz's first item (a 1-point
    question) right and submits: 1 of the quiz's points."""
    document = shipped_document()
    bank_import(paths=[write_bank(tmp_path, document, "bank.yaml")])
    quiz = Quiz.objects.get(slug=SLUG)
    first = quiz.items.order_by("order", "id").first()
    ann = UserFactory(username="ann")
    attempt = attempt_start(user=ann, quiz=quiz)
    right = first.question.choices.get(is_correct=True)
    response_submit(attempt=attempt, item=first, choice_ids=[right.pk])
    attempt_submit(attempt=attempt)
    attempt.refresh_from_db()
    assert attempt.score == 1.0
    return document, quiz, attempt


def practice(document) -> dict:
    return next(q for q in document["quizzes"] if q["slug"] == SLUG)


def stored():
    return (
        sorted(QuizItem.objects.values_list("pk", "quiz_id", "order", "question_id", "points")),
        sorted(Attempt.objects.values_list("pk", "score", "max_score")),
        Regrade.objects.count(),
    )


def instructor(quiz: Quiz):
    user = UserFactory(username="irene")
    CourseRole.objects.create(course=quiz.lesson.course, user=user, role=CourseRole.Role.INSTRUCTOR)
    return user


def test_a_dry_run_says_what_a_points_change_would_regrade_and_changes_nothing(
    attempted, tmp_path, capsys
):
    document, _quiz, _attempt = attempted
    practice(document)["items"][0]["points"] = 3
    before = stored()
    call_command("import_bank", str(write_bank(tmp_path, document)), "--dry-run")
    out = capsys.readouterr().out
    assert "Would import (dry run, nothing changed):" in out
    assert f"quiz {SLUG}: This quiz has 1 attempt; changing points regrades them" in out
    assert "Item 1: 1 → 3 points. 1 learner's attempt gains (ann +2)" in out
    assert stored() == before


def test_a_points_change_without_an_instructor_is_refused_and_changes_nothing(attempted, tmp_path):
    document, _quiz, _attempt = attempted
    practice(document)["items"][0]["points"] = 3
    before = stored()
    with pytest.raises(BankError) as caught:
        bank_import(paths=[write_bank(tmp_path, document)])
    message = str(caught.value)
    assert f"quiz {SLUG}.items: This quiz has 1 attempt;" in message
    assert "Import with --by <user name> of an instructor of its course" in message
    assert stored() == before


def test_a_points_change_by_an_instructor_regrades_the_attempts(attempted, tmp_path, capsys):
    document, quiz, attempt = attempted
    practice(document)["items"][0]["points"] = 3
    max_before = attempt.max_score
    instructor(quiz)
    call_command("import_bank", str(write_bank(tmp_path, document)), "--by", "irene")
    out = capsys.readouterr().out
    assert f"quiz {SLUG}: regraded: Item 1: 1 → 3 points." in out
    attempt.refresh_from_db()
    assert (attempt.score, attempt.max_score) == (3.0, max_before + 2)
    regrade = Regrade.objects.get()
    assert (regrade.fix, regrade.by_username) == ([{"points": [1, 3]}], "irene")


def test_someone_who_may_not_change_its_scores_is_refused(attempted, tmp_path):
    document, _quiz, _attempt = attempted
    practice(document)["items"][0]["points"] = 3
    UserFactory(username="author", is_staff=True)
    before = stored()
    with pytest.raises(CommandError):
        call_command("import_bank", str(write_bank(tmp_path, document)), "--by", "author")
    assert stored() == before
    with pytest.raises(CommandError, match="No user named 'nobody'"):
        call_command("import_bank", str(write_bank(tmp_path, document)), "--by", "nobody")


@pytest.mark.parametrize("change", ["reorder", "remove", "add", "replace"])
def test_the_items_of_an_attempted_quiz_keep_their_place(attempted, tmp_path, change):
    document, _quiz, _attempt = attempted
    items = practice(document)["items"]
    if change == "reorder":
        items[0], items[1] = items[1], items[0]
    elif change == "remove":
        items.pop()
    elif change == "add":
        items.append({"question": "q-mean-of-dot"})
    else:
        items[0] = {"question": "q-mean-of-dot"}
    before = stored()
    with pytest.raises(BankError) as caught:
        bank_import(paths=[write_bank(tmp_path, document)])
    assert str(caught.value).endswith(
        f"quiz {SLUG}.items: this quiz has 1 attempt: its attempts name its items and add up "
        "their points, so items cannot be added, removed, reordered or given another question, "
        "problem or pool; only their points can change (regraded). Make a new quiz for other "
        "items."
    )
    assert stored() == before


def test_an_unattempted_quiz_is_imported_as_before(attempted, tmp_path):
    document, _quiz, _attempt = attempted
    exam = next(q for q in document["quizzes"] if q["slug"] == "attention-exam")
    exam["items"][0], exam["items"][1] = exam["items"][1], exam["items"][0]
    exam["items"][0]["points"] = 4
    bank_import(paths=[write_bank(tmp_path, document)])
    first = Quiz.objects.get(slug="attention-exam").items.order_by("order", "id").first()
    assert (first.question.slug, first.points) == (exam["items"][0]["question"], 4)
    assert not Regrade.objects.exists()
