"""Import: read bank files, validate them all, then write them in one transaction.

`bank_import` validates every file first and reports every error with its location
(file › item › field); only banks with no error are written, inside one transaction, so a bad bank
never leaves the database half-changed. Everything is upserted by its key (slug, or code).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import ProtectedError
from django.utils.translation import gettext as _

from ..attempted_quizzes import (
    PointsPlan,
    attempted,
    items_kept,
    points_change,
    points_plan,
    prepared_attempts_discard,
)
from ..content_versions import content_changed
from ..models import (
    Choice,
    Course,
    KeyTerm,
    Lesson,
    Misconception,
    Pool,
    Problem,
    Question,
    Quiz,
    QuizItem,
)
from ..publishing import unpublish_problems
from .issues import BankError, BankIssue
from .pool_members import foreign_members_refuse
from .schema import (
    CHOICE,
    COURSE,
    KEY_TERM,
    LESSON,
    MISCONCEPTION,
    POOL,
    PROBLEM,
    QUESTION,
    QUIZ,
    QUIZ_ITEM,
    Entity,
    ListOf,
    Nested,
    Ref,
    Refs,
)
from .validate import validate_bank

BANKS_DIR = Path(__file__).resolve().parent.parent / "banks"


@dataclass
class ImportSummary:
    lesson: str
    created: dict[str, int] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)
    # What a change of points did (or, in a dry run, would do) to each attempted quiz.
    regrades: list[str] = field(default_factory=list)

    def count(self, kind: str, created: bool) -> None:
        bucket = self.created if created else self.updated
        bucket[kind] = bucket.get(kind, 0) + 1

    def __str__(self) -> str:
        made = ", ".join(f"{n} {kind}" for kind, n in sorted(self.created.items())) or _("nothing")
        kept = ", ".join(f"{n} {kind}" for kind, n in sorted(self.updated.items())) or _("nothing")
        regraded = "".join(f"\n  {line}" for line in self.regrades)
        said = _("lesson %(lesson)s: created %(created)s; updated %(updated)s") % {
            "lesson": self.lesson,
            "created": made,
            "updated": kept,
        }
        return said + regraded


def bank_load(path: Path) -> dict:
    """Read and validate one bank file; raise BankError with the file's name in every location."""
    source = path.name
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        message = _("cannot read the file: %(error)s") % {"error": exc.strerror}
        raise BankError([BankIssue(source, message)]) from exc
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = source
        if mark:
            at = _("line %(line)s, column %(column)s") % {
                "line": mark.line + 1,
                "column": mark.column + 1,
            }
            where = f"{source} › {at}"
        problem = getattr(exc, "problem", None) or str(exc)
        message = _("not valid YAML: %(problem)s") % {"problem": problem}
        raise BankError([BankIssue(where, message)]) from exc
    return validate_bank(document, source=source)


def bank_paths(path: Path) -> list[Path]:
    """A bank file, or every *.yaml bank in a folder, sorted so imports are deterministic."""
    if path.is_dir():
        return sorted(path.glob("*.yaml"))
    return [path]


def bank_import(
    *, paths: list[Path], by: AbstractBaseUser | None = None, dry_run: bool = False
) -> list[ImportSummary]:
    """Validate every file, then upsert them all in one transaction; any error changes nothing,
    nor does a pool left holding another course's question or problem (bank.pool_members).

    A quiz learners have attempted keeps its items (courses/attempted_quizzes.py); a change of
    their points regrades its attempts as `by`, who must be one who may change its scores, and
    is refused without `by`. `dry_run` reports what the import would do, points changes and
    their regrades included, and writes nothing.
    """
    banks, issues = [], []
    for path in paths:
        try:
            banks.append(bank_load(path))
        except BankError as exc:
            issues.extend(exc.issues)
    if issues:
        raise BankError(issues)
    with transaction.atomic():
        summaries = [_write_bank(bank, by=by, dry_run=dry_run) for bank in banks]
        # Inside the transaction, so a refusal rolls back everything written.
        foreign_members_refuse(sources=[path.name for path in paths], banks=banks)
        # Everything was written as for real, so the summary is the import's own; undone here.
        transaction.set_rollback(dry_run)
    return summaries


def _upsert(model, lookup: dict, values: dict, summary: ImportSummary, kind: str):
    obj, created = model.objects.update_or_create(**lookup, defaults=values)
    summary.count(kind, created)
    return obj


