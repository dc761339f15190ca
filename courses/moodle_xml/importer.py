"""Import a Moodle XML file into a lesson: read, map, name and check everything, then write it
all in one transaction. Any error raises MoodleXmlError before a row is written.

Imported questions are always new rows, as in Moodle's own import: the question's name becomes
its title (cut to the title's length) and its slug is made from it; a slug already taken (by any
lesson, or earlier in the file) gets the next free suffix (`-2`, `-3`…), so an import never
overwrites an existing question or problem.
Every rename, note and left-out question is in the report. What is imported starts unpublished
(the model's default; the report says so): an instructor publishes it once it is checked.

With a pool named, every imported question and problem also joins it, as a Moodle import fills a
category its random questions draw from; the pool must be one of the lesson's course
(courses.pool_members), or each question is refused by name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Max
from django.utils.text import slugify
from django.utils.translation import gettext as _

from ..bank.rules import choice_set_problems, problem_validator
from ..content_versions import content_changed
from ..markup import check_markup
from ..models import Choice, Lesson, Misconception, Pool, Problem, Question
from ..pool_members import member_refusal
from .issues import MoodleIssue, MoodleXmlError
from .mapping import Plan, ProblemPlan, QuestionPlan, Reported, map_record
from .placeholders import from_moodle
from .reader import read_records

FORMULA_FAMILY = "formula"  # the engine's key for instructor formula problems
SLUG_LENGTH = 80
TITLE_LENGTH = 200
CHOICE_LENGTH = Choice._meta.get_field("text").max_length


@dataclass
class Imported:
    """One question or problem the import makes, under the slug it was given."""

    plan: Plan
    slug: str
    misconception_codes: list[str] = field(default_factory=list)

    @property
    def noun(self) -> str:
        return "question" if isinstance(self.plan, QuestionPlan) else "problem"

    def __str__(self) -> str:
        named = {"slug": self.slug, "source": self.plan.record.label}
        if isinstance(self.plan, QuestionPlan):
            line = _("question %(slug)s from %(source)s") % named
        else:
            line = _("problem %(slug)s from %(source)s") % named
        return "; ".join([line, *self.plan.notes])


@dataclass
class MoodleImportReport:
    lesson: str
    imported: list[Imported] = field(default_factory=list)
    reported: list[Reported] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    pool: str | None = None
    written: bool = False

    @property
    def publishing_note(self) -> str:
        """What the instructor does next: imported content is not yet seen by learners."""
        if not self.imported:
            return ""
        return _(
            "Imported questions and problems start unpublished: learners see them once you "
            "publish them (the “Publish selected” action of the question and problem lists)."
        )

    def lines(self) -> list[str]:
        if self.written:
            into = _("imported into lesson %(lesson)s: %(item)s")
            pool = _("pool %(pool)s: every question and problem imported joins it")
        else:
            into = _("to import into lesson %(lesson)s: %(item)s")
            pool = _("pool %(pool)s: every question and problem to import joins it")
        out = [into % {"lesson": self.lesson, "item": item} for item in self.imported]
        out += [self.publishing_note] if self.publishing_note else []
        out += [str(item) for item in self.reported]
        out += [
            _("category %(name)s: not kept; its questions go into the lesson")
            % {"name": repr(name)}
            for name in self.categories
        ]
        if self.pool and self.imported:
            out.append(pool % {"pool": self.pool})
        return out


class _Names:
    """Free slugs and codes: those taken in the database and those given earlier in the file."""

    def __init__(self, model, field_name: str) -> None:
        self.taken = set(model.objects.values_list(field_name, flat=True))

    def claim(self, wanted: str) -> str:
        base = (slugify(wanted) or "imported")[: SLUG_LENGTH - 4].strip("-") or "imported"
        slug, number = base, 1
        while slug in self.taken:
            number += 1
            slug = f"{base}-{number}"
        self.taken.add(slug)
        return slug


def moodle_import(
    *, source: bytes, file_name: str, lesson: Lesson, write: bool = True, pool: Pool | None = None
) -> MoodleImportReport:
    """Import the file into the lesson (or, with write=False, only say what would happen); with
    `pool`, every imported question and problem joins it too."""
    records = read_records(source, file_name=file_name)
    issues: list[MoodleIssue] = []
    report = MoodleImportReport(lesson=lesson.slug, pool=pool.slug if pool else None)
    refusal = member_refusal(pool_lesson=pool.lesson, member_lesson=lesson) if pool else None
    question_slugs, problem_slugs = _Names(Question, "slug"), _Names(Problem, "slug")
    codes = _Names(Misconception, "code")
    for record in records:
        if record.qtype == "category":
            if record.category:
                report.categories.append(record.category)
            continue
        plan = map_record(record, issues)
        if isinstance(plan, Reported):
            report.reported.append(plan)
        elif plan is not None:
            names = question_slugs if isinstance(plan, QuestionPlan) else problem_slugs
            item = Imported(plan, names.claim(record.name))
            report.imported.append(item)
            _check(item, issues)
            if refusal:
                message = _("cannot join pool %(pool)s: %(refusal)s") % {
                    "pool": repr(pool.slug),
                    "refusal": refusal,
                }
                where = _("%(question)s › pool") % {"question": record.label}
                issues.append(MoodleIssue(where, None, message))
            wrong = _misconceptions_needed(plan)
            item.misconception_codes = [codes.claim(f"{item.slug}-{n}") for n in wrong]
    if issues:
        raise MoodleXmlError(issues)
    if write:
        with transaction.atomic():
            _write(lesson, report, pool)
            # New questions and problems are on no sheet yet; a pool that grew may be drawn by
            # quizzes, which say so (an attempt's draw is fixed, so no sheet shows it).
            content_changed(pool_ids=[pool.pk] if pool else [])
        report.written = True
    return report


# The explanation of the one misconception an imported question's wrong choices share, until an
# instructor names the real ones: it says what it is, and nothing about the right answer. Such
# placeholders are marked `imported`, so every picker lists them after the lesson's own.
UNNAMED_EXPLANATION = (
    "This choice is not the right one. Its own feedback, if any, says more; the idea behind it "
    "has not been named yet."
)


def _misconceptions_needed(plan: Plan) -> list[str]:
    """Suffixes of the misconceptions a plan makes: one explains every wrong choice of a
    question (a choice row must name one); one per named mistake of a problem."""
    if isinstance(plan, QuestionPlan):
        return ["wrong"] if any(not c.is_correct for c in plan.choices) else []
    return [f"mistake-{n}" for n in range(1, len(plan.mistakes) + 1)]


def _check(item: Imported, issues: list[MoodleIssue]) -> None:
    """What the lesson's own rules refuse: unrenderable math, too long texts, bad choice sets."""
    plan, record = item.plan, item.plan.record

    def add(what: str, message: str) -> None:
        issues.append(MoodleIssue(f"{record.label} › {what}", None, message))

    # The name becomes a question's or problem's title and a misconception's: its math must render.
    texts = {_("name"): record.name, _("question text"): plan.prompt}
    if isinstance(plan, QuestionPlan):
        texts[_("general feedback")] = plan.explanation
        for n, choice in enumerate(plan.choices, start=1):
            answer = _("answer %(number)s") % {"number": n}
            texts[answer] = choice.text
            texts[_("answer %(number)s feedback") % {"number": n}] = choice.feedback
            if len(choice.text) > CHOICE_LENGTH:
                add(answer, _("is longer than %(count)s characters") % {"count": CHOICE_LENGTH})
            if not choice.text:
                add(answer, _("is empty"))
        for problem in choice_set_problems(plan.kind, [c.is_correct for c in plan.choices]):
            add(_("answers"), problem)
    else:
        texts[_("general feedback")] = plan.solution
        texts.update(
            {
                _("wrong answer %(value)s feedback") % {"value": f"{m.value:g}"}: m.feedback
                for m in plan.mistakes
            }
        )
        if len(record.name) > TITLE_LENGTH:
            add(_("name"), _("is longer than %(count)s characters") % {"count": TITLE_LENGTH})
        validator = problem_validator()
        if validator:
            found = validator(FORMULA_FAMILY, _params(plan), plan.atol, 0.0)
            for name, message in found.items():
                add(name, message)
    for what, text in texts.items():
        for problem in check_markup(text):
            add(what, problem)


