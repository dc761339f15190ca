"""The instructor reports benchmark's data: a quiz of the shipped lesson taken by many learners,
several submitted attempts each, written in bulk.

`reports_make(learners=3_000, attempts=3)` imports the shipped bank, makes a practice quiz of its
first QUESTIONS questions and PROBLEMS problems, and for every learner `attempts` submitted
attempts with one graded answer per item (3,000 × 3 × 10 = 90,000 responses). Answers are graded
by the real rules (grading.services.verdicts), each distinct (question, choices) or (variant
seed, answer) once: a problem's variants come from a pool of SEEDS seeds, so the givens vary as
they do on a real quiz while grading stays cheap. Learners differ in ability and improve from
one attempt to the next; a wrong answer to a problem is a named mistake, the answer off by a
power of ten, or an unrelated number, so every report (response analysis, new misconceptions,
facility by parameter, misconception profiles) has something to show.

Every learner is also an integration's learner, so the grades API (which lists the learners an
integration provisioned) sees all of them; the API key of that integration is returned.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from courses.models import Course, Problem, Question, Quiz, QuizItem
from grading import engine
from grading.models import Attempt, Response, Variant
from grading.services.variants import variant_unsaved
from grading.services.verdicts import question_grade, variant_grade, verdict_fields
from integrations import services
from integrations.models import Integration, Learner
from teaching.models import CourseRole

QUIZ_SLUG = "reports-bench-quiz"
LEARNER_PREFIX = "reports-learner-"
QUESTIONS = 6
PROBLEMS = 4
SEEDS = 300  # distinct variants per problem
BATCH = 5_000


@dataclass(frozen=True)
class ReportsData:
    course: Course
    quiz: Quiz
    items: list[QuizItem]
    instructor: object  # the user with the instructor's role in the course
    token: str  # an API key of the course
    learners: int
    attempts: int
    responses: int


def _quiz(lesson) -> tuple[Quiz, list[QuizItem]]:
    quiz = Quiz.objects.create(
        lesson=lesson,
        slug=QUIZ_SLUG,
        title="Reports benchmark quiz",
        attempts_allowed=None,
        published=True,
    )
    questions = list(Question.objects.filter(lesson=lesson).order_by("pk")[:QUESTIONS])
    problems = list(Problem.objects.filter(lesson=lesson).order_by("pk")[:PROBLEMS])
    items = []
    for order, entry in enumerate([*questions, *problems]):
        kind = "question" if isinstance(entry, Question) else "problem"
        items.append(QuizItem.objects.create(quiz=quiz, order=order, points=1, **{kind: entry}))
    return quiz, list(QuizItem.objects.filter(quiz=quiz).select_related("question", "problem"))


class _Grader:
    """Grades each distinct answer once: a question's picks, a problem variant's answer kind."""

    def __init__(self, items: list[QuizItem]):
        self.verdicts: dict[tuple, dict] = {}
        self.variants: dict[tuple[int, int], Variant] = {}
        self.choices = {
            item.pk: list(item.question.choices.order_by("order", "pk"))
            for item in items
            if item.question_id
        }

    def question(self, item: QuizItem, right: bool, pick: int) -> tuple[list[int], dict]:
        choices = self.choices[item.pk]
        correct = [c.pk for c in choices if c.is_correct]
        wrong = [c.pk for c in choices if not c.is_correct] or correct
        picked = correct if right else [wrong[pick % len(wrong)]]
        key = (item.pk, tuple(picked))
        if key not in self.verdicts:
            self.verdicts[key] = verdict_fields(
                question_grade(question=item.question, choice_ids=picked), quiz=item.quiz
            )
        return picked, self.verdicts[key]

    def variant(self, item: QuizItem, seed: int) -> Variant:
        key = (item.pk, seed)
        if key not in self.variants:
            self.variants[key] = variant_unsaved(problem=item.problem, seed=seed, user=None)
        return self.variants[key]

    def problem(self, item: QuizItem, seed: int, kind: int) -> tuple[str, dict]:
        """kind 0: the answer; 1: a named mistake (or the answer × 10); 2: × 10; 3: unrelated."""
        key = (item.pk, seed, kind)
        if key not in self.verdicts:
            variant = self.variant(item, seed)
            solution = engine.get_family(variant.family).solve(variant.givens, variant.grading_key)
            mistakes = list(solution.mistakes.values())
            answer = solution.answer
            value = [
                answer,
                mistakes[0] if mistakes else answer * 10,
                answer * 10,
                float(seed % 97) + 0.5,
            ][kind]
            text = engine.format_answer(value)
            graded = variant_grade(variant=variant, text=text)
            self.verdicts[key] = (text, verdict_fields(graded, quiz=item.quiz))
        return self.verdicts[key]


def _learners(count: int, integration: Integration) -> list:
    users = get_user_model().objects.bulk_create(
        (
            get_user_model()(username=f"{LEARNER_PREFIX}{n}", email=f"learner{n}@example.org")
            for n in range(count)
        ),
        batch_size=BATCH,
    )
    Learner.objects.bulk_create(
        (
            Learner(integration=integration, external_id=f"ext-{n}", user=user, name=f"Learner {n}")
            for n, user in enumerate(users)
        ),
        batch_size=BATCH,
    )
    return users


def reports_make(*, learners: int = 3_000, attempts: int = 3, seed: int = 13) -> ReportsData:
    """The course, quiz, learners, attempts and responses described in the module docstring,
    in an empty, migrated database."""
    call_command("import_bank", verbosity=0, stdout=io.StringIO())
    lesson = Quiz.objects.get(slug="attention-practice").lesson
    course = lesson.course
    quiz, items = _quiz(lesson)
    instructor = get_user_model().objects.create(username="reports-instructor")
    CourseRole.objects.create(course=course, user=instructor, role=CourseRole.Role.INSTRUCTOR)
    integration = Integration.objects.create(name="Bench LMS")
    _, token = services.api_key_create(integration=integration, name="bench", courses=[course])
    users = _learners(learners, integration)

    rng = np.random.default_rng(seed)
    ability = rng.uniform(0.15, 0.85, size=learners)
    difficulty = rng.uniform(-0.2, 0.2, size=len(items))
    grader = _Grader(items)
    now = timezone.now()
    made = []  # (attempt, [(item, verdict fields, picked choice ids, variant, text)])
    for n, user in enumerate(users):
        for number in range(1, attempts + 1):
            chance = np.clip(ability[n] - difficulty + 0.08 * (number - 1), 0.02, 0.98)
            right = rng.random(len(items)) < chance
            kinds = rng.integers(1, 4, size=len(items))
            answers, score = [], 0.0
            for i, item in enumerate(items):
                if item.question_id:
                    picked, fields = grader.question(item, bool(right[i]), int(kinds[i]))
                    answers.append((item, fields, picked, None, ""))
                else:
                    seed_of = int(rng.integers(SEEDS))
                    text, fields = grader.problem(item, seed_of, 0 if right[i] else int(kinds[i]))
                    answers.append((item, fields, [], seed_of, text))
                score += fields["score"] * item.points
            attempt = Attempt(
                user=user, quiz=quiz, number=number, status=Attempt.Status.SUBMITTED,
                submitted_at=now, score=score, max_score=float(len(items)),
            )  # fmt: skip
            made.append((attempt, answers))
    Attempt.objects.bulk_create([attempt for attempt, _ in made], batch_size=BATCH)

    variants, responses, picks = [], [], []
    for attempt, answers in made:
        for item, _, _, seed_of, _ in answers:
            if seed_of is not None:
                template = grader.variant(item, seed_of)
                variants.append(
                    Variant(
                        problem=template.problem, user=attempt.user, attempt=attempt,
                        quiz_item=item, seed=template.seed, family=template.family,
                        family_version=template.family_version, params=template.params,
                        givens=template.givens, grading_key=template.grading_key,
                        atol=template.atol, rtol=template.rtol,
                    )
                )  # fmt: skip
    Variant.objects.bulk_create(variants, batch_size=BATCH)
    by_attempt_item = {(v.attempt_id, v.quiz_item_id): v for v in variants}
    for attempt, answers in made:
        for item, fields, picked, _, text in answers:
            response = Response(
                user=attempt.user, attempt=attempt, quiz_item=item,
                question=item.question if item.question_id else None,
                variant=by_attempt_item.get((attempt.pk, item.pk)), text=text, **fields,
            )  # fmt: skip
            responses.append(response)
            picks.append(picked)
    Response.objects.bulk_create(responses, batch_size=BATCH)
    through = Response.choices.through
    Response.choices.through.objects.bulk_create(
        (
            through(response_id=response.pk, choice_id=choice)
            for response, picked in zip(responses, picks, strict=True)
            for choice in picked
        ),
        batch_size=BATCH,
    )
    return ReportsData(
        course=course,
        quiz=quiz,
        items=items,
        instructor=instructor,
        token=token,
        learners=learners,
        attempts=len(made),
        responses=len(responses),
    )


def reports_find(*, learners: int, attempts: int) -> ReportsData | None:
    """The data set reports_make wrote earlier in this database when it has this size (with a
    new API key), else None: a second run skips the writing."""
    quiz = Quiz.objects.filter(slug=QUIZ_SLUG).select_related("lesson__course").first()
    if quiz is None:
        return None
    made = Attempt.objects.filter(quiz=quiz)
    found = made.values("user_id").distinct().count()
    if found != learners or made.count() != learners * attempts:
        return None
    integration = Integration.objects.get(name="Bench LMS")
    course = quiz.lesson.course
    _, token = services.api_key_create(integration=integration, name="bench", courses=[course])
    return ReportsData(
        course=course,
        quiz=quiz,
        items=list(
            QuizItem.objects.filter(quiz=quiz)
            .select_related("question", "problem")
            .order_by("order", "pk")
        ),
        instructor=get_user_model().objects.get(username="reports-instructor"),
        token=token,
        learners=learners,
        attempts=learners * attempts,
        responses=Response.objects.filter(attempt__quiz=quiz).count(),
    )
