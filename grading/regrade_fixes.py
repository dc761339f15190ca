"""The fix an instructor makes to a quiz item before regrading it: which of a question's choices
are correct (and the misconception behind each wrong one), or a problem's tolerance.

A fix is checked as the admin and the bank importer check a question or a problem
(courses.bank.rules, grading.families), tried in memory for a preview (nothing is saved), and
saved only by an applied regrade (grading/regrades.py), in the regrade's transaction, with its
before and after kept on the Regrade row. No fix at all regrades the item as it stands (after
an edit in the admin).

A question or problem may be used by more than one quiz, in an item of its own or through a
pool (any quiz with an item drawing from a pool that holds it, or an attempt that drew it): a fix
changes it for all of them, so it is refused unless the instructor may change the scores of
every such quiz, whatever its course. Only this item's recorded answers are regraded; another
quiz's item shows the difference on its own regrade page.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Prefetch, Q
from django.utils.translation import gettext as _

from courses.bank.rules import choice_set_problems
from courses.models import Choice, Misconception, Problem, Question, Quiz, QuizItem
from grading.families import problem_errors
from grading.overrides import may_change_scores
from grading.services.errors import ServiceError


class FixRefused(ServiceError):
    code = "regrade_fix_refused"


@dataclass(frozen=True)
class ChoiceFix:
    """One choice as the fix has it. A wrong choice names the misconception behind it (an id);
    a correct one names none."""

    choice_id: int
    is_correct: bool
    misconception_id: int | None = None


@dataclass(frozen=True)
class QuestionFix:
    """Every choice of the question, each once."""

    choices: tuple[ChoiceFix, ...]


@dataclass(frozen=True)
class ToleranceFix:
    """A problem's tolerance: both set (each ≥ 0), or both None for its family's default."""

    atol: float | None
    rtol: float | None


ItemFix = QuestionFix | ToleranceFix


@dataclass
class FixedContent:
    """The item's question (its choices loaded) or problem, with the fix made in memory, and
    what the fix changes: one entry per changed choice or tolerance, before and after."""

    question: Question | None
    problem: Problem | None
    changes: list[dict] = field(default_factory=list)
    # The choices whose row the fix changes (saved by `save`).
    changed_choices: list[Choice] = field(default_factory=list)

    def save(self) -> None:
        """Write the fix to the question's choices or the problem (an applied regrade only)."""
        for choice in self.changed_choices:
            choice.save(update_fields=["is_correct", "misconception"])
        if self.problem is not None and self.changes:
            self.problem.save(update_fields=["atol", "rtol"])


def misconception_choices(question: Question) -> list[Misconception]:
    """The misconceptions a wrong choice of the question may name in a fix: its lesson's, the
    placeholders an import made last."""
    found = Misconception.objects.filter(lesson_id=question.lesson_id)
    return list(found.order_by("imported", "title", "pk"))


def fixed_content(
    *, item: QuizItem, fix: ItemFix | None, by: AbstractBaseUser, lock: bool = False
) -> FixedContent:
    """The item's content as the regrade grades it: as it stands, with `fix` made in memory.

    Refused (FixRefused) when the fix does not fit the item, breaks the rules every question or
    problem keeps, or changes content that quizzes the user may not change scores in also use.
    `lock` locks the question's choices or the problem until the transaction ends (apply).
    An item drawing from a pool has no one question or problem: it is regraded as it stands,
    each answer against what it answered (grading.regrades), and takes no fix.
    """
    if item.pool_id:
        if fix is not None:
            raise FixRefused(
                "This item draws from a pool, so it has no one question or problem to fix: fix "
                "the drawn one in the admin, then regrade this item as it stands."
            )
        return FixedContent(question=None, problem=None)
    if item.problem_id:
        problem = Problem.objects.select_for_update() if lock else Problem.objects
        found = FixedContent(question=None, problem=problem.get(pk=item.problem_id))
        if fix is not None:
            found.changes = _tolerance_fixed(found.problem, fix)
    else:
        choices = Choice.objects.select_related("misconception").order_by("order", "pk")
        if lock:
            choices = choices.select_for_update(of=("self",))
        # The grading reads question.choices.all(): these very rows, fixed in memory.
        question = Question.objects.prefetch_related(Prefetch("choices", queryset=choices)).get(
            pk=item.question_id
        )
        found = FixedContent(question=question, problem=None)
        if fix is not None:
            found.changes, found.changed_choices = _choices_fixed(question, fix)
    if found.changes:
        _shared_content_authorize(item=item, by=by)
    return found


