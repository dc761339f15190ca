"""A formula problem's mistakes: each code maps to a formula, or to an object with the formula,
the misconception it shows (the code's own when left out) and feedback of its own.

    "mistakes": {"std-for-variance": "sqrt(d_k) * s",
                 "width-ignored": {"formula": "s^2", "misconception": "width",
                                   "feedback": "Where did d_k go?"}}
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from grading.engine.answers.formatting import format_count
from grading.engine.i18n import gettext as _

MAX_FEEDBACK_LENGTH = 2_000
_MISTAKE_KEYS = {"formula", "misconception", "feedback"}
_CODE = re.compile(r"^[a-z0-9][a-z0-9-]*$")


def mistake_formula(entry: object) -> object:
    """The formula of a mistake entry: the entry itself, or its "formula" when an object."""
    return entry.get("formula") if isinstance(entry, Mapping) else entry


def mistake_misconceptions(params: Mapping[str, Any]) -> dict[str, str]:
    """Each mistake code of formula params and the misconception code it names."""
    mistakes = params.get("mistakes") if isinstance(params, Mapping) else None
    if not isinstance(mistakes, Mapping):
        return {}
    return {
        str(code): str(entry.get("misconception") or code)
        if isinstance(entry, Mapping)
        else str(code)
        for code, entry in mistakes.items()
    }


def mistake_entry_errors(entry: Mapping[str, Any]) -> dict[str, str]:
    """Why an object mistake entry is wrong, keyed by its key (formula, misconception, feedback)."""
    errors: dict[str, str] = {}
    extra = set(entry) - _MISTAKE_KEYS
    if extra:
        errors["formula"] = _("Unknown key %(key)s; use %(keys)s.") % {
            "key": repr(sorted(map(str, extra))[0]),
            "keys": ", ".join(sorted(_MISTAKE_KEYS)),
        }
    if not isinstance(entry.get("formula"), str | list):
        errors["formula"] = _("Give the mistake as a formula.")
    misconception = entry.get("misconception")
    if misconception is not None and (
        not isinstance(misconception, str) or not _CODE.match(misconception)
    ):
        errors["misconception"] = _("A misconception code uses lowercase letters, digits, hyphens.")
    feedback = entry.get("feedback")
    if feedback is not None and (
        not isinstance(feedback, str) or len(feedback) > MAX_FEEDBACK_LENGTH
    ):
        errors["feedback"] = _("Feedback is text of at most %(count)s characters.") % {
            "count": format_count(MAX_FEEDBACK_LENGTH)
        }
    return errors
