"""The values learners typed at a numeric item: equal values grouped whatever their spelling,
most frequent first, with counts, shares, what each was taken for (a right answer, a named
misconception, a generic slip, unexplained, unreadable) and the learners behind it; on
hand-made rows, then on the response analysis page of a formula problem whose numbers the test
chooses (tests/teaching/problem_records.py)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from teaching.models import CourseRole
from teaching.statistics.responses import (
    ResponseRow,
    TypedAnswer,
    typed_values,
    value_key,
)
from tests.factories import LessonFactory, MisconceptionFactory, UserFactory
from tests.teaching.problem_records import exam_of, formula_givens, formula_problem, sit_with


def answer(response, learner, text, parsed, status="incorrect", misconception="", diagnosis=None):
    return TypedAnswer(
        ResponseRow(response, learner, 2, status, misconception, diagnosis), text, parsed
    )


ANSWERS = [
    answer(1, 101, "16", 16.0, "correct"),
    answer(2, 102, "0.50", 0.5),
    answer(3, 103, ".5", 0.5),
    answer(4, 104, "1/2", 0.5),
    answer(5, 105, "16.0", 16.0, "correct"),
    answer(6, 106, "4", 4.0, misconception="std-for-variance"),
    answer(7, 107, " 4.00 ", 4.0, misconception="std-for-variance"),
    answer(8, 108, "4", 4.0, "correct"),  # right for 108's own numbers
    answer(9, 109, "abc", None, "invalid"),
    answer(10, 110, "-16", -16.0, diagnosis="sign-flipped"),
    answer(11, 102, "0.5", 0.5),  # 102 again, the same value
]


def test_equal_values_are_one_line_most_frequent_first():
    found = typed_values(ANSWERS)
    assert [
        (v.typed, v.spellings, v.status, v.misconception, v.diagnosis, v.tally.count) for v in found
    ] == [
        ("0.50", 4, "incorrect", "", None, 4),  # 0.50, .5, 1/2 and 0.5: the first of equals
        ("16", 2, "correct", "", None, 2),
        ("4", 2, "incorrect", "std-for-variance", None, 2),
        ("4", 1, "correct", "", None, 1),  # ties: right answers first, then as typed
        ("-16", 1, "incorrect", "", "sign-flipped", 1),
        ("abc", 1, "invalid", "", None, 1),
    ]
    half = found[0]
    assert half.tally.share == 4 / 11
    assert half.tally.learners == (102, 103, 104)
    assert half.tally.responses == (2, 3, 4, 11)
    assert [v.correct for v in found] == [False, True, False, True, False, False]


def test_the_most_frequent_spelling_represents_a_value():
    found = typed_values(
        [answer(1, 1, ".5", 0.5), answer(2, 2, "0.50", 0.5), answer(3, 3, "0.50", 0.5)]
    )
    assert [(v.typed, v.spellings, v.tally.count) for v in found] == [("0.50", 2, 3)]


def test_values_equal_to_twelve_digits_and_in_their_shape():
    row = ResponseRow(1, 1, 2, "incorrect")
    assert value_key(TypedAnswer(row, "0.1+0.2", 0.1 + 0.2)) == value_key(
        TypedAnswer(row, "0.3", 0.3)
    )
    assert value_key(TypedAnswer(row, "-0", -0.0)) == value_key(TypedAnswer(row, "0", 0.0))
    assert value_key(TypedAnswer(row, "1.0001", 1.0001)) != value_key(TypedAnswer(row, "1", 1.0))
    # A vector and a matrix keep their shape: [1, 2] is not [[1, 2]].
    assert value_key(TypedAnswer(row, "1, 2", [1.0, 2.0])) == value_key(
        TypedAnswer(row, "[1, 2.0]", [1, 2.0])
    )
    assert value_key(TypedAnswer(row, "1 2", [[1.0, 2.0]])) != value_key(
        TypedAnswer(row, "1, 2", [1.0, 2.0])
    )
    # Unreadable text is compared as typed, spacing aside.
    invalid = ResponseRow(1, 1, 2, "invalid")
    assert value_key(TypedAnswer(invalid, "a  b", None)) == value_key(
        TypedAnswer(invalid, " a b", None)
    )


def test_no_answer_no_line_and_a_status_it_does_not_know_is_refused():
    assert typed_values([]) == ()
    with pytest.raises(ValueError, match="status 'recorded'"):
        typed_values([answer(1, 1, "1", 1.0, "recorded")])


# ---------------------------------------------------------------------------------------------
# The page
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def typed(db):
    """An exam of a formula problem, Var = d_k · s² (mistake std-for-variance: √d_k · s).
    With d_k 64 and s 0.5 the answer is 16 and the mistake 4; Ivy's numbers (d_k 16) make 4
    her right answer."""
    lesson = LessonFactory()
    MisconceptionFactory(lesson=lesson, code="std-for-variance", title="Deviation for variance")
    problem = formula_problem(lesson)
    quiz, item = exam_of(problem)
    instructor = UserFactory()
    CourseRole.objects.create(
        course=lesson.course, user=instructor, role=CourseRole.Role.INSTRUCTOR
    )
    usual = formula_givens(64, 0.5)
    sittings = {
        "ann": [usual, "16"],
        "ben": [usual, "16.0"],
        "cai": [usual, "4"],
        "dan": [usual, "4.00"],
        "eve": [usual, "0.50"],
        "fay": [usual, ".5"],
        "gus": [usual, "1/2"],
        "hal": [usual, "abc", "16"],
        "ivy": [formula_givens(16, 0.5), "4"],
    }
    for name, (givens, *texts) in sittings.items():
        sit_with(quiz, item, UserFactory(username=name, first_name=name.title()), givens, *texts)
    return quiz, item, instructor


def value_rows(page: str) -> list[tuple[str, str, str, str]]:
    """The values table's rows: value, status, count and share."""
    table = re.search(r'<table class="data-table tally-table value-table".*?</table>', page, re.S)
    assert table
    return re.findall(
        r'<tr data-value="([^"]*)" data-status="(\w+)".*?<td data-count>(\d+)</td>\s*<td>(\d+)%',
        table.group(0),
        re.S,
    )


