"""A lesson's questions and fixed-answer formula problems as a Moodle XML file.

- single choice: multichoice with one answer at 100% and the others at 0%;
- multiple choice: multichoice with several answers, the right ones sharing 100% and each wrong
  one at -100%, the nearest Moodle's scoring comes to all or nothing;
- true/false (choices "True" and "False"): truefalse; otherwise a single-choice multichoice;
- a formula problem with no variables and a number as its answer: numerical, with its tolerance
  as one absolute tolerance (max(atol, rtol·|answer|), the same interval), each named mistake a
  0% answer whose feedback is its misconception's explanation; its property checks, which
  Moodle cannot run, as text after the worked solution in the general feedback (each check and
  its feedback), noted in `left_out`.

Anything else (problems whose numbers are drawn per learner) is listed in `left_out`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from xml.sax.saxutils import escape, quoteattr

from django.utils.translation import gettext as _

from ..models import Lesson, Misconception, Problem, Question
from .html_text import markdown_to_html
from .placeholders import to_moodle

FORMULA_FAMILY = "formula"
DEFAULT_FORMULA_RTOL = 0.01  # the formula family's default tolerance: atol 0, rtol 1%
# A check is written as typed: its * and _ are arithmetic and names, not Markdown's emphasis.
_MARKDOWN_SIGNS = re.compile(r"[\\`*_\[\]]")


@dataclass
class MoodleExport:
    xml: str
    written: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)  # what is not written, or not all of it


def _cdata(text: str) -> str:
    return "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def _html(tag: str, markdown_text: str, indent: str = "    ", extra: str = "") -> str:
    body = _cdata(markdown_to_html(markdown_text)) if markdown_text else ""
    return f'{indent}<{tag} format="html"><text>{body}</text>{extra}</{tag}>\n'


def _number(value: float) -> str:
    return repr(float(value)).removesuffix(".0") if float(value).is_integer() else repr(value)


def _fraction(value: float) -> str:
    return f"{value:.5f}".rstrip("0").rstrip(".")


def _header(qtype: str, name: str, prompt: str, general: str) -> str:
    return (
        f'  <question type="{qtype}">\n'
        f"    <name><text>{escape(name)}</text></name>\n"
        + _html("questiontext", prompt)
        + _html("generalfeedback", general)
        + "    <defaultgrade>1</defaultgrade>\n    <penalty>0</penalty>\n    <hidden>0</hidden>\n"
    )


def _answer(fraction: float, text: str, feedback: str, inner_format: str = "html") -> str:
    content = _cdata(markdown_to_html(text)) if inner_format == "html" else escape(text)
    return (
        f"    <answer fraction={quoteattr(_fraction(fraction))} format={quoteattr(inner_format)}>"
        f"<text>{content}</text>\n" + _html("feedback", feedback, "      ") + "    </answer>\n"
    )


def _as_truefalse(question: Question, choices: list) -> bool:
    """Whether the question is written as Moodle's truefalse (choices "True" and "False")."""
    texts = sorted(c.text.strip().lower() for c in choices)
    return question.kind == Question.Kind.TRUE_FALSE and texts == ["false", "true"]


def _question(question: Question) -> str:
    choices = list(question.choices.all())
    if _as_truefalse(question, choices):
        out = _header(
            "truefalse", question.title or question.slug, question.prompt, question.explanation
        )
        for choice in choices:
            fraction = 100 if choice.is_correct else 0
            value = choice.text.strip().lower()
            out += _answer(fraction, value, choice.feedback, "moodle_auto_format")
        return out + "  </question>\n"
    single = question.kind != Question.Kind.MULTIPLE
    n_right = sum(c.is_correct for c in choices) or 1
    out = _header(
        "multichoice", question.title or question.slug, question.prompt, question.explanation
    )
    out += f"    <single>{'true' if single else 'false'}</single>\n"
    # Every choice pinned is a question whose choices keep their order: Moodle's shuffling off.
    shuffle = "false" if all(c.pinned for c in choices) else "true"
    out += f"    <shuffleanswers>{shuffle}</shuffleanswers>\n"
    out += "    <answernumbering>abc</answernumbering>\n"
    for choice in choices:
        fraction = 100 / n_right if choice.is_correct else 0 if single else -100
        out += _answer(fraction, choice.text, choice.feedback)
    return out + "  </question>\n"


def _fixed_answer(problem: Problem) -> float | None:
    params = problem.params or {}
    if problem.family != FORMULA_FAMILY or params.get("variables"):
        return None
    try:
        return float(params.get("answer", ""))
    except (TypeError, ValueError):
        return None


