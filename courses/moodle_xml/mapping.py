"""What each Moodle question becomes in a lesson, or why it is reported and not imported.

- multichoice, one answer (`<single>true`): a single-choice question; the answer at 100% is the
  correct choice. A choice worth part of the mark cannot be represented (a choice is right or
  wrong), so such a question is reported, not changed.
- multichoice, several answers: a multiple-choice question; the answers worth more than 0% are
  the correct choices. It is scored all or nothing here, which the report says.
- truefalse: a true/false question, "True" then "False".
- numerical: a formula problem with no variables whose answer is the 100% answer and whose
  absolute tolerance is the answer's tolerance; each wrong answer with feedback becomes a
  named mistake whose misconception explains it with that feedback.
- category: noted; the questions go into the lesson chosen.
- anything else, any question with a unit, and any question that embeds, shows or links a file
  (an image, a sound, a video, a PDF…: `files`): reported by name, not imported.

Nothing here touches the database; `importer` names, checks and writes the plans.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from ..models import Question
from .files import FileRef, describe
from .html_text import html_to_markdown
from .issues import MoodleIssue
from .reader import Record, Text

SUPPORTED = ("multichoice", "truefalse", "numerical")


@dataclass
class ChoicePlan:
    text: str
    is_correct: bool
    feedback: str


@dataclass
class QuestionPlan:
    record: Record
    kind: str
    prompt: str
    explanation: str
    choices: list[ChoicePlan]
    notes: list[str] = field(default_factory=list)
    # Shuffling off in the file: every choice keeps its place when a quiz shuffles choices.
    pinned: bool = False


@dataclass
class MistakePlan:
    value: float
    feedback: str


@dataclass
class ProblemPlan:
    record: Record
    prompt: str
    answer: float
    atol: float
    solution: str
    mistakes: list[MistakePlan]
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Reported:
    """A question that is not imported, and why (shown with its name, type and line)."""

    record: Record
    reason: str

    def __str__(self) -> str:
        return _("%(question)s: not imported: %(reason)s") % {
            "question": self.record.label,
            "reason": self.reason,
        }


Plan = QuestionPlan | ProblemPlan


class _Texts:
    """Converts a record's texts, collecting the files they show and dropped formatting."""

    def __init__(self) -> None:
        self.files: list[FileRef] = []
        self.dropped: list[str] = []

    def __call__(self, text: Text) -> str:
        converted = html_to_markdown(text.text, text.text_format)
        self.files += converted.files
        self.dropped += [tag for tag in converted.dropped if tag not in self.dropped]
        return converted.markdown

    def notes(self) -> list[str]:
        if not self.dropped:
            return []
        return [
            _("formatting not kept (its text is): %(tags)s") % {"tags": ", ".join(self.dropped)}
        ]


def _percent(fraction: float) -> str:
    return f"{fraction:g}%"


def map_record(record: Record, issues: list[MoodleIssue]) -> Plan | Reported | None:
    """The plan for one question, a report of why it is left out, or None for a category."""
    if record.qtype == "category":
        return None
    if record.qtype not in SUPPORTED:
        reason = _("the question type %(type)s has no counterpart here") % {
            "type": repr(record.qtype)
        }
        return Reported(record, reason)
    if record.units and any(record.units):
        units = ", ".join(u for u in record.units if u)
        return Reported(record, _("units (%(units)s) are not kept") % {"units": units})
    texts = _Texts()
    # A question left out for its files is not checked further: what is wrong with it matters
    # only once it can be imported.
    own_issues: list[MoodleIssue] = []
    if record.qtype == "numerical":
        plan: Plan | Reported | None = _numerical(record, texts, own_issues)
    else:
        plan = _choices(record, texts, own_issues)
    if record.files or texts.files:
        files = describe(record.files + texts.files)
        reason = _("it refers to files, which are not imported: %(files)s") % {"files": files}
        return Reported(record, reason)
    issues += own_issues
    if isinstance(plan, QuestionPlan | ProblemPlan):
        plan.notes += texts.notes()
        plan.notes += [_("%(extra)s is not kept") % {"extra": extra} for extra in record.extras]
    return plan


