"""grading.policy over every combination of its inputs: pure, no database.

The expected outcomes are written out as tables a reader can check against the policy's
docstring, not computed the way the module computes them.
"""

from __future__ import annotations

import itertools
from dataclasses import fields
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from courses.models import Quiz
from grading import policy

NOW = datetime(2027, 1, 20, 12, 0, tzinfo=UTC)
MODES = [Quiz.Mode.PRACTICE, Quiz.Mode.EXAM]
FEEDBACK = [Quiz.Feedback.IMMEDIATELY, Quiz.Feedback.AFTER_SUBMISSION, Quiz.Feedback.NEVER]
RELEASE = [
    Quiz.AnswerRelease.AFTER_SUBMISSION,
    Quiz.AnswerRelease.AFTER_CLOSE,
    Quiz.AnswerRelease.NEVER,
]
STATUSES = [policy.IN_PROGRESS, policy.SUBMITTED]
# The quiz has no close time, closes after now, or closed before now.
CLOSES = {
    "no close": None,
    "before close": NOW + timedelta(hours=1),
    "after close": NOW - timedelta(hours=1),
}

# (mode, show_feedback) -> are results (verdicts, item scores, total, feedback) shown
# (in progress, submitted)?
RESULTS = {
    (Quiz.Mode.PRACTICE, Quiz.Feedback.IMMEDIATELY): (True, True),
    (Quiz.Mode.PRACTICE, Quiz.Feedback.AFTER_SUBMISSION): (False, True),
    (Quiz.Mode.PRACTICE, Quiz.Feedback.NEVER): (False, False),
    # The database refuses this row; if one were built anyway, an exam still waits.
    (Quiz.Mode.EXAM, Quiz.Feedback.IMMEDIATELY): (False, True),
    (Quiz.Mode.EXAM, Quiz.Feedback.AFTER_SUBMISSION): (False, True),
    (Quiz.Mode.EXAM, Quiz.Feedback.NEVER): (False, False),
}
# (release_answers, close) -> are correct answers shown for a submitted attempt whose results
# are shown? After close without a close time can never release.
ANSWERS = {
    (Quiz.AnswerRelease.AFTER_SUBMISSION, "no close"): True,
    (Quiz.AnswerRelease.AFTER_SUBMISSION, "before close"): True,
    (Quiz.AnswerRelease.AFTER_SUBMISSION, "after close"): True,
    (Quiz.AnswerRelease.AFTER_CLOSE, "no close"): False,
    (Quiz.AnswerRelease.AFTER_CLOSE, "before close"): False,
    (Quiz.AnswerRelease.AFTER_CLOSE, "after close"): True,
    (Quiz.AnswerRelease.NEVER, "no close"): False,
    (Quiz.AnswerRelease.NEVER, "before close"): False,
    (Quiz.AnswerRelease.NEVER, "after close"): False,
}

COMBINATIONS = list(itertools.product(MODES, FEEDBACK, RELEASE, STATUSES, CLOSES))


def quiz_settings(mode, feedback, release, closes_at):
    """Only the settings: the policy must read nothing else (no row, no query)."""
    return SimpleNamespace(
        mode=mode, show_feedback=feedback, release_answers=release, closes_at=closes_at
    )


@pytest.mark.parametrize(("mode", "feedback", "release", "status", "close"), COMBINATIONS)
def test_every_combination(mode, feedback, release, status, close):
    quiz = quiz_settings(mode, feedback, release, CLOSES[close])
    shown = policy.learner_visibility(
        quiz=quiz, attempt_status=status, now=NOW, answers_release_at=quiz.closes_at
    )
    in_progress, submitted = RESULTS[(mode, feedback)]
    results = submitted if status == policy.SUBMITTED else in_progress
    answers = status == policy.SUBMITTED and results and ANSWERS[(release, close)]
    assert shown.verdicts is results
    assert shown.item_scores is results
    assert shown.total_score is results
    assert shown.feedback is results
    assert shown.correct_answers is answers
    assert shown.explanations is answers
    # A worked solution holds the answer: it shows exactly when correct answers do.
    assert shown.solutions is answers
    waits_for_close = (
        status == policy.SUBMITTED
        and results
        and release == Quiz.AnswerRelease.AFTER_CLOSE
        and close == "before close"
    )
    assert shown.answers_from == (CLOSES[close] if waits_for_close else None)
    # The same answer through an attempt row's quiz and status.
    attempt = SimpleNamespace(quiz=quiz, status=status)
    assert (
        policy.attempt_visibility(attempt=attempt, now=NOW, answers_release_at=quiz.closes_at)
        == shown
    )


