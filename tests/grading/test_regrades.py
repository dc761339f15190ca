"""Regrading one item after the instructor fixed it: a preview that writes nothing, then apply.

The numbers (exam_records: a 2-point question, a 3-point problem) are worked out by hand in each
test's comments.
"""

from __future__ import annotations

import pytest

from grading import regrade_graders, selectors
from grading.models import Attempt, Regrade, Response, ScoreChange, Variant
from grading.overrides import ScoreChangeNotAllowed, item_score_override
from grading.regrades import quiz_item_regrade
from grading.services.closing import attempt_submit
from grading.services.verdicts import question_grade
from tests.grading.exam_records import cohort_sits, exam_build, instructor_of, sit_preview

pytestmark = pytest.mark.django_db


@pytest.fixture
def cohort():
    """tests/grading/exam_records.cohort_sits: Ann 5, Ben 0, Cal 0, Dee 3 (in progress)."""
    exam = exam_build()
    attempts = cohort_sits(exam)
    assert {name: a.score for name, a in attempts.items()} == {
        "ann": 5.0,
        "ben": 0.0,
        "cal": 0.0,
        "dee": 3.0,
    }
    return exam, attempts


@pytest.fixture
def instructor(cohort):
    return instructor_of(cohort[0])


def mark_b_right_instead_of_a(exam):
    a, b = exam.choices["A"], exam.choices["B"]
    a.is_correct, a.misconception = False, exam.choices["C"].misconception
    b.is_correct, b.misconception = True, None
    a.save()
    b.save()


def snapshot():
    """Everything a regrade may write, to prove a preview wrote none of it."""
    return (
        sorted(Response.objects.values_list("pk", "status", "score", "feedback", "misconception")),
        sorted(Attempt.objects.values_list("pk", "score", "updated_at")),
        sorted(Variant.objects.values_list("pk", "atol", "rtol")),
        ScoreChange.objects.count(),
        Regrade.objects.count(),
    )


def by_learner(result):
    return {
        a.learner: (a.status, a.old_item_score, a.new_item_score, a.old_score, a.new_score)
        for a in result.attempts
    }


def test_a_preview_of_a_fixed_choice_says_who_gains_and_loses_and_writes_nothing(
    cohort, instructor, hook_calls, django_capture_on_commit_callbacks
):
    exam, _attempts = cohort
    mark_b_right_instead_of_a(exam)
    hook_calls.clear()
    before = snapshot()
    with django_capture_on_commit_callbacks(execute=True):
        preview = quiz_item_regrade(item=exam.question_item, by=instructor, apply=False)
    assert snapshot() == before
    assert hook_calls == []
    assert not preview.applied
    assert preview.regrade is None
    # Ann loses the question's 2 points (5 → 3); Ben gains them (0 → 2); Dee, in progress,
    # too (3 → 5). Cal picked C, still wrong with the same feedback: not listed.
    assert by_learner(preview) == {
        "ann": ("submitted", 2.0, 0.0, 5.0, 3.0),
        "ben": ("submitted", 0.0, 2.0, 0.0, 2.0),
        "dee": ("in_progress", 0.0, 2.0, 3.0, 5.0),
    }
    assert sorted(a.learner for a in preview.gainers) == ["ben", "dee"]
    assert [a.learner for a in preview.losers] == ["ann"]
    assert preview.responses_changed == 3


