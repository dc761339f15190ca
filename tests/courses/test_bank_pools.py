"""Pools in the lesson bank: a named set of the bank's questions and problems, quiz items that
draw from one, through import and export, and every mistake refused with its place (a pool
left holding another course's question, or a quiz drawing from another course's pool, among
them)."""

from __future__ import annotations

import copy

import pytest
import yaml
from django.db.models import QuerySet

from courses.bank.exporter import bank_export
from courses.bank.importer import bank_import
from courses.bank.issues import BankError
from courses.models import Course, Lesson, Pool, Question, Quiz, QuizItem
from tests.courses.test_bank import shipped_document, snapshot, write_bank
from tests.factories import (
    LessonFactory,
    PoolFactory,
    QuestionFactory,
    QuizFactory,
    QuizItemFactory,
)

pytestmark = pytest.mark.django_db


def with_pool(document: dict, *, draws: int = 2) -> dict:
    """The shipped bank with a pool of three questions and a problem, and `draws` items of the
    first quiz drawing from it (2 points each)."""
    document = copy.deepcopy(document)
    questions = [q["slug"] for q in document["questions"][:3]]
    document["pools"] = [
        {
            "slug": "warm-up-pool",
            "title": "Warm-up questions",
            "questions": questions,
            "problems": [document["problems"][0]["slug"]],
        }
    ]
    document["quizzes"][0]["items"] += [{"pool": "warm-up-pool", "points": 2}] * draws
    return document


def test_a_pool_and_its_items_are_imported(tmp_path):
    document = with_pool(shipped_document())
    bank_import(paths=[write_bank(tmp_path, document)])
    pool = Pool.objects.get(slug="warm-up-pool")
    assert pool.title == "Warm-up questions"
    assert sorted(pool.questions.values_list("slug", flat=True)) == sorted(
        document["pools"][0]["questions"]
    )
    assert list(pool.problems.values_list("slug", flat=True)) == [document["problems"][0]["slug"]]
    quiz = Quiz.objects.get(slug=document["quizzes"][0]["slug"])
    drawing = quiz.items.filter(pool=pool)
    assert drawing.count() == 2
    assert all(item.points == 2 and item.question_id is None for item in drawing)


def test_export_then_import_is_a_round_trip_with_pools(tmp_path):
    bank_import(paths=[write_bank(tmp_path, with_pool(shipped_document()))])
    lesson = Lesson.objects.get(slug=shipped_document()["lesson"]["slug"])
    exported = bank_export(lesson=lesson)
    document = yaml.safe_load(exported)
    assert document["pools"] == [
        {
            "slug": "warm-up-pool",
            "title": "Warm-up questions",
            "questions": sorted(q["slug"] for q in shipped_document()["questions"][:3]),
            "problems": [shipped_document()["problems"][0]["slug"]],
        }
    ]
    assert document["quizzes"][0]["items"][-2:] == [{"pool": "warm-up-pool", "points": 2}] * 2
    path = tmp_path / "exported.yaml"
    path.write_text(exported, encoding="utf-8")
    before = snapshot()
    bank_import(paths=[path])
    assert bank_export(lesson=lesson) == exported
    assert Pool.objects.count() == 1
    assert [len(rows) for rows in before.values()] == [len(rows) for rows in snapshot().values()]


def test_changing_a_pools_members_in_the_file_changes_them_in_the_database(tmp_path):
    document = with_pool(shipped_document(), draws=1)
    bank_import(paths=[write_bank(tmp_path, document)])
    document["pools"][0]["questions"] = document["pools"][0]["questions"][:1]
    document["pools"][0]["problems"] = []
    bank_import(paths=[write_bank(tmp_path, document)])
    pool = Pool.objects.get(slug="warm-up-pool")
    assert list(pool.questions.values_list("slug", flat=True)) == [
        shipped_document()["questions"][0]["slug"]
    ]
    assert not pool.problems.exists()


def _refused(tmp_path, document: dict) -> list[str]:
    before = snapshot()
    with pytest.raises(BankError) as caught:
        bank_import(paths=[write_bank(tmp_path, document)])
    assert snapshot() == before
    return [str(issue) for issue in caught.value.issues]


@pytest.mark.parametrize(
    ("breaker", "where", "message"),
    [
        (
            lambda d: d["pools"][0]["questions"].append("no-such-question"),
            "pools[1] (warm-up-pool).questions",
            "no question 'no-such-question' in this bank",
        ),
        (
            lambda d: d["pools"][0].update(questions=[], problems=[]),
            "pools[1] (warm-up-pool)",
            "a pool needs at least one question or problem",
        ),
        (
            lambda d: d["pools"][0].update(questions="q-one"),
            "pools[1] (warm-up-pool).questions",
            "must be a list of question slugs",
        ),
        (
            lambda d: d["quizzes"][0]["items"].append({"pool": "no-such-pool"}),
            "› item ",
            "no pool 'no-such-pool' in this bank",
        ),
        (
            lambda d: d["quizzes"][0]["items"].append(
                {"pool": "warm-up-pool", "question": d["questions"][0]["slug"]}
            ),
            "› item ",
            "an item names exactly one of question, problem or pool",
        ),
        (
            lambda d: d["quizzes"][0]["items"].extend([{"pool": "warm-up-pool"}] * 3),
            ".items",
            "draw from pool 'warm-up-pool', which has 4 members",
        ),
    ],
    ids=["unknown-member", "empty", "not-a-list", "unknown-pool", "two-targets", "too-many-draws"],
)
def test_a_bad_pool_is_refused_whole_with_its_place(tmp_path, breaker, where, message):
    bank_import(paths=[write_bank(tmp_path, shipped_document(), "shipped.yaml")])
    document = with_pool(shipped_document())
    breaker(document)
    messages = _refused(tmp_path, document)
    assert any(where in m and message in m for m in messages), messages
    assert not Pool.objects.exists()


