"""What a learner may see of their quiz attempts, and when practice is refused: decided here once.

Every learner surface asks this module and nothing else: the results, history, quiz and home
pages, the API's attempt, items, answer and result responses, and the pages an LMS launch lands
a learner on (LTI sends learners to those same pages). The functions are pure: they read a quiz's
settings, an attempt's status and the time they are given, and run no query, so one table-driven
test (tests/grading/test_policy.py) covers every combination and a surface test checks that each
surface shows exactly what `learner_visibility` says.

The rules:

- **Feedback "immediately"** (practice quizzes only; an exam never gives it, even if its row were
  forced to): each item's verdict, score and feedback as soon as it is answered, and the running
  total with them, since it is only their sum.
- **Feedback "after submission"**: nothing but "recorded" while the attempt is in progress; the
  verdicts, item scores, feedback and total once it is submitted (or closed at its deadline).
- **Feedback "never"**: the learner sees no result at all, **the total score included**, on
  every surface, before and after submission. A total is a verdict in disguise: for a one-item
  quiz it is the verdict, and with more than one attempt a learner who changes one answer per
  attempt reads each item's verdict off the totals. An instructor who chooses "never" keeps the
  grading to themselves. For the same reason "never" also withholds correct answers and
  explanations whatever `release_answers` says: an answer key next to the learner's own answers
  is their verdicts.
- **Correct answers and explanations** only for a submitted attempt whose verdicts are shown:
  at once ("after submission"), from `closes_at` on ("after close"; later when an
  accommodation gives some learner a later due date: then at the latest one, for everyone, so
  the key never reaches a learner who may still answer), or never. **Worked
  solutions** of an attempt's problems follow the correct answers exactly: they hold them.
- **Practice solutions** (outside quizzes): `practice_solution_stage` says when a learner may
  reveal the worked solution of their practice variant.
- Whatever the policy, a learner always sees what they typed or picked, and the reader's message
  for input it could not read (that costs no try and says nothing about correctness).

Not learner surfaces: the API's grades endpoints and CSV (API keys only), LTI score passback and
the LTI instructor view are for instructors and the LMS, which always get scores; what an LMS
shows its learners of a passed-back score is the LMS's own setting. The instructor pages
(teaching/) show an attempt as `learner_visibility` lets its learner see it, and beside it what
`staff_visibility` adds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from django.utils.translation import gettext, ngettext

from accounts.moments import moment_text
from courses.models import Quiz

IN_PROGRESS = "in_progress"
SUBMITTED = "submitted"
# Closed when time ran out at a quiz that gives such attempts no score (Quiz.overdue_handling).
NEVER_SUBMITTED = "never_submitted"


class QuizSettings(Protocol):
    """The settings of a quiz the policy reads (a Quiz row has them)."""

    mode: str
    show_feedback: str
    release_answers: str
    closes_at: datetime | None


@dataclass(frozen=True)
class Visibility:
    """What a learner may see of one attempt now; every surface shows exactly these."""

    verdicts: bool  # correct / incorrect per item (otherwise only "recorded")
    item_scores: bool  # points earned per item
    total_score: bool  # the attempt's score
    feedback: bool  # feedback text, misconception, wrong entries
    correct_answers: bool  # a problem's answer, a question's correct choices
    explanations: bool  # a question's explanation
    # A problem's worked solution, with the attempt's numbers; it holds the answer and shows how
    # it is computed (a formula problem's formula included), so never before correct answers.
    solutions: bool
    # When correct answers will be shown, if at a known later time (after the quiz closes).
    answers_from: datetime | None = None


NOTHING = Visibility(False, False, False, False, False, False, False)
# An instructor's view of an attempt (staff_visibility).
STAFF = Visibility(True, True, True, True, True, True, True)
# Practice problems (outside quizzes) answer at once and never show the answer with a verdict: a
# learner keeps trying, asks for new numbers, or reveals the worked solution of their variant
# when practice_solution_stage allows (which ends what that variant can earn).
PRACTICE = Visibility(True, True, True, True, False, False, False)


def immediate_feedback(quiz: QuizSettings) -> bool:
    """Does each answer get its verdict at once (and count as a try)? Never in an exam."""
    return quiz.show_feedback == Quiz.Feedback.IMMEDIATELY and quiz.mode != Quiz.Mode.EXAM


def learner_visibility(
    *, quiz: QuizSettings, attempt_status: str, now: datetime, answers_release_at: datetime | None
) -> Visibility:
    """What the learner may see of an attempt at `quiz` in `attempt_status` at `now`.

    `answers_release_at` is when a quiz that releases correct answers after it closes releases
    them (grading.accommodations.answers_release_at: its close, or the latest due date an
    accommodation gives, if later); every caller passes it, so none can forget a learner who is
    still answering. Without it such a quiz releases nothing.
    """
    submitted = attempt_status == SUBMITTED
    # An attempt closed unsubmitted has no score, and nothing of one is shown: not a total, not
    # the verdicts the score would add up from, and no answers.
    if quiz.show_feedback == Quiz.Feedback.NEVER or attempt_status == NEVER_SUBMITTED:
        return NOTHING
    results = submitted or immediate_feedback(quiz)
    if not results:
        return NOTHING
    release = quiz.release_answers
    answers = False
    answers_from = None
    if submitted and release == Quiz.AnswerRelease.AFTER_SUBMISSION:
        answers = True
    elif submitted and release == Quiz.AnswerRelease.AFTER_CLOSE and answers_release_at:
        answers = now >= answers_release_at
        answers_from = None if answers else answers_release_at
    return Visibility(
        verdicts=True,
        item_scores=True,
        total_score=True,
        feedback=True,
        correct_answers=answers,
        explanations=answers,
        solutions=answers,
        answers_from=answers_from,
    )


class AttemptState(Protocol):
    quiz: QuizSettings
    status: str


def attempt_visibility(
    *, attempt: AttemptState, now: datetime, answers_release_at: datetime | None
) -> Visibility:
    """learner_visibility for an attempt row (its quiz and status)."""
    return learner_visibility(
        quiz=attempt.quiz,
        attempt_status=attempt.status,
        now=now,
        answers_release_at=answers_release_at,
    )


def staff_visibility() -> Visibility:
    """What a course's instructors and teaching assistants see of any attempt at its quizzes,
    whatever the quiz's settings, the attempt's status or the time: everything, correct answers
    and explanations included, before they are released to the learner.

    Only the instructor pages ask for it, and they reach an attempt only through
    teaching/access.py (a role in the attempt's course, or a superuser); no learner surface does.
    """
    return STAFF


def feedback_summary(quiz: QuizSettings) -> str:
    """The quiz page's words for when results are shown."""
    if immediate_feedback(quiz):
        return gettext("At once for each answer")
    if quiz.show_feedback == Quiz.Feedback.NEVER:
        return gettext("Never: neither results per item nor a score")
    return gettext("After the attempt is submitted")


def answers_summary(quiz: QuizSettings) -> str:
    """The quiz page's words for when correct answers are shown."""
    if quiz.show_feedback == Quiz.Feedback.NEVER:
        return gettext("Never")
    if quiz.release_answers == Quiz.AnswerRelease.AFTER_SUBMISSION:
        return gettext("After the attempt is submitted")
    if quiz.release_answers == Quiz.AnswerRelease.AFTER_CLOSE and quiz.closes_at is not None:
        return gettext("After the quiz closes")  # the quiz page gives the time beside it
    return gettext("Never")


# ---------------------------------------------------------------------------------------------
# Practice during an exam
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OpenExam:
    """A learner's exam attempt in progress that uses a problem: its quiz title and deadline."""

    title: str
    deadline: datetime | None


@dataclass(frozen=True)
class PracticeRefusal:
    """Why practice is refused, in words around the moment it resumes (`until`, None when no
    time is given): pages show that moment as a <time>, str() writes it in words; both in the
    reader's zone (the active one, accounts/moments.py), named."""

    before: str
    until: datetime | None = None
    after: str = ""

    def __str__(self) -> str:
        if self.until is None:
            return self.before + self.after
        return f"{self.before}{moment_text(self.until)}{self.after}"


def practice_refusal(
    *, problem_title: str, exam_only: bool, open_exams: Iterable[OpenExam], now: datetime
) -> PracticeRefusal | None:
    """Why the learner may not practise a problem now, or None.

    Practice gives fresh numbers and instant verdicts without limit, so during an exam it would
    let a learner check their method on the exam's own problems until it matched. An exam-only
    problem is never practised; a problem an exam of the learner's uses is paused while that
    attempt runs (until its deadline, or until it is submitted when it has no time limit).
    """
    if exam_only:
        return PracticeRefusal(
            gettext("“%(problem)s” is an exam-only problem: it cannot be practised.")
            % {"problem": problem_title}
        )
    running = [exam for exam in open_exams if exam.deadline is None or now < exam.deadline]
    if not running:
        return None
    words = {
        "problem": problem_title,
        "titles": _titles([exam.title for exam in running]),
        "until": _UNTIL,
    }
    if any(exam.deadline is None for exam in running):
        sentence = ngettext(
            "Practice on “%(problem)s” is paused while your exam %(titles)s is in progress, "
            "because it uses this problem: until you submit the exam.",
            "Practice on “%(problem)s” is paused while your exams %(titles)s are in progress, "
            "because they use this problem: until you submit the exams.",
            len(running),
        )
        return PracticeRefusal(sentence % words)
    sentence = ngettext(
        "Practice on “%(problem)s” is paused while your exam %(titles)s is in progress, "
        "because it uses this problem: until %(until)s (your exam's deadline), or until you "
        "submit it.",
        "Practice on “%(problem)s” is paused while your exams %(titles)s are in progress, "
        "because they use this problem: until %(until)s (the last of their deadlines), or "
        "until you submit them.",
        len(running),
    )
    before, _, after = (sentence % words).partition(_UNTIL)
    return PracticeRefusal(before, max(exam.deadline for exam in running), after)


# Where the moment goes in a refusal's sentence: translations may put it anywhere, and pages show
# it as a <time> between the words before and after it. No title or translation contains it.
_UNTIL = "\x00until\x00"


def _titles(titles: list[str]) -> str:
    """Exam titles quoted and joined: “A” and “B” and “C”."""
    quoted = [gettext("“%(title)s”") % {"title": title} for title in titles]
    joined = quoted[0]
    for title in quoted[1:]:
        joined = gettext("%(first)s and %(next)s") % {"first": joined, "next": title}
    return joined


# ---------------------------------------------------------------------------------------------
# Worked solutions in practice
# ---------------------------------------------------------------------------------------------

# A practice variant's worked solution is, in turn:
CLOSED = "closed"  # not to be had: no wrong try yet, or the variant is solved
ON_REQUEST = "on_request"  # to be had if the learner says they give up on these numbers
OFFERED = "offered"  # offered: the learner has had the problem's solution_after_tries wrong tries
REVEALED = "revealed"  # shown already; the variant takes no more answers


def practice_solution_stage(
    *, wrong_tries: int, solved: bool, revealed: bool, after_tries: int
) -> str:
    """Where a practice variant stands with its worked solution (CLOSED, ON_REQUEST, OFFERED or
    REVEALED), from its wrong (counted, incorrect) tries and the problem's solution_after_tries.

    The rule, as the practice page states it: the solution is offered after `after_tries` wrong
    tries on the same numbers; from the first wrong try a learner may give up and ask for it.
    Never before a wrong try (a solution before trying teaches less), never on numbers answered
    right (the verdict said it all). Revealing ends the streak; the variant earns nothing more.
    """
    if revealed:
        return REVEALED
    if solved or wrong_tries < 1:
        return CLOSED
    return OFFERED if wrong_tries >= after_tries else ON_REQUEST


def practice_solution_refusal(*, stage: str, give_up: bool) -> str | None:
    """Why a learner who asks (`give_up`: they said they give up) may not see the worked
    solution now, or None when they may."""
    if stage == CLOSED:
        return gettext(
            "The worked solution opens after a wrong try on these numbers, and not once you have "
            "answered them correctly."
        )
    if stage == ON_REQUEST and not give_up:
        return gettext(
            "Before the solution is offered you can still have it, but only if you confirm that "
            "you give up on these numbers."
        )
    return None
