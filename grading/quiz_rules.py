"""A quiz's rules in the words learners read, derived from its settings in one place.

The quiz page's facts and the attempt page's lead both say them from here, so neither can
disagree with the other or with the quiz's settings. A quiz's description is the author's
account of what the quiz covers; the bank's own test keeps settings out of it.
"""

from __future__ import annotations

import math
from typing import Protocol

from django.utils.formats import number_format
from django.utils.translation import gettext, gettext_lazy, gettext_noop, ngettext, pgettext

from courses.models import Quiz
from grading import policy
from grading.accommodations import LearnerRules

# Shares a teacher would name in words; any other reads as a percentage.
SHARE_WORDS = {
    1 / 2: gettext_lazy("half"),
    1 / 3: gettext_lazy("a third"),
    2 / 3: gettext_lazy("two thirds"),
    1 / 4: gettext_lazy("a quarter"),
    3 / 4: gettext_lazy("three quarters"),
    1 / 5: gettext_lazy("a fifth"),
    1.0: gettext_lazy("all"),
}


def share_words(share: float) -> str:
    """A share of an item's points in words: 'a third', 'half', else '20%'. A share entered
    as 0.3333 in the admin reads as a third too."""
    for value, words in SHARE_WORDS.items():
        if math.isclose(share, value, abs_tol=5e-4):
            return str(words)
    # In the page's language: "20%" in English, "20 %" in German.
    return pgettext("a share of an item's points", "%(percent)s%%") % {
        "percent": number_format(round(share * 100))
    }


# Marked here, translated where it is said (a plain string, so callers can compare with it).
ROUNDING_RETRY = gettext_noop(
    "An answer that is right but given to too few significant figures costs no try: the "
    "feedback says how many are needed."
)


def tries_rule(quiz: Quiz) -> str:
    """What the quiz's tries per item are and how they score, as one or two sentences, and
    whether a too coarsely rounded answer gives its try back (grading.scores.try_counts)."""
    if not policy.immediate_feedback(quiz):
        return gettext(
            "One answer per item, which you can change as often as you like until you submit."
        )
    tries = quiz.tries_per_item
    if tries == 1:
        rule = gettext("One try per item.")
    elif not quiz.extra_try_penalty:
        rule = ngettext(
            "%(count)d try per item; your best try counts.",
            "%(count)d tries per item; your best try counts.",
            tries,
        ) % {"count": tries}
    else:
        rule = ngettext(
            "%(count)d try per item. Each try after the first costs %(share)s of the item's "
            "points (an item never scores below 0), and your best try counts.",
            "%(count)d tries per item. Each try after the first costs %(share)s of the item's "
            "points (an item never scores below 0), and your best try counts.",
            tries,
        ) % {"count": tries, "share": share_words(quiz.extra_try_penalty)}
    return f"{rule} {gettext(ROUNDING_RETRY)}" if quiz.rounding_retries else rule


class TimeLimited(Protocol):
    """What the time rule reads: a Quiz, or a learner's rules (grading.accommodations)."""

    time_limit_minutes: int | None


def time_rule(rules: TimeLimited) -> str:
    """The time limit, or that there is none."""
    minutes = rules.time_limit_minutes
    if not minutes:
        return pgettext("time limit", "None")
    return ngettext(
        "%(count)d minute, from when you start an attempt",
        "%(count)d minutes, from when you start an attempt",
        minutes,
    ) % {"count": minutes}


def overdue_rule(*, quiz: Quiz, rules: LearnerRules) -> str:
    """What happens to an attempt not submitted when time runs out ("" when it never does:
    no time limit and no due date)."""
    if not (rules.time_limit_minutes or rules.closes_at):
        return ""
    grace = quiz.grace_minutes
    submit = quiz.overdue_handling == Quiz.OverdueHandling.SUBMIT
    if not grace:
        if submit:
            return gettext("If you have not submitted, the answers you saved are submitted.")
        return gettext(
            "If you have not submitted, the attempt is closed unsubmitted, with no score."
        )
    then = (
        gettext("the answers you saved are submitted")
        if submit
        else gettext("the attempt is closed unsubmitted, with no score")
    )
    return ngettext(
        "You may still submit for %(count)d minute (no answer is saved after the deadline); "
        "then, if you have not, %(then)s.",
        "You may still submit for %(count)d minutes (no answer is saved after the deadline); "
        "then, if you have not, %(then)s.",
        grace,
    ) % {"count": grace, "then": then}


def accommodation_rules(rules: LearnerRules) -> list[str]:
    """What the learner's accommodation changes, one sentence each (their own due date is
    shown as a time on the page, in the learner's own zone, so it has no sentence here)."""
    sentences = []
    if rules.extra_minutes:
        sentences.append(
            ngettext(
                "You have %(extra)d extra minute",
                "You have %(extra)d extra minutes",
                rules.extra_minutes,
            )
            % {"extra": rules.extra_minutes}
            + ngettext(
                ": %(total)d minute in all.",
                ": %(total)d minutes in all.",
                rules.time_limit_minutes,
            )
            % {"total": rules.time_limit_minutes}
        )
    if rules.extra_attempts:
        sentences.append(
            ngettext(
                "You have %(extra)d extra attempt",
                "You have %(extra)d extra attempts",
                rules.extra_attempts,
            )
            % {"extra": rules.extra_attempts}
            + ngettext(": %(total)d in all.", ": %(total)d in all.", rules.attempts_allowed)
            % {"total": rules.attempts_allowed}
        )
    return sentences