def test_applying_a_choice_fix_regrades_rescores_audits_and_tells_the_lms(
    cohort, instructor, hook_calls, django_capture_on_commit_callbacks
):
    exam, attempts = cohort
    mark_b_right_instead_of_a(exam)
    picked_before = sorted(Response.choices.through.objects.values_list("response_id", "choice_id"))
    hook_calls.clear()
    with django_capture_on_commit_callbacks(execute=True):
        result = quiz_item_regrade(item=exam.question_item, by=instructor, apply=True)
    assert result.applied
    scores = {name: Attempt.objects.get(pk=a.pk).score for name, a in attempts.items()}
    assert scores == {"ann": 3.0, "ben": 2.0, "cal": 0.0, "dee": 5.0}
    # The recorded answers are the same; their verdicts follow the fixed question.
    assert (
        sorted(Response.choices.through.objects.values_list("response_id", "choice_id"))
        == picked_before
    )
    ben_answer = Response.objects.get(attempt=attempts["ben"], quiz_item=exam.question_item)
    assert (ben_answer.status, ben_answer.score) == ("correct", 1.0)
    ann_answer = Response.objects.get(attempt=attempts["ann"], quiz_item=exam.question_item)
    assert (ann_answer.status, ann_answer.score) == ("incorrect", 0.0)
    # Audit: one Regrade, one ScoreChange per attempt that changed, with the old verdicts.
    regrade = Regrade.objects.get()
    assert result.regrade == regrade
    assert (regrade.responses_changed, regrade.attempts_changed) == (3, 3)
    assert (regrade.by, regrade.atol, regrade.rtol) == (instructor, None, None)
    changes = {c.learner.username: c for c in ScoreChange.objects.filter(regrade=regrade)}
    assert sorted(changes) == ["ann", "ben", "dee"]
    ben_change = changes["ben"]
    assert ben_change.kind == ScoreChange.Kind.REGRADE
    assert (ben_change.old_score, ben_change.new_score) == (0.0, 2.0)
    assert (ben_change.old_attempt_score, ben_change.new_attempt_score) == (0.0, 2.0)
    (entry,) = ben_change.responses
    assert entry["response"] == ben_answer.pk
    assert (entry["old"]["status"], entry["new"]["status"]) == ("incorrect", "correct")
    assert ben_change.by_username == instructor.username
    # The LMS hears of the two submitted attempts that moved; Dee has not submitted yet.
    assert sorted(hook_calls) == sorted([attempts["ann"].pk, attempts["ben"].pk])
    # Dee's running total is what her submission then gives.
    attempt_submit(attempt=attempts["dee"])
    assert Attempt.objects.get(pk=attempts["dee"].pk).score == 5.0
    # Ben's results page shows the new verdict and the item's score.
    sheet = selectors.attempt_sheet(attempt=Attempt.objects.get(pk=attempts["ben"].pk))
    # The exam shuffles its items, so rows are matched by item, not by position.
    assert {row.item.pk: (row.latest_counted.status, row.score) for row in sheet} == {
        exam.question_item.pk: ("correct", 1.0),
        exam.problem_item.pk: ("incorrect", 0.0),
    }


def test_a_wider_tolerance_regrades_the_stored_givens(
    cohort, instructor, hook_calls, django_capture_on_commit_callbacks
):
    exam, attempts = cohort
    exam.problem.atol, exam.problem.rtol = 0.0, 0.1
    exam.problem.save()
    preview = quiz_item_regrade(item=exam.problem_item, by=instructor, apply=False)
    # Ben and Cal were 5 % off: right within 10 %, so each gains the problem's 3 points.
    moved = {a.learner: (a.old_score, a.new_score) for a in preview.attempts if a.change}
    assert moved == {"ben": (0.0, 3.0), "cal": (0.0, 3.0)}
    assert preview.losers == []
    assert preview.tolerance == (0.0, 0.1)
    hook_calls.clear()
    with django_capture_on_commit_callbacks(execute=True):
        quiz_item_regrade(item=exam.problem_item, by=instructor, apply=True)
    scores = {name: Attempt.objects.get(pk=a.pk).score for name, a in attempts.items()}
    assert scores == {"ann": 5.0, "ben": 3.0, "cal": 3.0, "dee": 3.0}
    assert sorted(hook_calls) == sorted([attempts["ben"].pk, attempts["cal"].pk])
    # The stored givens are the same; every variant of the item now carries the new tolerance,
    # so Dee's later answers are graded like the regraded ones.
    assert set(Variant.objects.filter(quiz_item=exam.problem_item).values_list("atol", "rtol")) == {
        (0.0, 0.1)
    }
    regrade = Regrade.objects.get()
    assert (regrade.atol, regrade.rtol) == (0.0, 0.1)


