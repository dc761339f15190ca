"""Import: read bank files, validate them all, then write them in one transaction.

`bank_import` validates every file first and reports every error with its location
(file › item › field); only banks with no error are written, inside one transaction, so a bad bank
never leaves the database half-changed. Everything is upserted by its key (slug, or code).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml
from django.db import transaction
from django.db.models import ProtectedError

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

    def count(self, kind: str, created: bool) -> None:
        bucket = self.created if created else self.updated
        bucket[kind] = bucket.get(kind, 0) + 1

    def __str__(self) -> str:
        made = ", ".join(f"{n} {kind}" for kind, n in sorted(self.created.items())) or "nothing"
        kept = ", ".join(f"{n} {kind}" for kind, n in sorted(self.updated.items())) or "nothing"
        return f"lesson {self.lesson}: created {made}; updated {kept}"


def bank_load(path: Path) -> dict:
    """Read and validate one bank file; raise BankError with the file's name in every location."""
    source = path.name
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BankError([BankIssue(source, f"cannot read the file: {exc.strerror}")]) from exc
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source} › line {mark.line + 1}, column {mark.column + 1}" if mark else source
        problem = getattr(exc, "problem", None) or str(exc)
        raise BankError([BankIssue(where, f"not valid YAML: {problem}")]) from exc
    return validate_bank(document, source=source)


def bank_paths(path: Path) -> list[Path]:
    """A bank file, or every *.yaml bank in a folder, sorted so imports are deterministic."""
    if path.is_dir():
        return sorted(path.glob("*.yaml"))
    return [path]


def bank_import(*, paths: list[Path]) -> list[ImportSummary]:
    """Validate every file, then upsert them all in one transaction; any error changes nothing."""
    banks, issues = [], []
    for path in paths:
        try:
            banks.append(bank_load(path))
        except BankError as exc:
            issues.extend(exc.issues)
    if issues:
        raise BankError(issues)
    with transaction.atomic():
        return [_write_bank(bank) for bank in banks]


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


def _write_bank(bank: dict) -> ImportSummary:
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
            [BankIssue(f"lesson {bank['lesson']['slug']}.order", "another lesson has this order")]
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

    for item in bank["quizzes"]:
        quiz = _upsert(
            Quiz,
            {"slug": item["slug"]},
            {"lesson": lesson, **_model_values(QUIZ, item)},
            summary,
            "quizzes",
        )
        existing_items = list(quiz.items.order_by("order", "id"))
        for position, entry in enumerate(item["items"]):
            refs = {"question": questions, "problem": problems, "pool": pools}
            values = {**_model_values(QUIZ_ITEM, entry, **refs), "order": position}
            if position < len(existing_items):
                for name, value in values.items():
                    setattr(existing_items[position], name, value)
                existing_items[position].save()
            else:
                QuizItem.objects.create(quiz=quiz, **values)
        stale = QuizItem.objects.filter(id__in=[i.id for i in existing_items[len(item["items"]) :]])
        try:
            stale.delete()
        except ProtectedError as exc:
            raise BankError(
                [BankIssue(f"quiz {item['slug']}.items", "cannot remove items learners answered")]
            ) from exc
    _check_other_quizzes(summary.lesson, questions.values(), problems.values())
    return summary


def _check_other_quizzes(lesson: str, questions, problems) -> None:
    """A published quiz of another lesson may hold this bank's content: the bank may not
    unpublish it under that quiz (its own quizzes were checked with the bank)."""
    refused = unpublish_problems(
        questions=[question for question in questions if not question.published],
        problems=[problem for problem in problems if not problem.published],
    )
    if refused:
        raise BankError([BankIssue(f"lesson {lesson}", problem) for problem in refused])