def test_the_response_analysis_lists_the_values_typed(client, typed, django_assert_max_num_queries):
    quiz, item, instructor = typed
    client.force_login(instructor)
    url = reverse("teaching:item-responses", args=[quiz.slug, item.pk])
    with django_assert_max_num_queries(15):
        response = client.get(url)
    page = response.content.decode()
    # Ten responses: 16 three times (Hal after "abc"), 0.5 three ways, 4 as a mistake twice and
    # right once (Ivy's numbers), "abc" unreadable.
    assert value_rows(page) == [
        ("16", "correct", "3", "30"),
        ("0.50", "incorrect", "3", "30"),
        ("4", "incorrect", "2", "20"),
        ("4", "correct", "1", "10"),
        ("abc", "invalid", "1", "10"),
    ]
    rows = re.findall(r'<tr data-value="[^"]*".*?</tr>', page, re.S)
    assert '<span class="badge badge-good">Correct</span>' in rows[0]
    assert "3 spellings" in rows[1]
    assert "Deviation for variance" in rows[2]
    assert "<code>std-for-variance</code>" in rows[2]
    assert "Invalid" in rows[4]
    # The learners behind a value link to their attempts.
    assert ">Cai</a>" in rows[2]
    assert ">Dan</a>" in rows[2]
    assert ">Ivy</a>" not in rows[2]


def test_a_question_has_no_values_typed(client, typed):
    from tests.factories import QuizItemFactory

    quiz, _, instructor = typed
    question_item = QuizItemFactory(quiz=quiz, points=1)
    client.force_login(instructor)
    page = client.get(reverse("teaching:item-responses", args=[quiz.slug, question_item.pk]))
    assert "Values typed" not in page.content.decode()


def test_only_the_most_frequent_values_are_listed(client, typed, monkeypatch):
    from teaching.statistics import views

    monkeypatch.setattr(views, "VALUES_SHOWN", 2)
    quiz, item, instructor = typed
    client.force_login(instructor)
    page = client.get(reverse("teaching:item-responses", args=[quiz.slug, item.pk]))
    page = page.content.decode()
    assert len(value_rows(page)) == 2
    assert "3 more values, each typed as often as the last above or less, not listed." in page