def _choice_rows(existing: list[Choice], texts: list[str]) -> list[Choice | None]:
    """The stored choice each choice of the file updates (None: a new one).

    Choices have no slug. A choice whose text is unchanged keeps its row wherever it moves, so
    the answers that picked it still point at the same words; a choice with new text takes the
    next row left over, in stored order (an edit in place).
    """
    same_text: dict[str, list[Choice]] = {}
    for row in existing:
        same_text.setdefault(row.text, []).append(row)
    matched = [same_text[text].pop(0) if same_text.get(text) else None for text in texts]
    taken = {row.pk for row in matched if row is not None}
    left_over = iter(row for row in existing if row.pk not in taken)
    return [row if row is not None else next(left_over, None) for row in matched]


def _model_values(entity: Entity, item: dict, **resolved: dict) -> dict:
    """The model's values for an entity's own fields, named as the model names them.

    The key is the caller's look-up and lists are written by the caller; a reference becomes
    the row it names, from `resolved[field name]` (key -> row).
    """
    values = {}
    for spec in entity:
        if spec.name == entity.key or isinstance(spec.kind, ListOf | Refs):
            continue
        if isinstance(spec.kind, Ref):
            values[spec.attr] = resolved[spec.name].get(item[spec.name])
        elif isinstance(spec.kind, Nested):  # flattened into the entity: a tolerance
            values.update({sub.attr: item[sub.name] for sub in spec.kind.entity})
        else:
            values[spec.attr] = item[spec.name]
    return values


def _write_bank(bank: dict, *, by: AbstractBaseUser | None, dry_run: bool) -> ImportSummary:
    summary = ImportSummary(lesson=bank["lesson"]["slug"])
    course_values = _model_values(COURSE, bank["course"])
    course = _upsert(Course, {"slug": bank["course"]["slug"]}, course_values, summary, "courses")
    lesson_values = _model_values(LESSON, bank["lesson"])
    # Another lesson of the course may hold this order number: a located error, not a crash.
    clash = Lesson.objects.filter(course=course, order=lesson_values["order"]).exclude(
        slug=bank["lesson"]["slug"]
    )
    if clash.exists():
        raise BankError(
            [
                BankIssue(
                    f"lesson {bank['lesson']['slug']}.order", _("another lesson has this order")
                )
            ]
        )
    lesson = _upsert(
        Lesson,
        {"slug": bank["lesson"]["slug"]},
        {"course": course, **lesson_values},
        summary,
        "lessons",
    )

    for order, term in enumerate(bank["key_terms"]):
        _upsert(
            KeyTerm,
            {"lesson": lesson, "slug": term["slug"]},
            {**_model_values(KEY_TERM, term), "order": order},
            summary,
            "key terms",
        )
    lesson.key_terms.exclude(slug__in=[t["slug"] for t in bank["key_terms"]]).delete()

    by_code = {}
    for item in bank["misconceptions"]:
        by_code[item["code"]] = _upsert(
            Misconception,
            {"code": item["code"]},
            {"lesson": lesson, **_model_values(MISCONCEPTION, item)},
            summary,
            "misconceptions",
        )

    questions = {}
    for order, item in enumerate(bank["questions"]):
        question = _upsert(
            Question,
            {"slug": item["slug"]},
            {"lesson": lesson, **_model_values(QUESTION, item), "order": order},
            summary,
            "questions",
        )
        questions[item["slug"]] = question
        existing = list(question.choices.order_by("order", "id"))
        rows = _choice_rows(existing, [choice["text"] for choice in item["choices"]])
        for position, (choice, row) in enumerate(zip(item["choices"], rows, strict=True)):
            values = {**_model_values(CHOICE, choice, misconception=by_code), "order": position}
            if row is not None:
                for name, value in values.items():
                    setattr(row, name, value)
                row.save()
            else:
                Choice.objects.create(question=question, **values)
        kept = {row.pk for row in rows if row is not None}
        Choice.objects.filter(id__in=[c.id for c in existing if c.id not in kept]).delete()

    problems = {}
    for order, item in enumerate(bank["problems"]):
        problems[item["slug"]] = _upsert(
            Problem,
            {"slug": item["slug"]},
            {"lesson": lesson, "order": order, **_model_values(PROBLEM, item)},
            summary,
            "problems",
        )

    pools = {}
    for item in bank["pools"]:
        pool = _upsert(
            Pool,
            {"slug": item["slug"]},
            {"lesson": lesson, **_model_values(POOL, item)},
            summary,
            "pools",
        )
        pool.questions.set([questions[slug] for slug in item["questions"]])
        pool.problems.set([problems[slug] for slug in item["problems"]])
        pools[item["slug"]] = pool

    written_quizzes = []
    for item in bank["quizzes"]:
        quiz = _upsert(
            Quiz,
            {"slug": item["slug"]},
            {"lesson": lesson, **_model_values(QUIZ, item)},
            summary,
            "quizzes",
        )
        written_quizzes.append(quiz.pk)
        existing_items = list(quiz.items.order_by("order", "id"))
        refs = {"question": questions, "problem": problems, "pool": pools}
        rows = [
            {**_model_values(QUIZ_ITEM, entry, **refs), "order": position}
            for position, entry in enumerate(item["items"])
        ]
        plan = points_plan(quiz=quiz) if existing_items else None
        if attempted(plan):
            _attempted_quiz_points(quiz, existing_items, rows, summary, plan, by, dry_run)
            continue
        for position, values in enumerate(rows):
            if position < len(existing_items):
                for name, value in values.items():
                    setattr(existing_items[position], name, value)
                existing_items[position].save()
            else:
                QuizItem.objects.create(quiz=quiz, **values)
        removed = existing_items[len(item["items"]) :]
        stale = QuizItem.objects.filter(id__in=[i.id for i in removed])
        if removed:
            # Prepared attempts name the items too, and are made afresh after the change.
            prepared_attempts_discard(quiz=quiz)
        try:
            stale.delete()
        except ProtectedError as exc:
            raise BankError(
                [
                    BankIssue(
                        f"quiz {item['slug']}.items", _("cannot remove items learners answered")
                    )
                ]
            ) from exc
    _check_other_quizzes(summary.lesson, questions.values(), problems.values())
    # Every quiz showing what the bank wrote may show it differently now (any quiz of another
    # lesson naming one of its questions or problems too).
    content_changed(
        quiz_ids=written_quizzes,
        question_ids=[question.pk for question in questions.values()],
        problem_ids=[problem.pk for problem in problems.values()],
        pool_ids=[pool.pk for pool in pools.values()],
    )
    return summary