def _params(plan: ProblemPlan, codes: list[str] | None = None) -> dict:
    """The formula problem's params; without codes (while checking), placeholder mistake codes."""
    codes = codes or [f"mistake-{n}" for n in range(1, len(plan.mistakes) + 1)]
    variables: dict = {}  # a numerical question has none; Moodle's {name} would map to {@name@}
    params = {
        "variables": variables,
        "answer": repr(plan.answer),
        "mistakes": {code: repr(m.value) for code, m in zip(codes, plan.mistakes, strict=True)},
        "prompt": from_moodle(plan.prompt, variables),
        "version": 1,
    }
    if plan.solution:
        params["solution"] = [from_moodle(plan.solution, variables)]
    return params


def _write(lesson: Lesson, report: MoodleImportReport, pool: Pool | None) -> None:
    next_question = (lesson.questions.aggregate(n=Max("order"))["n"] or 0) + 1
    next_problem = (lesson.problems.aggregate(n=Max("order"))["n"] or 0) + 1
    for item in report.imported:
        plan, name = item.plan, item.plan.record.name
        if isinstance(plan, QuestionPlan):
            misconception = None
            if item.misconception_codes:
                misconception = Misconception.objects.create(
                    code=item.misconception_codes[0],
                    lesson=lesson,
                    title=f"A wrong answer to {name}"[:TITLE_LENGTH],
                    # Shown with a wrong pick while the learner may still try again, so never
                    # the question's general feedback: that often states the right answer.
                    explanation=UNNAMED_EXPLANATION,
                    imported=True,
                )
            question = Question.objects.create(
                lesson=lesson,
                slug=item.slug,
                title=name[:TITLE_LENGTH],
                kind=plan.kind,
                prompt=plan.prompt,
                explanation=plan.explanation,
                order=next_question,
            )
            next_question += 1
            if pool is not None:
                pool.questions.add(question)
            Choice.objects.bulk_create(
                Choice(
                    question=question,
                    text=choice.text,
                    is_correct=choice.is_correct,
                    misconception=None if choice.is_correct else misconception,
                    feedback=choice.feedback,
                    pinned=plan.pinned,
                    order=position,
                )
                for position, choice in enumerate(plan.choices)
            )
        else:
            for code, mistake in zip(item.misconception_codes, plan.mistakes, strict=True):
                Misconception.objects.create(
                    code=code,
                    lesson=lesson,
                    title=f"A common wrong answer: {mistake.value:g}",
                    explanation=mistake.feedback,
                    imported=True,
                )
            problem = Problem.objects.create(
                lesson=lesson,
                slug=item.slug,
                title=name[:TITLE_LENGTH],
                family=FORMULA_FAMILY,
                params=_params(plan, item.misconception_codes),
                atol=plan.atol,
                rtol=0.0,
                order=next_problem,
            )
            next_problem += 1
            if pool is not None:
                pool.problems.add(problem)
