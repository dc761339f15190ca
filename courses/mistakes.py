"""Adding a named mistake to a formula problem: a formula of the problem's variables whose value a
learner gives when they hold a misconception, named by that misconception's code.

The instructor pages (teaching) call this when an instructor turns a group of unexplained wrong
answers into a named mistake. It checks what the admin and a bank import check: the problem's
parameters, the new mistake included, go through the engine's validation named in settings
(SOFTGRADE_PROBLEM_VALIDATOR, the bank's `problem_validator`: the formula reads, is finite and
differs from the answer on every validation seed), the code names a misconception, and a new
misconception's explanation renders. Variants made afterwards carry the mistake in their grading
key and name it; answers already given keep their verdicts.
"""

from __future__ import annotations

import copy
import re

from django.db import transaction

from courses.bank.rules import problem_validator
from courses.markup import check_markup
from courses.models import Misconception, Problem

FORMULA_FAMILY = "formula"  # the engine's key for instructor formula problems
CODE = re.compile(r"^[a-z0-9][a-z0-9-]*$")  # what a formula problem's mistake code may be
CODE_LENGTH = Misconception._meta.get_field("code").max_length
TITLE_LENGTH = Misconception._meta.get_field("title").max_length


class MistakeRefused(ValueError):
    """The mistake cannot be added; .errors maps a field (formula, misconception, code, title,
    explanation, problem) to what is wrong with it."""

    def __init__(self, errors: dict[str, str]) -> None:
        self.errors = dict(errors)
        super().__init__("; ".join(f"{name}: {message}" for name, message in self.errors.items()))


def _new_misconception_errors(*, code: str, title: str, explanation: str) -> dict[str, str]:
    errors: dict[str, str] = {}
    if not CODE.match(code):
        errors["code"] = (
            "Use lowercase letters, digits and hyphens, starting with a letter or digit."
        )
    elif len(code) > CODE_LENGTH:
        errors["code"] = f"Use at most {CODE_LENGTH} characters."
    elif Misconception.objects.filter(code=code).exists():
        errors["code"] = (
            f"A misconception with the code {code!r} exists: pick it, or choose another."
        )
    if not title.strip():
        errors["title"] = "Give the misconception a title."
    elif len(title) > TITLE_LENGTH:
        errors["title"] = f"Use at most {TITLE_LENGTH} characters."
    if not explanation.strip():
        errors["explanation"] = "Explain to learners why the idea is wrong."
    else:
        problems = check_markup(explanation)
        if problems:
            errors["explanation"] = "; ".join(problems)
    return errors


def formula_mistake_add(
    *,
    problem: Problem,
    formula: str,
    misconception: Misconception | None = None,
    code: str = "",
    title: str = "",
    explanation: str = "",
) -> Misconception:
    """Add the mistake `formula` to a formula problem, named by `misconception` (one of the
    problem's lesson's) or by a new misconception of that lesson made from `code`, `title` and
    `explanation`; return the misconception. Raise MistakeRefused, changing nothing, when
    anything is wrong."""
    formula = formula.strip()
    with transaction.atomic():
        locked = Problem.objects.select_for_update().get(pk=problem.pk)
        if locked.family != FORMULA_FAMILY:
            raise MistakeRefused({"problem": "Only a formula problem takes new named mistakes."})
        errors: dict[str, str] = {}
        if not formula:
            errors["formula"] = "Give the mistake as a formula of the problem's variables."
        if misconception is not None:
            if misconception.lesson_id != locked.lesson_id:
                errors["misconception"] = "Pick a misconception of the problem's lesson."
            code = misconception.code
        else:
            errors.update(
                _new_misconception_errors(code=code, title=title, explanation=explanation)
            )
        params = copy.deepcopy(locked.params) if isinstance(locked.params, dict) else {}
        mistakes = params.get("mistakes") or {}
        if code in mistakes:
            errors.setdefault(
                "misconception" if misconception is not None else "code",
                f"The problem already has the mistake {code!r} ({mistakes[code]}).",
            )
        if errors:
            raise MistakeRefused(errors)
        params["mistakes"] = {**mistakes, code: formula}
        validator = problem_validator()
        found = validator(locked.family, params, locked.atol, locked.rtol) if validator else {}
        if found:
            # The new formula's own error first: the rest of the problem was valid before.
            mine = found.get(f"params.mistakes.{code}")
            raise MistakeRefused({"formula": mine or "; ".join(found.values())})
        if misconception is None:
            misconception = Misconception.objects.create(
                code=code, lesson_id=locked.lesson_id, title=title.strip(), explanation=explanation
            )
        locked.params = params
        locked.save(update_fields=["params"])
    problem.params = params
    return misconception