def test_the_tables_cover_every_setting():
    assert set(RESULTS) == set(itertools.product(MODES, FEEDBACK))
    assert set(ANSWERS) == set(itertools.product(RELEASE, CLOSES))
    assert len(COMBINATIONS) == 2 * 3 * 3 * 2 * 3


def test_feedback_never_hides_the_total_score_before_and_after_submission_and_close():
    for mode, release, status, close in itertools.product(MODES, RELEASE, STATUSES, CLOSES):
        quiz = quiz_settings(mode, Quiz.Feedback.NEVER, release, CLOSES[close])
        shown = policy.learner_visibility(
            quiz=quiz, attempt_status=status, now=NOW, answers_release_at=quiz.closes_at
        )
        assert shown == policy.NOTHING
        assert not any(getattr(shown, f.name) for f in fields(shown))


def test_answers_after_close_appear_at_the_close_itself():
    quiz = quiz_settings(
        Quiz.Mode.EXAM, Quiz.Feedback.AFTER_SUBMISSION, Quiz.AnswerRelease.AFTER_CLOSE, NOW
    )
    just_before = policy.learner_visibility(
        quiz=quiz,
        attempt_status=policy.SUBMITTED,
        now=NOW - timedelta(microseconds=1),
        answers_release_at=NOW,
    )
    at_close = policy.learner_visibility(
        quiz=quiz, attempt_status=policy.SUBMITTED, now=NOW, answers_release_at=NOW
    )
    assert (just_before.correct_answers, just_before.answers_from) == (False, NOW)
    assert (at_close.correct_answers, at_close.answers_from) == (True, None)


def test_the_staff_view_shows_everything_a_learner_may_ever_see_and_more():
    """Instructors see every attempt whole, at every setting, status and time; for each
    combination that is at least what the learner sees."""
    staff = policy.staff_visibility()
    assert all(getattr(staff, f.name) for f in fields(staff) if f.name != "answers_from")
    assert staff.answers_from is None
    for mode, feedback, release, status, close in COMBINATIONS:
        quiz = quiz_settings(mode, feedback, release, CLOSES[close])
        learner = policy.learner_visibility(
            quiz=quiz, attempt_status=status, now=NOW, answers_release_at=quiz.closes_at
        )
        for f in fields(learner):
            if f.name != "answers_from":
                assert getattr(staff, f.name) >= getattr(learner, f.name)


@pytest.mark.parametrize(
    ("mode", "feedback", "immediate"),
    [
        (Quiz.Mode.PRACTICE, Quiz.Feedback.IMMEDIATELY, True),
        (Quiz.Mode.PRACTICE, Quiz.Feedback.AFTER_SUBMISSION, False),
        (Quiz.Mode.PRACTICE, Quiz.Feedback.NEVER, False),
        (Quiz.Mode.EXAM, Quiz.Feedback.IMMEDIATELY, False),
        (Quiz.Mode.EXAM, Quiz.Feedback.AFTER_SUBMISSION, False),
        (Quiz.Mode.EXAM, Quiz.Feedback.NEVER, False),
    ],
)
def test_immediate_feedback(mode, feedback, immediate):
    quiz = quiz_settings(mode, feedback, Quiz.AnswerRelease.NEVER, None)
    assert policy.immediate_feedback(quiz) is immediate


@pytest.mark.parametrize(
    ("feedback", "release", "closes_at", "feedback_words", "answers_words"),
    [
        ("immediately", "after_submission", None, "At once for each answer", "After the attempt"),
        ("after_submission", "after_close", NOW, "After the attempt", "After the quiz closes"),
        ("after_submission", "never", None, "After the attempt", "Never"),
        # "never" withholds answers whatever release says: the quiz page must not promise them.
        ("never", "after_submission", None, "neither results per item nor a score", "Never"),
    ],
)
def test_the_quiz_page_words_follow_the_policy(
    feedback, release, closes_at, feedback_words, answers_words
):
    quiz = quiz_settings(Quiz.Mode.PRACTICE, feedback, release, closes_at)
    assert feedback_words in policy.feedback_summary(quiz)
    assert answers_words in policy.answers_summary(quiz)


# --- practice during an exam ------------------------------------------------------------------


def test_practice_is_free_without_a_running_exam():
    assert (
        policy.practice_refusal(problem_title="P", exam_only=False, open_exams=[], now=NOW) is None
    )
    ended = policy.OpenExam(title="Exam", deadline=NOW)
    assert (
        policy.practice_refusal(problem_title="P", exam_only=False, open_exams=[ended], now=NOW)
        is None
    )


