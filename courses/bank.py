"""Lesson banks: one human-editable YAML file per lesson, imported and exported as a whole.

`bank_import` validates the entire file first and reports every error with its location
(file › item › field); only a bank with no error is written, inside one transaction, so a bad bank
never leaves the database half-changed. The format is documented in docs/bank-format.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings
from django.db import transaction
from django.db.models import ProtectedError
from django.utils.module_loading import import_string

from .markup import check_markup
from .models import (
    Choice,
    Course,
    KeyTerm,
    Lesson,
    Misconception,
    Problem,
    Question,
    Quiz,
    QuizItem,
)

BANK_FORMAT = 1
BANKS_DIR = Path(__file__).resolve().parent / "banks"
SLUG_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789-")


@dataclass(frozen=True)
class BankIssue:
    location: str
    message: str

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


class BankError(Exception):
    """A bank that cannot be imported; `issues` lists every problem found, with its location."""

    def __init__(self, issues: list[BankIssue]):
        self.issues = issues
        super().__init__("\n".join(str(issue) for issue in issues))


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


ProblemValidator = Callable[[str, dict, float | None, float | None], dict[str, str]]


def problem_validator() -> ProblemValidator | None:
    """The grading app's check of a family key and its parameters, named in settings.

    A dotted path in settings, not an import, keeps the arrow one-way (courses never imports
    grading).
    """
    path = getattr(settings, "SOFTGRADE_PROBLEM_VALIDATOR", None)
    return import_string(path) if path else None


# ---------------------------------------------------------------------------------------------
# Validation: plain dicts in, issues out. Nothing here touches the database except look-ups.
# ---------------------------------------------------------------------------------------------


class _Checker:
    def __init__(self, source: str):
        self.source = source
        self.issues: list[BankIssue] = []

    def add(self, where: str, message: str) -> None:
        self.issues.append(BankIssue(f"{self.source} › {where}", message))

    def mapping(self, value: Any, where: str) -> dict:
        if not isinstance(value, dict):
            self.add(where, f"must be a mapping of fields, got {type(value).__name__}")
            return {}
        return value

    def seq(self, value: Any, where: str) -> list:
        if value is None:
            return []
        if not isinstance(value, list):
            self.add(where, f"must be a list, got {type(value).__name__}")
            return []
        return value

    def text(self, obj: dict, key: str, where: str, *, required: bool = True) -> str:
        value = obj.get(key)
        if value is None or value == "":
            if required:
                self.add(f"{where}.{key}", "is required")
            return ""
        if not isinstance(value, str):
            self.add(f"{where}.{key}", f"must be text, got {type(value).__name__}")
            return ""
        return value

    def slug(self, obj: dict, key: str, where: str) -> str:
        value = self.text(obj, key, where)
        if value and (set(value) - SLUG_CHARS or value.startswith("-")):
            self.add(f"{where}.{key}", f"{value!r} is not a slug (lowercase letters, digits, -)")
        return value

    def integer(self, obj: dict, key: str, where: str, *, default: int | None, minimum: int = 0):
        value = obj.get(key, default)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self.add(f"{where}.{key}", f"must be a whole number, got {value!r}")
            return default
        if value < minimum:
            self.add(f"{where}.{key}", f"must be at least {minimum}, got {value}")
        return value

    def flag(self, obj: dict, key: str, where: str, *, default: bool | None) -> bool | None:
        """true or false; missing (or null) gives the default."""
        value = obj.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            self.add(f"{where}.{key}", f"must be true or false, got {value!r}")
            return default
        return value

    def choice(self, obj: dict, key: str, where: str, options: Iterable[str], default: str):
        value = obj.get(key, default)
        options = list(options)
        if value not in options:
            self.add(f"{where}.{key}", f"must be one of {', '.join(options)}; got {value!r}")
            return default
        return value

    def markup(self, text: str, where: str, term_slugs: set[str] | None = None) -> None:
        for problem in check_markup(text, term_slugs=term_slugs):
            self.add(where, problem)

    def unknown_fields(self, obj: dict, allowed: set[str], where: str) -> None:
        for key in sorted(set(obj) - allowed):
            self.add(f"{where}.{key}", f"unknown field (allowed: {', '.join(sorted(allowed))})")


def _label(kind: str, index: int, obj: dict, key: str = "slug") -> str:
    name = obj.get(key) if isinstance(obj, dict) else None
    return f"{kind}[{index + 1}]" + (f" ({name})" if isinstance(name, str) and name else "")


def validate_bank(document: Any, *, source: str = "bank") -> dict:
    """Check a parsed bank; return it normalised, or raise BankError listing every issue."""
    check = _Checker(source)
    doc = check.mapping(document, "file")
    if not doc:
        raise BankError(check.issues or [BankIssue(source, "the bank is empty")])
    check.unknown_fields(
        doc,
        {"format", "course", "lesson", "key_terms", "misconceptions", "questions", "problems",
         "quizzes"},
        "file",
    )  # fmt: skip
    if doc.get("format") != BANK_FORMAT:
        check.add("format", f"must be {BANK_FORMAT}; got {doc.get('format')!r}")

    course = check.mapping(doc.get("course"), "course")
    check.unknown_fields(course, {"slug", "title", "summary"}, "course")
    out_course = {
        "slug": check.slug(course, "slug", "course"),
        "title": check.text(course, "title", "course"),
        "summary": check.text(course, "summary", "course", required=False),
    }

    lesson = check.mapping(doc.get("lesson"), "lesson")
    check.unknown_fields(lesson, {"slug", "title", "summary", "order", "minutes", "body"}, "lesson")
    out_lesson = {
        "slug": check.slug(lesson, "slug", "lesson"),
        "title": check.text(lesson, "title", "lesson"),
        "summary": check.text(lesson, "summary", "lesson", required=False),
        "order": check.integer(lesson, "order", "lesson", default=1, minimum=1),
        "minutes": check.integer(lesson, "minutes", "lesson", default=20, minimum=1),
        "body": check.text(lesson, "body", "lesson"),
    }
    check.markup(out_lesson["title"], "lesson.title")

    terms = []
    seen: set[str] = set()
    for i, raw in enumerate(check.seq(doc.get("key_terms"), "key_terms")):
        where = _label("key_terms", i, raw)
        obj = check.mapping(raw, where)
        check.unknown_fields(obj, {"slug", "term", "definition"}, where)
        term = {
            "slug": check.slug(obj, "slug", where),
            "term": check.text(obj, "term", where),
            "definition": check.text(obj, "definition", where),
        }
        if term["slug"] in seen:
            check.add(f"{where}.slug", f"duplicate key term slug {term['slug']!r}")
        seen.add(term["slug"])
        check.markup(term["definition"], f"{where}.definition")
        terms.append(term)
    term_slugs = {t["slug"] for t in terms}
    check.markup(out_lesson["body"], "lesson.body", term_slugs)

    misconceptions = []
    codes: set[str] = set()
    for i, raw in enumerate(check.seq(doc.get("misconceptions"), "misconceptions")):
        where = _label("misconceptions", i, raw, "code")
        obj = check.mapping(raw, where)
        check.unknown_fields(obj, {"code", "title", "explanation"}, where)
        item = {
            "code": check.slug(obj, "code", where),
            "title": check.text(obj, "title", where),
            "explanation": check.text(obj, "explanation", where),
        }
        if item["code"] in codes:
            check.add(f"{where}.code", f"duplicate misconception code {item['code']!r}")
        codes.add(item["code"])
        check.markup(item["explanation"], f"{where}.explanation")
        misconceptions.append(item)

    questions = []
    question_slugs: set[str] = set()
    for i, raw in enumerate(check.seq(doc.get("questions"), "questions")):
        where = _label("questions", i, raw)
        obj = check.mapping(raw, where)
        check.unknown_fields(obj, {"slug", "kind", "prompt", "explanation", "choices"}, where)
        question = {
            "slug": check.slug(obj, "slug", where),
            "kind": check.choice(obj, "kind", where, Question.Kind.values, Question.Kind.SINGLE),
            "prompt": check.text(obj, "prompt", where),
            "explanation": check.text(obj, "explanation", where, required=False),
            "choices": [],
        }
        if question["slug"] in question_slugs:
            check.add(f"{where}.slug", f"duplicate question slug {question['slug']!r}")
        question_slugs.add(question["slug"])
        check.markup(question["prompt"], f"{where}.prompt")
        check.markup(question["explanation"], f"{where}.explanation")
        for j, raw_choice in enumerate(check.seq(obj.get("choices"), f"{where}.choices")):
            cwhere = f"{where} › choice {j + 1}"
            c = check.mapping(raw_choice, cwhere)
            check.unknown_fields(
                c, {"text", "correct", "pinned", "misconception", "feedback"}, cwhere
            )
            correct = check.flag(c, "correct", cwhere, default=False)
            code = c.get("misconception") or None
            if not correct and code is None:
                check.add(cwhere, f"choice {j + 1} is wrong but names no misconception")
            elif code is not None and code not in codes:
                check.add(f"{cwhere}.misconception", f"unknown misconception code {code!r}")
            choice = {
                "text": check.text(c, "text", cwhere),
                "correct": correct,
                "pinned": check.flag(c, "pinned", cwhere, default=False),
                "misconception": code,
                "feedback": check.text(c, "feedback", cwhere, required=False),
            }
            check.markup(choice["text"], f"{cwhere}.text")
            check.markup(choice["feedback"], f"{cwhere}.feedback")
            question["choices"].append(choice)
        for problem in choice_set_problems(
            question["kind"], [c["correct"] for c in question["choices"]]
        ):
            check.add(f"{where}.choices", problem)
        questions.append(question)

    validator = problem_validator()
    problems = []
    problem_slugs: set[str] = set()
    for i, raw in enumerate(check.seq(doc.get("problems"), "problems")):
        where = _label("problems", i, raw)
        obj = check.mapping(raw, where)
        check.unknown_fields(
            obj, {"slug", "title", "family", "params", "tolerance", "prompt", "exam_only"}, where
        )
        params = obj.get("params") or {}
        if not isinstance(params, dict):
            check.add(f"{where}.params", "must be a mapping of parameter names to values")
            params = {}
        tolerance = obj.get("tolerance")
        atol = rtol = None
        if tolerance is not None:
            tol = check.mapping(tolerance, f"{where}.tolerance")
            check.unknown_fields(tol, {"atol", "rtol"}, f"{where}.tolerance")
            atol, rtol = tol.get("atol"), tol.get("rtol")
            for name, value in (("atol", atol), ("rtol", rtol)):
                if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                    check.add(f"{where}.tolerance.{name}", f"must be a number ≥ 0, got {value!r}")
        exam_only = obj.get("exam_only", False)
        if not isinstance(exam_only, bool):
            check.add(f"{where}.exam_only", f"must be true or false, got {exam_only!r}")
            exam_only = False
        problem = {
            "slug": check.slug(obj, "slug", where),
            "title": check.text(obj, "title", where),
            "family": check.text(obj, "family", where),
            "params": params,
            "atol": atol,
            "rtol": rtol,
            "prompt": check.text(obj, "prompt", where, required=False),
            "exam_only": exam_only,
        }
        if problem["slug"] in problem_slugs:
            check.add(f"{where}.slug", f"duplicate problem slug {problem['slug']!r}")
        problem_slugs.add(problem["slug"])
        check.markup(problem["prompt"], f"{where}.prompt")
        if validator and problem["family"]:
            for fld, message in validator(problem["family"], params, atol, rtol).items():
                check.add(f"{where}.{fld}", message)
        problems.append(problem)

    quizzes = []
    quiz_slugs: set[str] = set()
    for i, raw in enumerate(check.seq(doc.get("quizzes"), "quizzes")):
        where = _label("quizzes", i, raw)
        obj = check.mapping(raw, where)
        check.unknown_fields(
            obj,
            {"slug", "title", "description", "mode", "time_limit_minutes", "attempts_allowed",
             "tries_per_item", "show_feedback", "release_answers", "opens_at", "closes_at",
             "shuffle_items", "shuffle_choices", "items"},
            where,
        )  # fmt: skip
        quiz = {
            "slug": check.slug(obj, "slug", where),
            "title": check.text(obj, "title", where),
            "description": check.text(obj, "description", where, required=False),
            "mode": check.choice(obj, "mode", where, Quiz.Mode.values, Quiz.Mode.PRACTICE),
            "time_limit_minutes": check.integer(
                obj, "time_limit_minutes", where, default=None, minimum=1
            ),
            "attempts_allowed": check.integer(
                obj, "attempts_allowed", where, default=None, minimum=1
            ),
            "tries_per_item": check.integer(obj, "tries_per_item", where, default=1, minimum=1),
            "show_feedback": check.choice(
                obj, "show_feedback", where, Quiz.Feedback.values, Quiz.Feedback.IMMEDIATELY
            ),
            "release_answers": check.choice(
                obj,
                "release_answers",
                where,
                Quiz.AnswerRelease.values,
                Quiz.AnswerRelease.AFTER_SUBMISSION,
            ),
            "opens_at": _moment(check, obj, "opens_at", where),
            "closes_at": _moment(check, obj, "closes_at", where),
            # Omitted: the quiz's mode decides (Quiz.shuffles_items, Quiz.shuffles_choices).
            "shuffle_items": check.flag(obj, "shuffle_items", where, default=None),
            "shuffle_choices": check.flag(obj, "shuffle_choices", where, default=None),
            "items": [],
        }
        if quiz["opens_at"] and quiz["closes_at"] and quiz["closes_at"] <= quiz["opens_at"]:
            check.add(f"{where}.closes_at", "must be after opens_at")
        if quiz["slug"] in quiz_slugs:
            check.add(f"{where}.slug", f"duplicate quiz slug {quiz['slug']!r}")
        quiz_slugs.add(quiz["slug"])
        check.markup(quiz["description"], f"{where}.description")
        for problem in quiz_policy_problems(
            mode=quiz["mode"],
            show_feedback=quiz["show_feedback"],
            release_answers=quiz["release_answers"],
            has_close=quiz["closes_at"] is not None,
        ):
            check.add(where, problem)
        items = check.seq(obj.get("items"), f"{where}.items")
        if not items:
            check.add(f"{where}.items", "a quiz needs at least one item")
        for j, raw_item in enumerate(items):
            iwhere = f"{where} › item {j + 1}"
            it = check.mapping(raw_item, iwhere)
            check.unknown_fields(it, {"question", "problem", "points"}, iwhere)
            q, p = it.get("question"), it.get("problem")
            if (q is None) == (p is None):
                check.add(iwhere, "an item names exactly one of question or problem")
            elif q is not None and q not in question_slugs:
                check.add(f"{iwhere}.question", f"no question {q!r} in this bank")
            elif p is not None and p not in problem_slugs:
                check.add(f"{iwhere}.problem", f"no problem {p!r} in this bank")
            points = check.integer(it, "points", iwhere, default=1, minimum=1)
            quiz["items"].append({"question": q, "problem": p, "points": points})
        quizzes.append(quiz)

    _check_slugs_owned_elsewhere(check, out_lesson["slug"], questions, problems, quizzes, codes)
    if check.issues:
        raise BankError(check.issues)
    return {
        "course": out_course,
        "lesson": out_lesson,
        "key_terms": terms,
        "misconceptions": misconceptions,
        "questions": questions,
        "problems": problems,
        "quizzes": quizzes,
    }


def _moment(check: _Checker, obj: dict, key: str, where: str) -> datetime | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, datetime):
        check.add(
            f"{where}.{key}", f"must be a date and time such as 2027-01-31T23:59:00Z, got {value!r}"
        )
        return None
    if value.tzinfo is None:
        check.add(f"{where}.{key}", "needs a time zone, e.g. a trailing Z for UTC")
        return None
    return value


def choice_set_problems(kind: str, correct: list[bool]) -> list[str]:
    """What is wrong with a question's choices, given which are correct (shared with the admin)."""
    problems = []
    n_correct = sum(correct)
    if len(correct) < 2:
        problems.append("a question needs at least two choices")
    if kind == Question.Kind.TRUE_FALSE and len(correct) != 2:
        problems.append("a true/false question has exactly two choices")
    if kind in (Question.Kind.SINGLE, Question.Kind.TRUE_FALSE) and n_correct != 1:
        problems.append(f"a {kind.replace('_', '/')} question needs exactly one correct choice")
    if kind == Question.Kind.MULTIPLE and n_correct < 1:
        problems.append("a multiple-choice question needs at least one correct choice")
    return problems