def test_an_override_still_wins_over_a_regrade_of_its_item(
    cohort, instructor, hook_calls, django_capture_on_commit_callbacks
):
    exam, attempts = cohort
    item_score_override(
        attempt=attempts["ben"],
        item=exam.question_item,
        score=1,
        reason="Half marks for B.",
        by=instructor,
    )
    mark_b_right_instead_of_a(exam)
    hook_calls.clear()
    with django_capture_on_commit_callbacks(execute=True):
        result = quiz_item_regrade(item=exam.question_item, by=instructor, apply=True)
    ben = next(a for a in result.attempts if a.learner == "ben")
    # The verdict becomes correct, but the overridden item keeps its 1 point: 1 → 1.
    assert ben.overridden
    assert (ben.old_item_score, ben.new_item_score, ben.old_score, ben.new_score) == (
        1.0,
        1.0,
        1.0,
        1.0,
    )
    assert Attempt.objects.get(pk=attempts["ben"].pk).score == 1.0
    assert attempts["ben"].pk not in hook_calls
    assert Response.objects.get(attempt=attempts["ben"], quiz_item=exam.question_item).status == (
        "correct"
    )


def test_nothing_to_regrade_is_an_empty_preview_and_an_audited_no_op(cohort, instructor):
    exam, _attempts = cohort
    assert quiz_item_regrade(item=exam.question_item, by=instructor, apply=False).attempts == []
    result = quiz_item_regrade(item=exam.question_item, by=instructor, apply=True)
    assert result.attempts == []
    assert (result.regrade.responses_changed, result.regrade.attempts_changed) == (0, 0)
    assert not ScoreChange.objects.exists()


def test_only_instructors_regrade_and_a_refusal_writes_nothing(cohort):
    exam, attempts = cohort
    mark_b_right_instead_of_a(exam)
    before = snapshot()
    for apply in (False, True):
        with pytest.raises(ScoreChangeNotAllowed, match="Only instructors"):
            quiz_item_regrade(item=exam.question_item, by=attempts["ann"].user, apply=apply)
    assert snapshot() == before


def test_a_preview_grades_each_distinct_answer_once(cohort, instructor, monkeypatch):
    """Ben and Dee both picked B: three sets of choices picked, three gradings, and both still
    get the new verdict."""
    exam, _attempts = cohort
    mark_b_right_instead_of_a(exam)
    graded = []

    def counting(*, question, choice_ids):
        graded.append(tuple(choice_ids))
        return question_grade(question=question, choice_ids=choice_ids)

    monkeypatch.setattr(regrade_graders, "question_grade", counting)
    preview = quiz_item_regrade(item=exam.question_item, by=instructor, apply=False)
    assert sorted(graded) == sorted((exam.choices[name].pk,) for name in "ABC")
    assert {a.learner: a.new_item_score for a in preview.gainers} == {"ben": 2.0, "dee": 2.0}


def test_an_instructors_preview_is_regraded_but_never_listed_counted_or_passed_back(
    cohort, instructor, hook_calls, django_capture_on_commit_callbacks
):
    exam, attempts = cohort
    # The instructor previewed the exam picking B, as Ben did: wrong before the fix, right after.
    preview_attempt = sit_preview(exam, instructor, choice="B", factor=1.05)
    mark_b_right_instead_of_a(exam)
    preview = quiz_item_regrade(item=exam.question_item, by=instructor, apply=False)
    assert [a.attempt_id for a in preview.previews] == [preview_attempt.pk]
    assert sorted(a.learner for a in preview.learners) == ["ann", "ben", "dee"]
    assert sorted(a.learner for a in preview.gainers) == ["ben", "dee"]
    assert preview.responses_changed == 3
    hook_calls.clear()
    with django_capture_on_commit_callbacks(execute=True):
        result = quiz_item_regrade(
            item=exam.question_item, by=instructor, apply=True, expected_digest=preview.digest
        )
    # The preview shows the new verdict ...
    answer = Response.objects.get(attempt=preview_attempt, quiz_item=exam.question_item)
    assert (answer.status, answer.score) == ("correct", 1.0)
    assert Attempt.objects.get(pk=preview_attempt.pk).score == 2.0
    # ... but the audit counts the learners' attempts, and the LMS hears of learners only.
    assert Regrade.objects.get().attempts_changed == 3
    assert preview_attempt.pk not in result.passed_back
    assert sorted(hook_calls) == sorted([attempts["ann"].pk, attempts["ben"].pk])