def lesson_to_move(tmp_path) -> tuple[Lesson, Lesson, dict]:
    """The shipped bank's lesson as imported, another lesson of its course, and the bank moving
    the lesson to a new course."""
    bank_import(paths=[write_bank(tmp_path, shipped_document(), "shipped.yaml")])
    lesson = Lesson.objects.select_related("course").get(slug=shipped_document()["lesson"]["slug"])
    other_lesson = LessonFactory(
        course=lesson.course, title="Another lesson", order=lesson.order + 1
    )
    document = shipped_document()
    document["course"] = {"slug": "new-course", "title": "New course"}
    return lesson, other_lesson, document


def moves_without(tmp_path, document: dict, lesson: Lesson, spanning: QuerySet) -> None:
    """The refused move changed nothing; without the rows `spanning` both courses, it is made."""
    assert Lesson.objects.get(pk=lesson.pk).course_id == lesson.course_id
    assert not Course.objects.filter(slug="new-course").exists()
    spanning.delete()
    bank_import(paths=[write_bank(tmp_path, document)])
    assert Lesson.objects.get(pk=lesson.pk).course.slug == "new-course"


def test_moving_the_lesson_to_another_course_is_refused_where_it_would_split_a_pool(tmp_path):
    """A bank whose lesson moves to another course would leave the old course's pools holding
    its questions, and its own pools holding the old course's: refused, located, with nothing
    written (the check runs on what the import wrote, inside its transaction)."""
    lesson, other_lesson, document = lesson_to_move(tmp_path)
    course = lesson.course
    moved = shipped_document()["questions"][1]["slug"]
    theirs = PoolFactory(lesson=other_lesson, slug="their-pool")
    theirs.questions.add(Question.objects.get(slug=moved))
    ours = PoolFactory(lesson=lesson, slug="lesson-pool")
    ours.questions.add(QuestionFactory(lesson=other_lesson, slug="their-question"))
    rule = "may hold only questions and problems of lessons in its own course"
    assert _refused(tmp_path, document) == [
        f"broken.yaml › course: question 'their-question' cannot be in pool 'lesson-pool': "
        f"its lesson “Another lesson” is in the course “{course.title}”, and a pool of the "
        f"course “New course” {rule}",
        f"broken.yaml › questions[2] ({moved}): question {moved!r} cannot be in pool "
        f"'their-pool': its lesson “{lesson.title}” is in the course “New course”, and a pool "
        f"of the course “{course.title}” {rule}",
    ]
    assert list(theirs.questions.values_list("slug", flat=True)) == [moved]
    assert list(ours.questions.values_list("slug", flat=True)) == ["their-question"]
    moves_without(tmp_path, document, lesson, Pool.objects.filter(pk__in=[theirs.pk, ours.pk]))


def test_moving_the_lesson_to_another_course_is_refused_where_a_quiz_would_draw_across(tmp_path):
    """A bank whose lesson moves to another course would leave its quizzes drawing from its old
    course's pools, and the old course's quizzes drawing from its pools: refused, located, with
    nothing written."""
    lesson, other_lesson, document = lesson_to_move(tmp_path)
    course = lesson.course
    theirs = PoolFactory(lesson=other_lesson, slug="their-pool")
    ours = PoolFactory(lesson=lesson, slug="lesson-pool")
    # Quizzes made in the admin, not listed in the bank, each drawing from the other's pool.
    our_quiz = QuizFactory(lesson=lesson, slug="admin-quiz", published=False)
    QuizItemFactory(quiz=our_quiz, question=None, pool=theirs)
    their_quiz = QuizFactory(lesson=other_lesson, slug="their-quiz", published=False)
    QuizItemFactory(quiz=their_quiz, question=QuestionFactory(lesson=other_lesson), order=0)
    QuizItemFactory(quiz=their_quiz, question=None, pool=ours, order=1)
    rule = "may draw only from pools of lessons in its own course"
    assert _refused(tmp_path, document) == [
        f"broken.yaml › course: item 1 of quiz 'admin-quiz' draws from pool 'their-pool': its "
        f"lesson “Another lesson” is in the course “{course.title}”, and a quiz of the course "
        f"“New course” {rule}",
        f"broken.yaml › course: item 2 of quiz 'their-quiz' draws from pool 'lesson-pool': its "
        f"lesson “{lesson.title}” is in the course “New course”, and a quiz of the course "
        f"“{course.title}” {rule}",
    ]
    assert QuizItem.objects.filter(pool__in=[theirs, ours]).count() == 2
    moves_without(tmp_path, document, lesson, QuizItem.objects.filter(pool__in=[theirs, ours]))


def test_a_bank_quiz_cannot_name_a_pool_of_another_lesson(tmp_path):
    """A bank's items name only the bank's own pools (one lesson, one course): another
    course's pool, named by its slug, is not found."""
    PoolFactory(slug="their-pool", lesson=LessonFactory(title="Elsewhere"))
    document = shipped_document()
    document["quizzes"][0]["items"].append({"pool": "their-pool"})
    messages = _refused(tmp_path, document)
    assert any("› item " in m and "no pool 'their-pool' in this bank" in m for m in messages)
    assert not QuizItem.objects.filter(pool__slug="their-pool").exists()
