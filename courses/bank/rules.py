"""Rules that span more than one field of an entity.

The first two are shared with the admin's forms, so a bank and the admin refuse the same things.
Each entity rule takes the normalised entity and its 1-based position in its list and yields
(field, message) pairs; an empty field means the entity itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from django.conf import settings
from django.utils.module_loading import import_string
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..models import Question, Quiz

Finding = tuple[str, str]
ProblemValidator = Callable[[str, dict, float | None, float | None], dict[str, str]]


def choice_set_problems(kind: str, correct: list[bool]) -> list[str]:
    """What is wrong with a question's choices, given which are correct (shared with the admin)."""
    problems = []
    n_correct = sum(correct)
    if len(correct) < 2:
        problems.append(_("a question needs at least two choices"))
    if kind == Question.Kind.TRUE_FALSE and len(correct) != 2:
        problems.append(_("a true/false question has exactly two choices"))
    if kind in (Question.Kind.SINGLE, Question.Kind.TRUE_FALSE) and n_correct != 1:
        problems.append(
            _("a true/false question needs exactly one correct choice")
            if kind == Question.Kind.TRUE_FALSE
            else _("a single question needs exactly one correct choice")
        )
    if kind == Question.Kind.MULTIPLE and n_correct < 1:
        problems.append(_("a multiple-choice question needs at least one correct choice"))
    return problems


def quiz_policy_problems(
    *,
    mode: str,
    show_feedback: str,
    release_answers: str,
    has_close: bool,
    extra_try_penalty: float = 0.0,
) -> list[str]:
    """Policy combinations that make no sense (shared with the admin form)."""
    problems = []
    if mode == Quiz.Mode.EXAM and show_feedback == Quiz.Feedback.IMMEDIATELY:
        problems.append(_("an exam cannot give feedback per item before submission"))
    if release_answers == Quiz.AnswerRelease.AFTER_CLOSE and not has_close:
        problems.append(_("releasing answers after the quiz closes needs closes_at"))
    if extra_try_penalty and show_feedback != Quiz.Feedback.IMMEDIATELY:
        problems.append(
            _(
                "a penalty per extra try needs feedback per item (show_feedback: immediately): "
                "only then are tries counted"
            )
        )
    return problems


def problem_validator() -> ProblemValidator | None:
    """The grading app's check of a family key and its parameters, named in settings.

    A dotted path in settings, not an import, keeps the arrow one-way (courses never imports
    grading).
    """
    path = getattr(settings, "SOFTGRADE_PROBLEM_VALIDATOR", None)
    return import_string(path) if path else None


def wrong_choice_names_a_misconception(choice: dict, position: int) -> Iterator[Finding]:
    if not choice["correct"] and choice["misconception"] is None:
        yield "", _("choice %(number)s is wrong but names no misconception") % {"number": position}


def question_choices_fit_kind(question: dict, position: int) -> Iterator[Finding]:
    correct = [choice["correct"] for choice in question["choices"]]
    for problem in choice_set_problems(question["kind"], correct):
        yield "choices", problem


def problem_makes_variants(problem: dict, position: int) -> Iterator[Finding]:
    """The engine family exists and its parameters and tolerance (formula checks included) fit.

    The tolerance goes to the family's check as written, even when it is not a number ≥ 0, so
    the author also reads what the engine makes of it.
    """
    validator = problem_validator()
    if validator and problem["family"]:
        found = validator(problem["family"], problem["params"], problem["atol"], problem["rtol"])
        yield from found.items()


def quiz_window_and_policy(quiz: dict, position: int) -> Iterator[Finding]:
    if quiz["opens_at"] and quiz["closes_at"] and quiz["closes_at"] <= quiz["opens_at"]:
        yield "closes_at", _("must be after opens_at")
    for problem in quiz_policy_problems(
        mode=quiz["mode"],
        show_feedback=quiz["show_feedback"],
        release_answers=quiz["release_answers"],
        has_close=quiz["closes_at"] is not None,
        extra_try_penalty=quiz["extra_try_penalty"],
    ):
        yield "", problem


def item_names_one_target(item: dict, position: int) -> Iterator[Finding]:
    if sum(item[name] is not None for name in ("question", "problem", "pool")) != 1:
        yield "", _("an item names exactly one of question, problem or pool")


def pool_has_members(pool: dict, position: int) -> Iterator[Finding]:
    if not pool["questions"] and not pool["problems"]:
        yield "", _("a pool needs at least one question or problem")


def pool_draw_problem(*, pool: str, size: int, items: list[int]) -> str | None:
    """What is wrong with `items` (their numbers in the quiz) drawing from a pool of `size`
    members, or None: each item of an attempt draws a different member (shared with the
    admin)."""
    if len(items) <= size:
        return None
    listed = ", ".join(str(number) for number in items)
    return ngettext(
        "items %(items)s draw from pool %(pool)s, which has %(size)s member: each item draws a "
        "different one, so add members or draw from it in at most %(size)s item",
        "items %(items)s draw from pool %(pool)s, which has %(size)s members: each item draws a "
        "different one, so add members or draw from it in at most %(size)s items",
        size,
    ) % {"items": listed, "pool": pool, "size": size}
