"""What a bank publishes: `published` for the whole file or per question, problem and quiz (per
item wins), what a bank that says nothing does, and a published quiz with unpublished content
refused with its place and nothing written."""

from __future__ import annotations

import copy

import pytest
import yaml

from courses.bank.exporter import bank_export
from courses.bank.importer import bank_import
from courses.bank.issues import BankError
from courses.models import Lesson, Problem, Question, Quiz
from tests.courses.test_bank import shipped_document, snapshot, write_bank
from tests.factories import QuizFactory, QuizItemFactory

pytestmark = pytest.mark.django_db

MODELS = (Question, Problem, Quiz)


def silent(document: dict) -> dict:
    """The shipped bank with no `published` anywhere."""
    document = copy.deepcopy(document)
    document.pop("published", None)
    for section in ("questions", "problems", "quizzes"):
        for entry in document[section]:
            entry.pop("published", None)
    return document


def published_slugs(model) -> set[str]:
    return set(model.objects.filter(published=True).values_list("slug", flat=True))


def test_the_shipped_bank_publishes_everything(shipped_bank):
    assert shipped_document()["published"] is True
    for model in MODELS:
        assert model.objects.exists()
        assert not model.objects.filter(published=False).exists()


def test_a_bank_that_says_nothing_imports_everything_unpublished(tmp_path):
    bank_import(paths=[write_bank(tmp_path, silent(shipped_document()))])
    for model in MODELS:
        assert model.objects.exists()
        assert not model.objects.filter(published=True).exists()


def test_a_bank_that_says_nothing_keeps_what_was_published_since(tmp_path):
    path = write_bank(tmp_path, silent(shipped_document()))
    bank_import(paths=[path])
    Question.objects.filter(slug="q-variance-of-dot").update(published=True)
    bank_import(paths=[path])
    assert published_slugs(Question) == {"q-variance-of-dot"}


def test_published_on_an_item_wins_over_the_file(tmp_path):
    document = shipped_document()
    draft = document["problems"][0]["slug"]
    document["problems"][0]["published"] = False
    # Out of the published quizzes, which may hold only published content.
    for quiz in document["quizzes"]:
        quiz["items"] = [item for item in quiz["items"] if item.get("problem") != draft]
    bank_import(paths=[write_bank(tmp_path, document)])
    assert not Problem.objects.get(slug=draft).published
    assert Problem.objects.filter(published=True).count() == len(document["problems"]) - 1
    unpublished = silent(shipped_document())
    unpublished["published"] = False
    unpublished["questions"][0]["published"] = True
    bank_import(paths=[write_bank(tmp_path, unpublished)])
    assert published_slugs(Question) == {unpublished["questions"][0]["slug"]}
    assert not Quiz.objects.filter(published=True).exists()


def test_a_published_quiz_holding_an_unpublished_question_is_refused_with_its_place(tmp_path):
    document = shipped_document()
    quiz = document["quizzes"][0]
    number, item = next((n, i) for n, i in enumerate(quiz["items"], 1) if i.get("question"))
    held = next(q for q in document["questions"] if q["slug"] == item["question"])
    held["published"] = False
    before = snapshot()
    with pytest.raises(BankError) as caught:
        bank_import(paths=[write_bank(tmp_path, document, "lesson.yaml")])
    assert [str(issue) for issue in caught.value.issues] == [
        f"lesson.yaml › quizzes[1] ({quiz['slug']}) › item {number}: the quiz is published but "
        f"question {item['question']!r} is not: publish it too (published: true), or leave the "
        "quiz unpublished"
    ]
    assert snapshot() == before


def test_a_published_quiz_drawing_from_a_pool_with_an_unpublished_member_is_refused(tmp_path):
    document = shipped_document()
    member = document["questions"][0]
    member["published"] = False
    for quiz in document["quizzes"]:
        quiz["items"] = [item for item in quiz["items"] if item.get("question") != member["slug"]]
    document["pools"] = [{"slug": "warm-up", "title": "Warm-up", "questions": [member["slug"]]}]
    document["quizzes"][0]["items"].append({"pool": "warm-up"})
    with pytest.raises(BankError) as caught:
        bank_import(paths=[write_bank(tmp_path, document)])
    (issue,) = caught.value.issues
    assert f"question {member['slug']!r} (in pool 'warm-up') is not" in issue.message
    assert not Lesson.objects.exists()


def test_a_bank_may_not_unpublish_what_a_published_quiz_of_another_lesson_holds(tmp_path):
    bank_import(paths=[write_bank(tmp_path, shipped_document())])
    held = Question.objects.get(slug="q-variance-of-dot")
    QuizItemFactory(quiz=QuizFactory(slug="elsewhere"), question=held)
    document = shipped_document()
    for quiz in document["quizzes"]:
        quiz["published"] = False
    next(q for q in document["questions"] if q["slug"] == held.slug)["published"] = False
    before = snapshot()
    with pytest.raises(BankError) as caught:
        bank_import(paths=[write_bank(tmp_path, document)])
    assert [str(issue) for issue in caught.value.issues] == [
        f"lesson {document['lesson']['slug']}: question q-variance-of-dot is in published quiz "
        "elsewhere: unpublish the quiz first, or take it out of the quiz"
    ]
    assert snapshot() == before


@pytest.mark.parametrize("where", ["file", "question", "quiz"])
def test_published_must_be_true_or_false(tmp_path, where):
    document = shipped_document()
    target = {
        "file": document,
        "question": document["questions"][1],
        "quiz": document["quizzes"][0],
    }[where]
    target["published"] = "yes"
    with pytest.raises(BankError) as caught:
        bank_import(paths=[write_bank(tmp_path, document, "lesson.yaml")])
    messages = [str(issue) for issue in caught.value.issues]
    assert len(messages) == 1
    assert messages[0].endswith("published: must be true or false, got 'yes'")
    assert messages[0].startswith("lesson.yaml › ")


def test_export_writes_each_state_and_imports_back_the_same(tmp_path):
    document = shipped_document()
    document["questions"][0]["published"] = False
    for quiz in document["quizzes"]:
        quiz["published"] = False
    bank_import(paths=[write_bank(tmp_path, document)])
    states = {model: published_slugs(model) for model in MODELS}
    exported = yaml.safe_load(bank_export(lesson=Lesson.objects.get()))
    assert exported["questions"][0]["published"] is False
    assert all(problem["published"] is True for problem in exported["problems"])
    Question.objects.update(published=False)
    bank_import(paths=[write_bank(tmp_path, exported, "exported.yaml")])
    assert {model: published_slugs(model) for model in MODELS} == states