def _problem(problem: Problem, answer: float, explanations: dict[str, str]) -> str:
    params = problem.params
    atol = problem.atol if problem.atol is not None else 0.0
    rtol = problem.rtol if problem.rtol is not None else DEFAULT_FORMULA_RTOL
    tolerance = max(atol, rtol * abs(answer))
    # Its variables' placeholders in Moodle's syntax (none today: only problems without them).
    names = params.get("variables") or {}
    general = to_moodle("\n\n".join([*(params.get("solution") or []), *_checks(params)]), names)
    out = _header("numerical", problem.title, to_moodle(params.get("prompt", ""), names), general)
    out += (
        f'    <answer fraction="100" format="moodle_auto_format"><text>{_number(answer)}</text>\n'
        + _html("feedback", "", "      ")
        + f"      <tolerance>{_number(tolerance)}</tolerance>\n    </answer>\n"
    )
    for code, entry in (params.get("mistakes") or {}).items():
        formula, misconception, feedback = _mistake(code, entry)
        try:
            value = float(formula)
        except (TypeError, ValueError):
            continue  # a fixed-answer problem's mistakes are numbers too (checked by the caller)
        text = feedback or explanations.get(misconception, "")
        out += (
            f'    <answer fraction="0" format="moodle_auto_format"><text>{_number(value)}</text>\n'
            + _html("feedback", text, "      ")
            + f"      <tolerance>{_number(tolerance)}</tolerance>\n    </answer>\n"
        )
    return out + "  </question>\n"


def _as_typed(text: str) -> str:
    return _MARKDOWN_SIGNS.sub(lambda match: "\\" + match.group(), text)


def _checks(params: dict) -> list[str]:
    """The property checks as text: Moodle's numerical question has no way to run them."""
    rows = [
        f"- Check “{_as_typed(str(entry.get('check', '')))}”: {entry.get('feedback', '')}"
        for entry in params.get("properties") or []
        if isinstance(entry, dict)
    ]
    if not rows:
        return []
    return ["Checks on a wrong answer, each with the feedback it gave:\n\n" + "\n".join(rows)]


def _mistake(code: str, entry: object) -> tuple[object, str, str]:
    """A mistake entry of formula params (docs/formula-problems.md): a bare formula, named by its
    code, or an object with its formula and optionally its own misconception and feedback."""
    if isinstance(entry, dict):
        misconception = entry.get("misconception") or code
        return entry.get("formula"), misconception, entry.get("feedback") or ""
    return entry, code, ""


def _mistakes_are_numbers(problem: Problem) -> bool:
    mistakes = (problem.params.get("mistakes") or {}).items()
    try:
        [float(_mistake(code, entry)[0]) for code, entry in mistakes]
    except (TypeError, ValueError):
        return False
    return True


def moodle_export(*, lesson: Lesson) -> MoodleExport:
    """The lesson's questions and fixed-answer problems as Moodle XML, and what was left out."""
    lesson = Lesson.objects.select_related("course").get(pk=lesson.pk)
    export = MoodleExport(xml="")
    # A slash inside a name is doubled: Moodle reads a single one as a subcategory.
    names = [title.replace("/", "//") for title in (lesson.course.title, lesson.title)]
    category = "/".join(["$course$", *names])
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n',
        f'  <question type="category">\n    <category><text>{escape(category)}</text>'
        "</category>\n  </question>\n",
    ]
    for question in lesson.questions.prefetch_related("choices").order_by("order", "id"):
        parts.append(_question(question))
        export.written.append(f"question {question.slug}")
        choices = list(question.choices.all())
        pins = [c.pinned for c in choices]
        if any(pins) and (not all(pins) or _as_truefalse(question, choices)):
            export.left_out.append(
                _(
                    "question %(slug)s: its pinned choice is not kept (Moodle XML keeps all of a "
                    "multiple-choice question's answers in place or none; shuffled answers move "
                    "it too)"
                )
                % {"slug": question.slug}
            )
    problems = list(lesson.problems.order_by("order", "id"))
    codes = {
        _mistake(code, entry)[1]
        for p in problems
        for code, entry in (p.params or {}).get("mistakes", {}).items()
    }
    explanations = dict(
        Misconception.objects.filter(code__in=codes).values_list("code", "explanation")
    )
    for problem in problems:
        answer = _fixed_answer(problem)
        if answer is None or not _mistakes_are_numbers(problem):
            export.left_out.append(
                _(
                    "problem %(slug)s: left out: its numbers are drawn per learner (%(family)s); "
                    "a numerical question has one fixed answer"
                )
                % {"slug": problem.slug, "family": problem.family}
            )
            continue
        parts.append(_problem(problem, answer, explanations))
        export.written.append(f"problem {problem.slug}")
        if _checks(problem.params):
            export.left_out.append(
                _(
                    "problem %(slug)s: its property checks are written as text in the general "
                    "feedback (a numerical question cannot run them)"
                )
                % {"slug": problem.slug}
            )
    parts.append("</quiz>\n")
    export.xml = "".join(parts)
    return export
