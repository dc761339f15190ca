"""A regrade writes each learner's feedback again in the language they answered in, never in
the instructor's: an answer graded on a German page and regraded by an English-speaking
instructor keeps German feedback, and a preview lists no change where nothing but the
instructor's language differs."""

from __future__ import annotations

import pytest
from django.utils import translation

from grading.models import Response
from grading.regrade_graders import language_of
from grading.regrades import quiz_item_regrade
from grading.services.verdicts import variant_grade
from tests.factories import UserFactory
from tests.grading.exam_records import exam_build, instructor_of, sit

pytestmark = pytest.mark.django_db


def test_an_answer_in_english_records_no_language_and_reads_as_the_default():
    assert language_of({"decimal": ","}) == "en"
    assert language_of(None) == "en"
    assert language_of({"language": "de"}) == "de"


def test_a_regrade_writes_feedback_again_in_the_learner_s_language():
    exam = exam_build()
    with translation.override("de"):
        # 5 % off: wrong under the family's 1 % tolerance, right under 10 %.
        eva = sit(exam, UserFactory(username="eva"), choice="B", factor=1.05)
    sit(exam, UserFactory(username="tom"), choice="B", factor=1.05)
    answers = Response.objects.filter(quiz_item=exam.problem_item)
    assert answers.get(attempt=eva).detail["language"] == "de"
    assert "language" not in answers.exclude(attempt=eva).get().detail
    instructor = instructor_of(exam)

    # Nothing changed: the English instructor's preview finds nothing to regrade in either item.
    assert quiz_item_regrade(item=exam.problem_item, by=instructor, apply=False).attempts == []
    assert quiz_item_regrade(item=exam.question_item, by=instructor, apply=False).attempts == []

    exam.problem.atol, exam.problem.rtol = 0.0, 0.1
    exam.problem.save()
    quiz_item_regrade(item=exam.problem_item, by=instructor, apply=True)
    regraded = answers.get(attempt=eva)
    assert regraded.status == Response.Status.CORRECT
    assert regraded.detail["language"] == "de"
    variant = regraded.variant
    variant.refresh_from_db()
    with translation.override("de"):
        german = variant_grade(variant=variant, text=regraded.text).feedback
    english = variant_grade(variant=variant, text=regraded.text).feedback
    assert german != english
    assert regraded.feedback == german
    assert answers.exclude(attempt=eva).get().feedback == english