def test_an_exam_only_problem_is_always_refused():
    message = str(
        policy.practice_refusal(problem_title="Variance", exam_only=True, open_exams=[], now=NOW)
    )
    assert message == "“Variance” is an exam-only problem: it cannot be practised."


def test_a_running_exam_pauses_practice_until_its_deadline():
    exam = policy.OpenExam(title="Final", deadline=NOW + timedelta(minutes=20))
    refusal = policy.practice_refusal(
        problem_title="Variance", exam_only=False, open_exams=[exam], now=NOW
    )
    # Pages show the deadline in the learner's zone: it is kept apart from the words.
    assert refusal.until == NOW + timedelta(minutes=20)
    assert refusal.before.endswith("because it uses this problem: until ")
    assert refusal.after == " (your exam's deadline), or until you submit it."
    message = str(refusal)
    assert message == (
        "Practice on “Variance” is paused while your exam “Final” is in progress, because it "
        "uses this problem: until 20 Jan 2027, 12:20 UTC (your exam's deadline), or until you "
        "submit it."
    )
    # In the zone of whoever reads it, named.
    with timezone.override(ZoneInfo("America/New_York")):
        assert "until 20 Jan 2027, 07:20 EST (your exam's deadline)" in str(refusal)


def test_an_exam_without_time_limit_pauses_practice_until_submitted():
    exam = policy.OpenExam(title="Final", deadline=None)
    refusal = policy.practice_refusal(
        problem_title="Variance", exam_only=False, open_exams=[exam], now=NOW
    )
    assert refusal.until is None
    assert str(refusal).endswith("because it uses this problem: until you submit the exam.")


def test_two_running_exams_pause_practice_until_the_later_deadline():
    exams = [
        policy.OpenExam(title="A", deadline=NOW + timedelta(minutes=5)),
        policy.OpenExam(title="B", deadline=NOW + timedelta(minutes=50)),
        policy.OpenExam(title="Over", deadline=NOW - timedelta(minutes=1)),
    ]
    message = str(
        policy.practice_refusal(
            problem_title="Variance", exam_only=False, open_exams=exams, now=NOW
        )
    )
    assert "your exams “A” and “B” are in progress" in message
    assert "until 20 Jan 2027, 12:50 UTC (the last of their deadlines)" in message
    assert "Over" not in message


# (wrong tries, solved, revealed) with solution_after_tries = 3 -> the variant's solution stage.
PRACTICE_STAGES = {
    (0, False, False): policy.CLOSED,
    (1, False, False): policy.ON_REQUEST,
    (2, False, False): policy.ON_REQUEST,
    (3, False, False): policy.OFFERED,
    (7, False, False): policy.OFFERED,
    (0, True, False): policy.CLOSED,  # right at the first try
    (4, True, False): policy.CLOSED,  # right in the end
    (1, False, True): policy.REVEALED,
    (3, False, True): policy.REVEALED,
}


@pytest.mark.parametrize(("wrong", "solved", "revealed"), sorted(PRACTICE_STAGES))
def test_practice_solution_stage(wrong, solved, revealed):
    stage = policy.practice_solution_stage(
        wrong_tries=wrong, solved=solved, revealed=revealed, after_tries=3
    )
    assert stage == PRACTICE_STAGES[(wrong, solved, revealed)]


def test_a_problem_offering_its_solution_after_one_try_needs_no_give_up():
    stage = policy.practice_solution_stage(
        wrong_tries=1, solved=False, revealed=False, after_tries=1
    )
    assert stage == policy.OFFERED
    assert policy.practice_solution_refusal(stage=stage, give_up=False) is None


# (stage, give_up) -> may the learner see the solution now?
PRACTICE_REVEALS = {
    (policy.CLOSED, False): False,
    (policy.CLOSED, True): False,
    (policy.ON_REQUEST, False): False,
    (policy.ON_REQUEST, True): True,
    (policy.OFFERED, False): True,
    (policy.OFFERED, True): True,
    (policy.REVEALED, False): True,
}


@pytest.mark.parametrize(("stage", "give_up"), sorted(PRACTICE_REVEALS))
def test_practice_solution_refusal(stage, give_up):
    refusal = policy.practice_solution_refusal(stage=stage, give_up=give_up)
    if PRACTICE_REVEALS[(stage, give_up)]:
        assert refusal is None
    else:
        assert refusal
        assert refusal.endswith(".")