def quiz_policy_problems(
    *, mode: str, show_feedback: str, release_answers: str, has_close: bool
) -> list[str]:
    """Policy combinations that make no sense (shared with the admin form)."""
    problems = []
    if mode == Quiz.Mode.EXAM and show_feedback == Quiz.Feedback.IMMEDIATELY:
        problems.append("an exam cannot give feedback per item before submission")
    if release_answers == Quiz.AnswerRelease.AFTER_CLOSE and not has_close:
        problems.append("releasing answers after the quiz closes needs closes_at")
    return problems


def _check_slugs_owned_elsewhere(check, lesson_slug, questions, problems, quizzes, codes) -> None:
    """Slugs are global: a bank may not take over another lesson's question, problem or quiz."""
    for model, items, kind in (
        (Question, questions, "question"),
        (Problem, problems, "problem"),
        (Quiz, quizzes, "quiz"),
    ):
        slugs = [item["slug"] for item in items if item["slug"]]
        taken = model.objects.filter(slug__in=slugs).exclude(lesson__slug=lesson_slug)
        for slug, other in taken.values_list("slug", "lesson__slug"):
            check.add(f"{kind} {slug}", f"slug already belongs to lesson {other!r}")
    taken = Misconception.objects.filter(code__in=codes).exclude(lesson__slug=lesson_slug)
    for code, other in taken.values_list("code", "lesson__slug"):
        check.add(f"misconception {code}", f"code already belongs to lesson {other!r}")


