"""The exam-day bench's database side: the exam it makes and the check of what is stored.

Run in a Django child process (production settings, the bench database) by bench/exam_run.py:
`python bench/exam_database.py prepare|open|verify`, the stage's arguments as JSON on stdin, its
result as JSON on the last line of stdout.

- `prepare`: migrate, collect static files, import the shipped bank, then make the exam (16 items:
  the lesson's first one-number problems by slug, then questions), N learners with sessions made
  beforehand (not through the sign-in form), and learners with a password for the sign-in phase.
- `open`: the exam opens at the given instant (set once the servers run, before anyone arrives).
- `verify`: every save and submit the learners acknowledged is in the database, once, as sent.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

EXAM_SLUG = "bench-exam-day"
ITEMS = 16
LEARNER_PREFIX = "bench-learner-"
SIGNIN_PREFIX = "bench-signin-"
SIGNIN_PASSWORD = "exam-day-bench-password-1"


def prepare(**exam) -> dict:
    """Migrate, collect static files (production pages link them through collectstatic's
    manifest), import the shipped bank, then make the exam and its learners."""
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    call_command("import_bank", verbosity=0)
    return exam_make(**exam)


def exam_make(*, learners: int, signins: int, signin_hasher: str, minutes: int) -> dict:
    """The bench exam (16 items of the shipped lesson), `learners` learners with sessions made
    beforehand, and `signins` learners with a password for the sign-in phase."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.test import Client

    from courses.models import Problem, Question, Quiz, QuizItem
    from grading import engine

    lesson = Quiz.objects.get(slug="attention-exam").lesson
    # One-number problems only, so each save's answers are valid numbers the bench can write.
    problems = [
        problem
        for problem in Problem.objects.filter(lesson=lesson).order_by("slug")
        if engine.make_variant(engine.get_family(problem.family), problem.params, 1).answer.size
        == 1
    ][: ITEMS // 2]
    questions = list(
        Question.objects.filter(lesson=lesson).order_by("slug")[: ITEMS - len(problems)]
    )
    quiz = Quiz.objects.create(
        lesson=lesson,
        slug=EXAM_SLUG,
        title="Exam day",
        mode=Quiz.Mode.EXAM,
        time_limit_minutes=minutes,
        attempts_allowed=1,
        tries_per_item=1,
        show_feedback=Quiz.Feedback.AFTER_SUBMISSION,
        published=True,
    )
    QuizItem.objects.bulk_create(
        [QuizItem(quiz=quiz, problem=p, order=n, points=1) for n, p in enumerate(problems)]
        + [
            QuizItem(quiz=quiz, question=q, order=len(problems) + n, points=1)
            for n, q in enumerate(questions)
        ]
    )
    User = get_user_model()
    User.objects.bulk_create(
        [User(username=f"{LEARNER_PREFIX}{n}", password="!") for n in range(learners)]
    )
    # One hash for every sign-in learner (each hash costs what a sign-in costs); the hasher is
    # the settings' unless `signin_hasher` names an older one, to measure upgrades at sign-in.
    password = make_password(SIGNIN_PASSWORD, hasher=signin_hasher)
    User.objects.bulk_create(
        [User(username=f"{SIGNIN_PREFIX}{n}", password=password) for n in range(signins)]
    )
    sessions = []
    for user in User.objects.filter(username__startswith=LEARNER_PREFIX).order_by("pk"):
        client = Client()
        client.force_login(user)
        sessions.append({"name": user.username, "session": client.cookies["sessionid"].value})
    return {
        "quiz": quiz.slug,
        "items": len(problems) + len(questions),
        "learners": sessions,
        "hash": password.split("$", 1)[0],
    }


def verify(*, acks: list[dict], learners: list[str]) -> dict:
    """Every acknowledged save and submit is in the database, once, as sent.

    A save's answers are stored under its submission token (`<token>:sheet:<item>`, one
    response per item). Counts: acknowledged answers found as sent (`stored`), missing or
    different (`missing`), responses stored under a key no acknowledgement names (`unacknowledged`,
    from requests that failed or timed out after the write: not lost, but not confirmed either),
    keys stored more than once (`duplicated`), acknowledged submissions whose attempt is not
    submitted, and learners without a submitted attempt.
    """
    from django.db.models import Count

    from grading.models import Attempt, Response

    counts = (
        Response.objects.filter(user__username__in=learners)
        .values("idempotency_key")
        .annotate(n=Count("id"))
    )
    duplicated = sum(1 for row in counts if row["n"] > 1 and row["idempotency_key"])
    # Choices read through their own table, not prefetched: a prefetch would name every one of
    # the run's responses in one query, past PostgreSQL's 65,535 parameters at 1,000 learners.
    chosen: dict[int, list[int]] = {}
    for response_id, choice_id in Response.choices.through.objects.filter(
        response__user__username__in=learners
    ).values_list("response_id", "choice_id"):
        chosen.setdefault(response_id, []).append(choice_id)
    responses = {
        key: (text, sorted(chosen.get(pk, [])), status)
        for pk, key, text, status in Response.objects.filter(
            user__username__in=learners
        ).values_list("pk", "idempotency_key", "text", "status")
    }
    expected = {}
    for ack in acks:
        for item, answer in ack["answers"].items():
            key = f"{ack['token']}:sheet:{item}"
            if isinstance(answer, list):
                expected[key] = ("", sorted(answer))
            else:
                expected[key] = (answer, [])
    missing = [key for key, sent in expected.items() if responses.get(key, (None,))[:2] != sent]
    partial = partial_sheets(responses)
    invalid = [key for key in expected if responses.get(key, ("", [], ""))[2] == "invalid"]
    submitted = set(
        Attempt.objects.filter(
            user__username__in=learners, quiz__slug=EXAM_SLUG, status=Attempt.Status.SUBMITTED
        ).values_list("user__username", flat=True)
    )
    acked_submits = {ack["learner"] for ack in acks if ack["kind"] == "submit"}
    return {
        "acknowledged": len(expected),
        "stored": len(expected) - len(missing),
        "missing": len(missing),
        "invalid": len(invalid),
        "unacknowledged": len(set(responses) - set(expected)),
        "duplicated": duplicated,
        "submits_acknowledged": len(acked_submits),
        "submits_not_stored": len(acked_submits - submitted),
        "learners_submitted": len(submitted),
        "learners": len(learners),
        "partial_sheets": partial,
        "examples_missing": missing[:5],
    }


def partial_sheets(responses: dict) -> int:
    """Sheets stored in part: submission tokens with fewer responses than the exam has items
    (every sheet the bench sends changes every answer, so a whole sheet stores one per item)."""
    from grading.models import QuizItem

    items = QuizItem.objects.filter(quiz__slug=EXAM_SLUG).count()
    sheets: dict[str, int] = {}
    for key in responses:
        token, _, item = key.rpartition(":sheet:")
        if token and item:
            sheets[token] = sheets.get(token, 0) + 1
    return sum(1 for stored in sheets.values() if stored != items)


def open_at(*, at: float) -> dict:
    """The exam opens at `at` (seconds since the epoch): the instant every learner starts."""
    from datetime import UTC, datetime

    from courses.models import Quiz

    quiz = Quiz.objects.get(slug=EXAM_SLUG)
    quiz.opens_at = datetime.fromtimestamp(at, tz=UTC)
    quiz.save()
    return {"opens_at": quiz.opens_at.isoformat()}


STAGES = {"prepare": prepare, "verify": verify, "open": open_at}


def main(stage: str) -> int:
    import django

    django.setup()
    arguments = json.load(sys.stdin)
    print(json.dumps(STAGES[stage](**arguments)))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in STAGES:
        raise SystemExit(f"usage: {sys.argv[0]} {'|'.join(STAGES)} < arguments.json")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.exit(main(sys.argv[1]))
