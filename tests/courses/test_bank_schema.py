"""The bank's schema: one declaration per entity drives validation, defaults, writes and export."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import yaml

from courses.bank.exporter import bank_export
from courses.bank.importer import bank_import
from courses.bank.issues import BankError
from courses.bank.schema import (
    CHOICE,
    COURSE,
    KEY_TERM,
    LESSON,
    MISCONCEPTION,
    PROBLEM,
    QUESTION,
    QUIZ,
    QUIZ_ITEM,
    Nested,
)
from courses.models import (
    Choice,
    Course,
    KeyTerm,
    Lesson,
    Misconception,
    Problem,
    Question,
    Quiz,
    QuizItem,
)
from tests.courses.test_bank import shipped_document, snapshot, write_bank

pytestmark = pytest.mark.django_db

# What a model holds that a bank does not say: its id, its position in the file (a lesson's order
# in its course is authored), the times Django keeps, and its parent (named by where it stands).
# A quiz's content version is kept by courses.content_versions, never written in a bank.
NOT_AUTHORED = {"id", "order", "created_at", "updated_at", "content_version"}
ENTITIES = [
    (COURSE, Course, ""),
    (LESSON, Lesson, "course"),
    (KEY_TERM, KeyTerm, "lesson"),
    (MISCONCEPTION, Misconception, "lesson"),
    (QUESTION, Question, "lesson"),
    (CHOICE, Choice, "question"),
    (PROBLEM, Problem, "lesson"),
    (QUIZ, Quiz, "lesson"),
    (QUIZ_ITEM, QuizItem, "quiz"),
]


def model_attrs(entity) -> set[str]:
    attrs = set()
    for spec in entity:
        if isinstance(spec.kind, Nested):
            attrs |= {sub.attr for sub in spec.kind.entity}
        else:
            attrs.add(spec.attr)
    return attrs


@pytest.mark.parametrize(("entity", "model", "parent"), ENTITIES, ids=[e[0].noun for e in ENTITIES])
def test_every_authored_model_field_is_in_the_bank_schema(entity, model, parent):
    """A field added to a model without its line in the schema would vanish from every bank."""
    authored = {
        f.name
        for f in model._meta.get_fields()
        if f.concrete and not f.auto_created and f.name not in NOT_AUTHORED | {parent}
    } | ({"order"} if model is Lesson else set())
    lists = {spec.name for spec in entity if spec.name in ("choices", "items")}
    assert model_attrs(entity) - lists == authored


def test_the_markup_checked_fields_are_the_documented_ones():
    checked = {
        (entity.noun, spec.name) for entity, _, _ in ENTITIES for spec in entity if spec.markup
    }
    assert checked == {
        ("course", "title"),
        ("course", "summary"),
        ("lesson", "title"),
        ("lesson", "summary"),
        ("lesson", "body"),
        ("key term", "term"),
        ("key term", "definition"),
        ("misconception", "title"),
        ("misconception", "explanation"),
        ("question", "title"),
        ("question", "prompt"),
        ("question", "explanation"),
        ("choice", "text"),
        ("choice", "feedback"),
        ("problem", "title"),
        ("problem", "prompt"),
        ("quiz", "title"),
        ("quiz", "description"),
    }
    links = {(e.noun, spec.name) for e, _, _ in ENTITIES for spec in e if spec.term_links}
    assert links == {("lesson", "body")}


def test_every_optional_field_round_trips(tmp_path):
    """Dates, tolerance, exam only, points, pinned and shuffle settings: export, import, export."""
    document = shipped_document()
    exam = next(q for q in document["quizzes"] if q["mode"] == "exam")
    exam.update(
        opens_at=datetime(2027, 1, 10, 9, tzinfo=UTC),
        closes_at=datetime(2027, 1, 31, 23, 59, tzinfo=UTC),
        release_answers="after_close",
        shuffle_items=False,
    )
    exam["items"][0]["points"] = 3
    document["problems"][0].update(tolerance={"atol": 0.0, "rtol": 0.002}, exam_only=True)
    document["questions"][0]["choices"][-1]["pinned"] = True
    bank_import(paths=[write_bank(tmp_path, document, "full.yaml")])
    lesson = Lesson.objects.get()
    exported = bank_export(lesson=lesson)
    again = yaml.safe_load(exported)
    quiz = next(q for q in again["quizzes"] if q["slug"] == exam["slug"])
    assert quiz["opens_at"] == exam["opens_at"]
    assert quiz["closes_at"] == exam["closes_at"]
    assert (quiz["release_answers"], quiz["shuffle_items"]) == ("after_close", False)
    assert "shuffle_choices" not in quiz
    assert quiz["items"][0]["points"] == 3
    assert again["problems"][0]["tolerance"] == {"atol": 0.0, "rtol": 0.002}
    assert again["problems"][0]["exam_only"] is True
    assert "tolerance" not in again["problems"][1]
    assert again["questions"][0]["choices"][-1]["pinned"] is True
    path = tmp_path / "exported.yaml"
    path.write_text(exported, encoding="utf-8")
    bank_import(paths=[path])
    assert bank_export(lesson=lesson) == exported


def test_numbers_and_flags_written_as_null_take_their_defaults(tmp_path):
    """`order:` with nothing after it is null: it means the default, as leaving it out does
    (it used to reach the database as NULL and stop the import with a traceback)."""
    document = shipped_document()
    document["lesson"]["order"] = None
    document["quizzes"][0]["tries_per_item"] = None
    document["quizzes"][0]["items"][0]["points"] = None
    document["problems"][0]["exam_only"] = None
    document["questions"][0]["choices"][0]["pinned"] = None
    bank_import(paths=[write_bank(tmp_path, document)])
    assert Lesson.objects.get().order == 1
    quiz = Quiz.objects.get(slug=document["quizzes"][0]["slug"])
    assert quiz.tries_per_item == 1
    assert quiz.items.order_by("order").first().points == 1
    assert not Problem.objects.get(slug=document["problems"][0]["slug"]).exam_only
    assert quiz.time_limit_minutes == document["quizzes"][0].get("time_limit_minutes")


@pytest.mark.parametrize(
    ("place", "value", "expected"),
    [
        ("misconception", ["std-for-variance"], "unknown misconception code ['std-for-variance']"),
        ("question", {"slug": "q"}, "no question {'slug': 'q'} in this bank"),
        ("mode", None, "must be one of practice, exam; got None"),
    ],
)
def test_a_wrong_kind_of_value_is_a_located_error_not_a_crash(tmp_path, place, value, expected):
    document = shipped_document()
    if place == "misconception":
        question = document["questions"][0]
        wrong = next(c for c in question["choices"] if not c["correct"])
        wrong["misconception"] = value
    elif place == "question":
        document["quizzes"][0]["items"][0] = {"question": value}
    else:
        document["quizzes"][0]["mode"] = value
    before = snapshot()
    with pytest.raises(BankError) as caught:
        bank_import(paths=[write_bank(tmp_path, document)])
    messages = [str(issue) for issue in caught.value.issues]
    assert any(m.endswith(f".{place}: {expected}") for m in messages), messages
    assert snapshot() == before
