"""A regrade with the instructor's fix given to it (grading/regrade_fixes.py): tried in memory for
the preview, saved only when applied, refused when it breaks the item's rules or reaches another
course's quiz (by an item of its own, or drawn from a pool); and a digest that makes apply
refuse anything but the regrade previewed.

The numbers are those of tests/grading/test_regrades.py (exam_records: a 2-point question keyed
A, a 3-point problem): Ann 5, Ben 0, Cal 0, Dee 3 (in progress).
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from courses.models import Choice, Pool, Problem, Question, Quiz
from grading.models import Attempt, Regrade, Variant
from grading.regrade_fixes import ChoiceFix, FixRefused, QuestionFix, ToleranceFix
from grading.regrades import RegradeStale, quiz_item_regrade
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.responses import response_submit
from tests.factories import (
    ChoiceFactory,
    MisconceptionFactory,
    PoolFactory,
    QuestionFactory,
    QuizFactory,
    QuizItemFactory,
    UserFactory,
)
from tests.grading.exam_records import cohort_sits, exam_build, instructor_of, sit
from tests.grading.test_regrades import by_learner, snapshot

pytestmark = pytest.mark.django_db


@pytest.fixture
def cohort():
    exam = exam_build()
    return exam, cohort_sits(exam)


@pytest.fixture
def instructor(cohort):
    return instructor_of(cohort[0])


def b_instead_of_a(exam) -> QuestionFix:
    mistaken = exam.choices["B"].misconception
    return QuestionFix(
        choices=(
            ChoiceFix(exam.choices["A"].pk, is_correct=False, misconception_id=mistaken.pk),
            ChoiceFix(exam.choices["B"].pk, is_correct=True),
            ChoiceFix(exam.choices["C"].pk, is_correct=False, misconception_id=mistaken.pk),
        )
    )


def keyed(exam) -> list[tuple[str, bool, int | None]]:
    return [
        (c.text, c.is_correct, c.misconception_id)
        for c in Choice.objects.filter(question=exam.question_item.question).order_by("order")
    ]


def test_a_fix_is_previewed_in_memory_and_saved_only_when_applied(cohort, instructor):
    exam, _attempts = cohort
    before, key = snapshot(), keyed(exam)
    preview = quiz_item_regrade(
        item=exam.question_item, by=instructor, apply=False, fix=b_instead_of_a(exam)
    )
    assert (snapshot(), keyed(exam)) == (before, key)
    # The same numbers as the fix made in the admin first (test_regrades).
    assert by_learner(preview) == {
        "ann": ("submitted", 2.0, 0.0, 5.0, 3.0),
        "ben": ("submitted", 0.0, 2.0, 0.0, 2.0),
        "dee": ("in_progress", 0.0, 2.0, 3.0, 5.0),
    }
    code = exam.choices["B"].misconception.code
    assert preview.fix == [
        {
            "choice": exam.choices["A"].pk,
            "text": "A",
            "is_correct": [True, False],
            "misconception": [None, code],
        },
        {
            "choice": exam.choices["B"].pk,
            "text": "B",
            "is_correct": [False, True],
            "misconception": [code, None],
        },
    ]

    result = quiz_item_regrade(
        item=exam.question_item,
        by=instructor,
        apply=True,
        fix=b_instead_of_a(exam),
        expected_digest=preview.digest,
    )
    mistaken = exam.choices["B"].misconception.pk
    assert keyed(exam) == [("A", False, mistaken), ("B", True, None), ("C", False, mistaken)]
    assert result.regrade.fix == preview.fix
    assert by_learner(result) == by_learner(preview)
    # The fix is in place: the item as it stands has nothing left to regrade.
    assert quiz_item_regrade(item=exam.question_item, by=instructor, apply=False).attempts == []


def test_a_tolerance_fix_and_back_to_the_family_default(cohort, instructor):
    exam, _attempts = cohort
    wider = quiz_item_regrade(
        item=exam.problem_item, by=instructor, apply=True, fix=ToleranceFix(0.0, 0.1)
    )
    assert [a.learner for a in wider.gainers] == ["ben", "cal"]
    assert Problem.objects.filter(pk=exam.problem.pk).values_list("atol", "rtol").get() == (
        0.0,
        0.1,
    )
    back = quiz_item_regrade(
        item=exam.problem_item, by=instructor, apply=True, fix=ToleranceFix(None, None)
    )
    # The family's default (1 %): Ben and Cal lose the 3 points again.
    assert [a.learner for a in back.losers] == ["ben", "cal"]
    assert back.regrade.fix == [{"atol": [0.0, None], "rtol": [0.1, None]}]
    assert (back.regrade.atol, back.regrade.rtol) == (0.0, 0.01)
    assert set(
        Variant.objects.filter(quiz_item=exam.problem_item).values_list("rtol", flat=True)
    ) == {0.01}
    assert Problem.objects.filter(pk=exam.problem.pk).values_list("atol", "rtol").get() == (
        None,
        None,
    )


def test_the_digest_is_the_preview_s_and_a_stale_one_is_refused_writing_nothing(
    cohort, instructor, hook_calls, django_capture_on_commit_callbacks
):
    exam, attempts = cohort
    fix = b_instead_of_a(exam)
    first = quiz_item_regrade(item=exam.question_item, by=instructor, apply=False, fix=fix)
    again = quiz_item_regrade(item=exam.question_item, by=instructor, apply=False, fix=fix)
    assert first.digest == again.digest
    other = quiz_item_regrade(item=exam.question_item, by=instructor, apply=False)
    assert other.digest != first.digest  # no fix: nothing to regrade
    # Dee, still in progress, picks C now: the regrade would no longer be the one previewed.
    response_submit(
        attempt=attempts["dee"], item=exam.question_item, choice_ids=[exam.choices["C"].pk]
    )
    before, key = snapshot(), keyed(exam)
    hook_calls.clear()
    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(RegradeStale, match="changed since this preview"),
    ):
        quiz_item_regrade(
            item=exam.question_item,
            by=instructor,
            apply=True,
            fix=fix,
            expected_digest=first.digest,
        )
    assert (snapshot(), keyed(exam)) == (before, key)
    assert hook_calls == []
    fresh = quiz_item_regrade(item=exam.question_item, by=instructor, apply=False, fix=fix)
    # Her B still gets the new verdict, but her C counts now, wrong either way: 3 → 3.
    dee = next(a for a in fresh.attempts if a.learner == "dee")
    assert (dee.old_item_score, dee.new_item_score, dee.old_score, dee.new_score) == (0, 0, 3, 3)
    quiz_item_regrade(
        item=exam.question_item,
        by=instructor,
        apply=True,
        fix=fix,
        expected_digest=fresh.digest,
    )
    assert Regrade.objects.count() == 1


def test_an_admin_edit_between_preview_and_apply_makes_the_preview_stale(cohort, instructor):
    exam, _attempts = cohort
    fix = b_instead_of_a(exam)
    preview = quiz_item_regrade(item=exam.question_item, by=instructor, apply=False, fix=fix)
    Choice.objects.filter(pk=exam.choices["B"].pk).update(feedback="Right: the sum of d terms.")
    with pytest.raises(RegradeStale):
        quiz_item_regrade(
            item=exam.question_item,
            by=instructor,
            apply=True,
            fix=fix,
            expected_digest=preview.digest,
        )
    assert not Regrade.objects.exists()


def fix_without(exam, label: str) -> QuestionFix:
    return QuestionFix(tuple(c for c in b_instead_of_a(exam).choices if c.choice_id != label))


REFUSALS = [
    ("question", lambda exam: ToleranceFix(0.0, 0.1), "This item is a question"),
    ("problem", b_instead_of_a, "This item is a problem"),
    (
        "question",
        lambda exam: QuestionFix(b_instead_of_a(exam).choices[1:]),
        "must list every choice of the question once",
    ),
    (
        "question",
        lambda exam: QuestionFix(
            tuple(ChoiceFix(c.choice_id, True) for c in b_instead_of_a(exam).choices)
        ),
        "A single question needs exactly one correct choice.",
    ),
    (
        "question",
        lambda exam: QuestionFix(
            (
                ChoiceFix(exam.choices["A"].pk, False, None),
                *b_instead_of_a(exam).choices[1:],
            )
        ),
        "“A” is wrong in this fix: name the misconception",
    ),
    (
        "question",
        lambda exam: QuestionFix(
            (
                ChoiceFix(exam.choices["A"].pk, False, MisconceptionFactory().pk),
                *b_instead_of_a(exam).choices[1:],
            )
        ),
        "“A” is wrong in this fix",  # another lesson's misconception
    ),
    ("problem", lambda exam: ToleranceFix(0.0, None), "set both atol and rtol, or neither"),
    ("problem", lambda exam: ToleranceFix(-1.0, 0.1), "That tolerance cannot be used"),
]


@pytest.mark.parametrize(("which", "make", "message"), REFUSALS)
@pytest.mark.parametrize("apply", [False, True])
def test_a_fix_that_breaks_the_rules_is_refused_and_writes_nothing(
    cohort, instructor, which, make, message, apply
):
    exam, _attempts = cohort
    item = exam.question_item if which == "question" else exam.problem_item
    before, key = snapshot(), keyed(exam)
    with pytest.raises(FixRefused, match=message):
        quiz_item_regrade(item=item, by=instructor, apply=apply, fix=make(exam))
    assert (snapshot(), keyed(exam)) == (before, key)


def test_a_multiple_choice_fix_may_key_several_choices(instructor, cohort):
    exam, _attempts = cohort
    Question.objects.filter(pk=exam.question_item.question_id).update(kind="multiple")
    mistaken = exam.choices["C"].misconception
    both = QuestionFix(
        (
            ChoiceFix(exam.choices["A"].pk, True),
            ChoiceFix(exam.choices["B"].pk, True),
            ChoiceFix(exam.choices["C"].pk, False, mistaken.pk),
        )
    )
    preview = quiz_item_regrade(item=exam.question_item, by=instructor, apply=False, fix=both)
    # Ann picked only A: no longer every right choice, she loses 2; Ben's B alone too: still 0.
    assert [a.learner for a in preview.losers] == ["ann"]
    assert preview.gainers == []


def test_a_fix_of_a_question_another_course_uses_is_refused_but_a_plain_regrade_is_not(
    cohort, instructor
):
    exam, _attempts = cohort
    elsewhere = QuizFactory(title="Another course's exam")
    QuizItemFactory(quiz=elsewhere, question=exam.question_item.question)
    with pytest.raises(FixRefused, match="also used by “Another course's exam”"):
        quiz_item_regrade(
            item=exam.question_item, by=instructor, apply=True, fix=b_instead_of_a(exam)
        )
    assert not Regrade.objects.exists()
    # Nothing changes the question: the item as it stands may be regraded.
    quiz_item_regrade(item=exam.question_item, by=instructor, apply=True)
    assert Regrade.objects.count() == 1


def another_course_draws(exam) -> tuple[Attempt, Pool]:
    """Another course's exam draws the exam's question through a pool of its own that holds it
    (stored before pools were kept to their course's questions), and its learner has answered
    it right (choice A): 1 of 1."""
    elsewhere = QuizFactory(
        title="Another course's exam",
        mode=Quiz.Mode.EXAM,
        show_feedback=Quiz.Feedback.AFTER_SUBMISSION,
    )
    pool = PoolFactory(lesson=elsewhere.lesson)
    pool.questions.add(exam.question_item.question)
    item = QuizItemFactory(quiz=elsewhere, question=None, pool=pool, points=1)
    attempt = attempt_start(user=UserFactory(), quiz=elsewhere)
    response_submit(attempt=attempt, item=item, choice_ids=[exam.choices["A"].pk])
    return attempt_submit(attempt=attempt), pool


def test_a_fix_of_a_question_another_course_draws_through_a_pool_is_refused(cohort, instructor):
    exam, _attempts = cohort
    theirs, pool = another_course_draws(exam)
    assert theirs.score == 1
    before, key = snapshot(), keyed(exam)
    with pytest.raises(FixRefused, match="also used by “Another course's exam”"):
        quiz_item_regrade(
            item=exam.question_item, by=instructor, apply=True, fix=b_instead_of_a(exam)
        )
    assert (snapshot(), keyed(exam)) == (before, key)
    # The question leaves the pool: the attempt that drew it still holds the other course's
    # score, so the fix is refused all the same.
    pool.questions.clear()
    with pytest.raises(FixRefused, match="also used by “Another course's exam”"):
        quiz_item_regrade(
            item=exam.question_item, by=instructor, apply=False, fix=b_instead_of_a(exam)
        )
    assert (snapshot(), keyed(exam)) == (before, key)
    assert Attempt.objects.get(pk=theirs.pk).score == 1


def test_a_fix_of_a_problem_another_course_can_draw_is_refused(cohort, instructor):
    exam, _attempts = cohort
    pool = PoolFactory(title="Their pool")
    pool.problems.add(exam.problem)
    QuizItemFactory(quiz=QuizFactory(title="Theirs", lesson=pool.lesson), pool=pool, question=None)
    with pytest.raises(FixRefused, match="This problem is also used by “Theirs”"):
        quiz_item_regrade(
            item=exam.problem_item, by=instructor, apply=True, fix=ToleranceFix(0.5, 0.1)
        )
    exam.problem.refresh_from_db()
    assert (exam.problem.atol, exam.problem.rtol) != (0.5, 0.1)
    assert not Regrade.objects.exists()


def test_a_preview_costs_the_same_queries_for_many_attempts(cohort, instructor):
    """The preview is a page: its queries do not grow with the number of attempts."""
    exam, _attempts = cohort

    def preview_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            preview = quiz_item_regrade(
                item=exam.question_item, by=instructor, apply=False, fix=b_instead_of_a(exam)
            )
        assert preview.attempts
        return len(queries.captured_queries)

    few = preview_queries()
    for number in range(6):
        sit(exam, UserFactory(), choice="AB"[number % 2], factor=1.0)
    assert preview_queries() == few


def test_an_unused_question_s_regrade_is_empty(instructor, cohort):
    exam, _attempts = cohort
    question = QuestionFactory(lesson=exam.quiz.lesson, kind=Question.Kind.SINGLE)
    mistaken = MisconceptionFactory(lesson=exam.quiz.lesson)
    right = ChoiceFactory(question=question, is_correct=True, misconception=None)
    wrong = ChoiceFactory(question=question, is_correct=False, misconception=mistaken)
    item = QuizItemFactory(quiz=exam.quiz, question=question, points=1)
    fix = QuestionFix((ChoiceFix(right.pk, False, mistaken.pk), ChoiceFix(wrong.pk, True, None)))
    result = quiz_item_regrade(item=item, by=instructor, apply=True, fix=fix)
    assert result.attempts == []
    assert len(result.regrade.fix) == 2  # the fix is saved and audited all the same
    assert Choice.objects.get(pk=wrong.pk).is_correct