# ---------------------------------------------------------------------------------------------
# Reading and writing
# ---------------------------------------------------------------------------------------------


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


def _write_bank(bank: dict) -> ImportSummary:
    summary = ImportSummary(lesson=bank["lesson"]["slug"])
    course_values = {k: v for k, v in bank["course"].items() if k != "slug"}
    course = _upsert(Course, {"slug": bank["course"]["slug"]}, course_values, summary, "courses")
    lesson_values = {k: v for k, v in bank["lesson"].items() if k != "slug"}
    # Another lesson of the course may hold this order number; move it aside rather than fail.
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
            {"term": term["term"], "definition": term["definition"], "order": order},
            summary,
            "key terms",
        )
    lesson.key_terms.exclude(slug__in=[t["slug"] for t in bank["key_terms"]]).delete()

    by_code = {}
    for item in bank["misconceptions"]:
        by_code[item["code"]] = _upsert(
            Misconception,
            {"code": item["code"]},
            {"lesson": lesson, "title": item["title"], "explanation": item["explanation"]},
            summary,
            "misconceptions",
        )

    questions = {}
    for order, item in enumerate(bank["questions"]):
        question = _upsert(
            Question,
            {"slug": item["slug"]},
            {
                "lesson": lesson,
                "kind": item["kind"],
                "prompt": item["prompt"],
                "explanation": item["explanation"],
                "order": order,
            },
            summary,
            "questions",
        )
        questions[item["slug"]] = question
        existing = list(question.choices.order_by("order", "id"))
        rows = _choice_rows(existing, [choice["text"] for choice in item["choices"]])
        for position, (choice, row) in enumerate(zip(item["choices"], rows, strict=True)):
            values = {
                "text": choice["text"],
                "is_correct": choice["correct"],
                "pinned": choice["pinned"],
                "misconception": by_code.get(choice["misconception"]),
                "feedback": choice["feedback"],
                "order": position,
            }
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
        values = {k: v for k, v in item.items() if k != "slug"}
        problems[item["slug"]] = _upsert(
            Problem,
            {"slug": item["slug"]},
            {"lesson": lesson, "order": order, **values},
            summary,
            "problems",
        )

    for item in bank["quizzes"]:
        values = {k: v for k, v in item.items() if k not in ("slug", "items")}
        quiz = _upsert(
            Quiz, {"slug": item["slug"]}, {"lesson": lesson, **values}, summary, "quizzes"
        )
        existing_items = list(quiz.items.order_by("order", "id"))
        for position, entry in enumerate(item["items"]):
            values = {
                "question": questions.get(entry["question"]),
                "problem": problems.get(entry["problem"]),
                "points": entry["points"],
                "order": position,
            }
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
    return summary


