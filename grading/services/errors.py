"""What the quiz rules refuse: each refusal has a stable `code` for the API and a message for
people (the API maps them to its errors; pages show the message)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grading.policy import PracticeRefusal


class ServiceError(Exception):
    """A request the rules refuse; `code` is stable for the API, the message is for people."""

    code = "refused"

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


class QuizNotOpen(ServiceError):
    code = "quiz_not_open"


class AttemptLimitReached(ServiceError):
    code = "attempt_limit_reached"


class AttemptClosed(ServiceError):
    code = "attempt_closed"


class NoTriesLeft(ServiceError):
    code = "no_tries_left"


class IdempotencyConflict(ServiceError):
    code = "idempotency_conflict"


class PracticeRefused(ServiceError):
    """Practice on a problem is refused: exam-only, or used by the learner's running exam.

    The message gives the time practice resumes in the reader's zone; `refusal` (grading.policy's
    PracticeRefusal) keeps that time apart, for pages that show it as a <time>."""

    code = "practice_refused"

    def __init__(self, refusal: PracticeRefusal):
        super().__init__(str(refusal))
        self.refusal = refusal


class SolutionNotAvailable(ServiceError):
    """A practice variant's worked solution may not be shown yet (grading.policy says why)."""

    code = "solution_not_available"


class SolutionRevealed(ServiceError):
    """The learner saw this practice variant's worked solution: it takes no more answers."""

    code = "solution_revealed"