def _content(item: QuizItem) -> tuple[int | None, int | None, int | None]:
    return (item.question_id, item.problem_id, item.pool_id)


def _attempted_quiz_points(
    quiz: Quiz,
    existing: list[QuizItem],
    rows: list[dict],
    summary: ImportSummary,
    plan: PointsPlan,
    by: AbstractBaseUser | None,
    dry_run: bool,
) -> None:
    """A quiz with attempts keeps its items, each in its place with its question, problem or
    pool; a change of their points is grading's regrade, reported in the summary."""
    where = f"quiz {quiz.slug}.items"
    same = len(existing) == len(rows) and all(
        _content(stored) == _content(QuizItem(**row))
        for stored, row in zip(existing, rows, strict=False)
    )
    if not same:
        raise BankError([BankIssue(where, items_kept(plan))])
    points = {
        stored.pk: row["points"]
        for stored, row in zip(existing, rows, strict=True)
        if stored.points != row["points"]
    }
    if not points:
        return
    plan = points_plan(quiz=quiz, points=points, by=by)
    said = f"{plan.notice()} {plan.outcome()}"
    if dry_run:
        summary.regrades.append(f"quiz {quiz.slug}: {said}")
    elif by is None:
        raise BankError(
            [
                BankIssue(
                    where,
                    f"{said} "
                    + _(
                        "Import with --by <user name> of an instructor of its course to regrade "
                        "them (--dry-run shows this and changes nothing)."
                    ),
                )
            ]
        )
    elif plan.refusal:
        raise BankError([BankIssue(where, plan.refusal)])
    else:
        done = points_change(quiz=quiz, points=points, by=by)
        summary.regrades.append(
            _("quiz %(quiz)s: regraded: %(outcome)s")
            % {"quiz": quiz.slug, "outcome": done.outcome()}
        )


def _check_other_quizzes(lesson: str, questions, problems) -> None:
    """A published quiz of another lesson may hold this bank's content: the bank may not
    unpublish it under that quiz (its own quizzes were checked with the bank)."""
    refused = unpublish_problems(
        questions=[question for question in questions if not question.published],
        problems=[problem for problem in problems if not problem.published],
    )
    if refused:
        raise BankError([BankIssue(f"lesson {lesson}", problem) for problem in refused])