class _BankDumper(yaml.SafeDumper):
    """Multi-line text as `|` blocks so an exported bank stays as readable as a hand-written one."""


def _represent_text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BankDumper.add_representer(str, _represent_text)


def bank_export(*, lesson: Lesson) -> str:
    """The lesson as bank YAML; importing it gives back the same lesson."""
    lesson = (
        Lesson.objects.select_related("course")
        .prefetch_related("key_terms", "misconceptions", "questions__choices__misconception")
        .get(pk=lesson.pk)
    )
    document: dict[str, Any] = {
        "format": BANK_FORMAT,
        "course": {
            "slug": lesson.course.slug,
            "title": lesson.course.title,
            "summary": lesson.course.summary,
        },
        "lesson": {
            "slug": lesson.slug,
            "title": lesson.title,
            "summary": lesson.summary,
            "order": lesson.order,
            "minutes": lesson.minutes,
            "body": lesson.body,
        },
        "key_terms": [
            {"slug": t.slug, "term": t.term, "definition": t.definition}
            for t in lesson.key_terms.all()
        ],
        "misconceptions": [
            {"code": m.code, "title": m.title, "explanation": m.explanation}
            for m in lesson.misconceptions.all()
        ],
        "questions": [],
        "problems": [],
        "quizzes": [],
    }
    for question in lesson.questions.all():
        choices = []
        for choice in question.choices.all():
            entry: dict[str, Any] = {"text": choice.text, "correct": choice.is_correct}
            if choice.pinned:
                entry["pinned"] = True
            if choice.misconception:
                entry["misconception"] = choice.misconception.code
            entry["feedback"] = choice.feedback
            choices.append(entry)
        document["questions"].append(
            {
                "slug": question.slug,
                "kind": question.kind,
                "prompt": question.prompt,
                "explanation": question.explanation,
                "choices": choices,
            }
        )
    for problem in lesson.problems.all():
        entry = {
            "slug": problem.slug,
            "title": problem.title,
            "family": problem.family,
            "params": problem.params,
            "prompt": problem.prompt,
        }
        if problem.atol is not None:
            entry["tolerance"] = {"atol": problem.atol, "rtol": problem.rtol}
        if problem.exam_only:
            entry["exam_only"] = True
        document["problems"].append(entry)
    quizzes = lesson.quizzes.prefetch_related("items__question", "items__problem").order_by("id")
    for quiz in quizzes:
        items = []
        for item in quiz.items.all():
            ref = (
                {"question": item.question.slug}
                if item.question
                else {"problem": item.problem.slug}
            )
            if item.points != 1:
                ref["points"] = item.points
            items.append(ref)
        document["quizzes"].append(
            {
                "slug": quiz.slug,
                "title": quiz.title,
                "description": quiz.description,
                "mode": quiz.mode,
                "time_limit_minutes": quiz.time_limit_minutes,
                "attempts_allowed": quiz.attempts_allowed,
                "tries_per_item": quiz.tries_per_item,
                "show_feedback": quiz.show_feedback,
                "release_answers": quiz.release_answers,
                **({"opens_at": quiz.opens_at} if quiz.opens_at else {}),
                **({"closes_at": quiz.closes_at} if quiz.closes_at else {}),
                **({"shuffle_items": quiz.shuffle_items} if quiz.shuffle_items is not None else {}),
                **(
                    {"shuffle_choices": quiz.shuffle_choices}
                    if quiz.shuffle_choices is not None
                    else {}
                ),
                "items": items,
            }
        )
    return yaml.dump(document, Dumper=_BankDumper, sort_keys=False, allow_unicode=True, width=100)