def _choices(record: Record, texts: _Texts, issues: list[MoodleIssue]) -> Plan | Reported | None:
    prompt, explanation = texts(record.text), texts(record.general_feedback)
    if not prompt:
        issues.append(MoodleIssue(record.label, record.line, _("the question text is empty")))
    if len(record.answers) < 2:
        issues.append(MoodleIssue(record.label, record.line, _("a question needs two answers")))
        return None
    notes: list[str] = []
    if record.qtype == "truefalse":
        by_value = {answer.text.text.strip().lower(): answer for answer in record.answers}
        if set(by_value) != {"true", "false"} or len(record.answers) != 2:
            message = _("a true/false question has exactly the answers true and false")
            issues.append(MoodleIssue(record.label, record.line, message))
            return None
        answers = [by_value["true"], by_value["false"]]
        choices = [
            ChoicePlan(label, answer.fraction >= 100, texts(answer.feedback))
            for label, answer in zip(("True", "False"), answers, strict=True)
        ]
        kind = Question.Kind.TRUE_FALSE
    else:
        partial = [a for a in record.answers if 0 < a.fraction < 100]
        if record.single and partial:
            shares = ", ".join(_percent(a.fraction) for a in partial)
            reason = _(
                "answers worth part of the mark (%(shares)s): a choice here is right or wrong"
            ) % {"shares": shares}
            return Reported(record, reason)
        if record.single:
            kind = Question.Kind.SINGLE
            correct = [a.fraction >= 100 for a in record.answers]
            if sum(correct) > 1:
                reason = _(
                    "%(count)s answers are worth 100%%; a single-choice question has one"
                ) % {"count": sum(correct)}
                return Reported(record, reason)
        else:
            kind = Question.Kind.MULTIPLE
            correct = [a.fraction > 0 for a in record.answers]
            notes.append(
                _(
                    "scored all or nothing: a learner scores only by picking exactly the right "
                    "choices (partial credit and penalties are not kept)"
                )
            )
        if record.single and any(a.fraction < 0 for a in record.answers):
            notes.append(_("a wrong choice scores 0 here, not a negative mark"))
        choices = [
            ChoicePlan(texts(answer.text), is_correct, texts(answer.feedback))
            for answer, is_correct in zip(record.answers, correct, strict=True)
        ]
    if not any(choice.is_correct for choice in choices):
        message = (
            _("no answer is worth 100%") if record.single else _("no answer is worth more than 0%")
        )
        issues.append(MoodleIssue(record.label, record.line, message))
        return None
    # A true/false question has no order to keep (Moodle never shuffles it).
    pinned = record.qtype == "multichoice" and not record.shuffle
    if pinned:
        notes.append(_("its answers keep the file's order (shuffling off): every choice is pinned"))
    return QuestionPlan(record, kind, prompt, explanation, choices, notes, pinned)


def _numerical(record: Record, texts: _Texts, issues: list[MoodleIssue]) -> Plan | Reported | None:
    prompt, solution = texts(record.text), texts(record.general_feedback)
    if not prompt:
        issues.append(MoodleIssue(record.label, record.line, _("the question text is empty")))
    right = [a for a in record.answers if a.fraction >= 100]
    partial = [a for a in record.answers if 0 < a.fraction < 100]
    if partial:
        shares = ", ".join(_percent(a.fraction) for a in partial)
        reason = _("answers worth part of the mark (%(shares)s) are not kept") % {"shares": shares}
        return Reported(record, reason)
    if len(right) != 1:
        if not right:
            issues.append(MoodleIssue(record.label, record.line, _("no answer is worth 100%")))
            return None
        reason = _("%(count)s answers are worth 100%%; a problem has one answer") % {
            "count": len(right)
        }
        return Reported(record, reason)
    answer = right[0]
    try:
        value = float(answer.text.text.strip())
    except ValueError:
        message = _("the right answer %(answer)s is not a number") % {
            "answer": repr(answer.text.text.strip())
        }
        where = _("%(question)s › answer") % {"question": record.label}
        issues.append(MoodleIssue(where, answer.line, message))
        return None
    atol = answer.tolerance or 0.0  # Moodle's tolerance when none is given: 0
    if abs(value) <= atol:
        # A blank guess of 0 would pass; formula problems refuse such an answer.
        reason = _("its answer %(value)s ± %(atol)s would accept 0") % {
            "value": f"{value:g}",
            "atol": f"{atol:g}",
        }
        return Reported(record, reason)
    notes: list[str] = []
    if texts(answer.feedback):
        notes.append(_("the feedback on the right answer is not kept"))
    mistakes = []
    for wrong in record.answers:
        if wrong is answer:
            continue
        raw, feedback = wrong.text.text.strip(), texts(wrong.feedback)
        try:
            mistake = float(raw)
        except ValueError:  # "*": any other answer
            if feedback:
                notes.append(
                    _("the feedback for any other answer (%(raw)s) is not kept")
                    % {"raw": repr(raw)}
                )
            continue
        if not feedback:
            notes.append(
                _("the wrong answer %(raw)s has no feedback, so it is not kept") % {"raw": raw}
            )
            continue
        if abs(mistake - value) <= atol:
            notes.append(
                _("the wrong answer %(raw)s is within the right one's tolerance: not kept")
                % {"raw": raw}
            )
            continue
        if wrong.fraction < 0:
            notes.append(
                _("the wrong answer %(raw)s scores 0 here, not a negative mark") % {"raw": raw}
            )
        # The problem matches every mistake within its one tolerance; an answer's own (Moodle's
        # 0 when none is given) is replaced, and the report says so.
        own = wrong.tolerance or 0.0
        if own != atol:
            notes.append(
                _(
                    "the wrong answer %(raw)s is matched within ± %(atol)s (the problem's "
                    "tolerance), not its own ± %(own)s"
                )
                % {"raw": raw, "atol": f"{atol:g}", "own": f"{own:g}"}
            )
        mistakes.append(MistakePlan(mistake, feedback))
    return ProblemPlan(record, prompt, value, atol, solution, mistakes, notes)