def _tolerance_fixed(problem: Problem, fix: ItemFix) -> list[dict]:
    if not isinstance(fix, ToleranceFix):
        raise FixRefused(_("This item is a problem: its fix is a tolerance."))
    errors = problem_errors(problem.family, problem.params, fix.atol, fix.rtol)
    if "tolerance" in errors:
        raise FixRefused(
            _("That tolerance cannot be used: %(error)s.") % {"error": errors["tolerance"]}
        )
    if (problem.atol, problem.rtol) == (fix.atol, fix.rtol):
        return []
    change = {"atol": [problem.atol, fix.atol], "rtol": [problem.rtol, fix.rtol]}
    problem.atol, problem.rtol = fix.atol, fix.rtol
    return [change]


def _choices_fixed(question: Question, fix: ItemFix) -> tuple[list[dict], list[Choice]]:
    if not isinstance(fix, QuestionFix):
        raise FixRefused(_("This item is a question: its fix says which choices are correct."))
    choices = question.choices.all()
    by_id = {choice.pk: choice for choice in choices}
    ids = [entry.choice_id for entry in fix.choices]
    if sorted(ids) != sorted(by_id):
        raise FixRefused(
            "The fix must list every choice of the question once; the question has changed "
            "since the form was made: open the page again."
        )
    problems = choice_set_problems(question.kind, [entry.is_correct for entry in fix.choices])
    if problems:
        message = "; ".join(problems)
        raise FixRefused(message[0].upper() + message[1:] + ".")
    allowed = {m.pk: m for m in misconception_choices(question)}
    allowed.update({c.misconception.pk: c.misconception for c in choices if c.misconception})
    changes, changed = [], []
    for entry in fix.choices:
        choice = by_id[entry.choice_id]
        misconception = None
        if not entry.is_correct:
            misconception = allowed.get(entry.misconception_id)
            if misconception is None:
                raise FixRefused(
                    f"“{choice.text}” is wrong in this fix: name the misconception behind it "
                    "(one of the lesson's)."
                )
        before = (choice.is_correct, choice.misconception.code if choice.misconception else None)
        after = (entry.is_correct, misconception.code if misconception else None)
        if before == after:
            continue
        changes.append(
            {
                "choice": choice.pk,
                "text": choice.text,
                "is_correct": [before[0], after[0]],
                "misconception": [before[1], after[1]],
            }
        )
        choice.is_correct, choice.misconception = entry.is_correct, misconception
        changed.append(choice)
    return changes, changed


def _shared_content_authorize(*, item: QuizItem, by: AbstractBaseUser) -> None:
    """A fix changes the question or problem for every quiz that uses it: in an item of its own,
    in an item drawing from a pool that holds it, or in an attempt that drew it (from a pool it
    has since left). The user must be one who may change the scores of each."""
    if item.question_id:
        noun, member = "question", item.question_id
        uses = Q(question_id=member) | Q(pool__questions=member) | Q(draws__question_id=member)
    else:
        noun, member = "problem", item.problem_id
        uses = Q(problem_id=member) | Q(pool__problems=member) | Q(draws__problem_id=member)
    quizzes = QuizItem.objects.filter(uses).exclude(quiz_id=item.quiz_id).values("quiz_id")
    for other in Quiz.objects.filter(pk__in=quizzes).select_related("lesson").order_by("pk"):
        if not may_change_scores(user=by, quiz=other):
            raise FixRefused(
                f"This {noun} is also used by “{other.title}” (in an item of its own or drawn "
                "from a pool), whose scores you may not change: ask an author to fix it in the "
                "admin, then regrade the item here."
            )
