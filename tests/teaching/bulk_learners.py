"""Many learners of a quiz written in bulk (no grading service per answer), for the tests of the
results grid's pages: each learner one submitted attempt with one answer per question item,
right for every third learner (score 2 of the exam's 2-point question)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.utils import timezone

from courses.models import Quiz
from grading.models import Attempt, Response


def learners_bulk(*, quiz: Quiz, names: list[str], lms_context=None) -> list:
    """A user named `name` (full name "<name> Learner", user name the name in lower case) per
    name with one submitted attempt; `lms_context(index)` names the LMS course of some."""
    users = get_user_model().objects.bulk_create(
        get_user_model()(username=name.lower(), first_name=name, last_name="Learner")
        for name in names
    )
    now = timezone.now()
    attempts = Attempt.objects.bulk_create(
        Attempt(
            user=user,
            quiz=quiz,
            number=1,
            status=Attempt.Status.SUBMITTED,
            submitted_at=now,
            score=2.0 if index % 3 == 0 else 0.0,
            max_score=5.0,
        )
        for index, user in enumerate(users)
    )
    items = [item for item in quiz.items.all() if item.question_id]
    Response.objects.bulk_create(
        Response(
            user_id=attempt.user_id,
            attempt=attempt,
            quiz_item=item,
            question_id=item.question_id,
            status="correct" if index % 3 == 0 else "incorrect",
            score=1.0 if index % 3 == 0 else 0.0,
        )
        for index, attempt in enumerate(attempts)
        for item in items
    )
    return users
