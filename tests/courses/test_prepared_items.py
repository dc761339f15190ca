"""A quiz whose learners have only prepared attempts (grading/services/prepared.py: made when
they opened its page, never started) is not an attempted quiz: the admin and the bank import
remove its items, deleting the prepared attempts whose draws and variants name them."""

from __future__ import annotations

import pytest

from courses.bank.importer import bank_import
from courses.models import Quiz, QuizItem
from grading.models import Attempt
from grading.services.prepared import attempt_prepare
from tests.courses.test_admin_attempted_quiz import change_url, quiz_post
from tests.courses.test_bank import shipped_document, write_bank
from tests.factories import InstructorFactory, UserFactory
from tests.grading.exam_records import exam_build

pytestmark = pytest.mark.django_db


def test_the_admin_removes_an_item_a_prepared_attempt_names(client):
    exam = exam_build()
    prepared = attempt_prepare(user=UserFactory(), quiz=exam.quiz)
    assert prepared.variants.filter(quiz_item=exam.problem_item).exists()
    client.force_login(InstructorFactory())
    data = quiz_post(exam)
    data["items-1-DELETE"] = "on"  # the problem item, second in order
    response = client.post(change_url(exam), data)
    assert response.status_code == 302, response.content.decode()
    assert list(QuizItem.objects.filter(quiz=exam.quiz)) == [exam.question_item]
    assert not Attempt.prepared.exists()


def test_an_admin_save_that_removes_nothing_keeps_the_prepared_attempts(client):
    exam = exam_build()
    prepared = attempt_prepare(user=UserFactory(), quiz=exam.quiz)
    client.force_login(InstructorFactory())
    response = client.post(change_url(exam), quiz_post(exam, title="Renamed"))
    assert response.status_code == 302
    assert list(Attempt.prepared.all()) == [prepared]


def test_the_bank_import_removes_an_item_a_prepared_attempt_names(tmp_path):
    document = shipped_document()
    bank_import(paths=[write_bank(tmp_path, document, "bank.yaml")])
    quiz = Quiz.objects.get(slug="attention-exam")
    prepared = attempt_prepare(user=UserFactory(), quiz=quiz)
    assert prepared.variants.exists()
    exam = next(q for q in document["quizzes"] if q["slug"] == quiz.slug)
    kept = len(exam["items"]) - 1
    # Remove the last problem item (its variant is the prepared attempt's).
    last_problem = max(i for i, entry in enumerate(exam["items"]) if entry.get("problem"))
    del exam["items"][last_problem]
    bank_import(paths=[write_bank(tmp_path, document, "bank.yaml")])
    assert quiz.items.count() == kept
    assert not Attempt.prepared.exists()
