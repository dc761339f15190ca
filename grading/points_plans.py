"""What a change of a quiz's item points does to its attempts, as grading/quiz_edits.py plans
and applies it: each attempt's total and maximum before and after, who gains and who loses, the
overrides capped, the learners the LMS hears of, and the words the admin and the bank import
show for it (one wording, before saving and after)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from django.template.defaultfilters import floatformat
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from courses.models import Quiz
from grading.models import Attempt, Regrade


@dataclass(frozen=True)
class PointsChange:
    """One item's points before and after; `number` is its place in the quiz (1 for the first)."""

    item_id: int
    number: int
    old: int
    new: int


@dataclass(frozen=True)
class ItemRescore:
    """One changed item in one attempt: its score in points, and the attempt's total, before
    and after (changes are made item by item, in the quiz's order)."""

    item_id: int
    old_score: float
    new_score: float
    old_total: float
    new_total: float


@dataclass(frozen=True)
class AttemptRescore:
    """What the change does to one attempt: its total and maximum before and after."""

    attempt_id: int
    user_id: int
    learner: str
    number: int
    status: str
    preview: bool
    old_score: float
    new_score: float
    old_max: float
    new_max: float
    items: tuple[ItemRescore, ...]

    @property
    def change(self) -> float:
        return self.new_score - self.old_score

    @property
    def moved(self) -> bool:
        return (self.old_score, self.old_max) != (self.new_score, self.new_max)


@dataclass(frozen=True)
class CappedOverride:
    """An override above its item's new points: it counts for the item's points."""

    learner: str
    item_number: int
    override: float
    points: int


@dataclass(frozen=True)
class PointsPlan:
    """What changing the points does to a quiz's attempts (applied=False: nothing written yet),
    or what it did. Every attempt is listed, an instructor's preview too (kept consistent, never
    counted nor passed back)."""

    quiz: Quiz
    changes: tuple[PointsChange, ...]
    attempts: tuple[AttemptRescore, ...]
    # How many attempts the quiz has: learners' (counted) and instructors' previews.
    counted: int = 0
    previews: int = 0
    capped: tuple[CappedOverride, ...] = ()
    applied: bool = False
    regrades: tuple[Regrade, ...] = ()
    # The attempts the LMS is told of (one per learner; applied only).
    passed_back: tuple[int, ...] = ()
    # Why the user the plan was made for may not apply it ("" when they may).
    refusal: str = ""

    @property
    def learners(self) -> list[AttemptRescore]:
        return [a for a in self.attempts if not a.preview]

    @property
    def gainers(self) -> list[AttemptRescore]:
        return [a for a in self.learners if a.change > 0]

    @property
    def losers(self) -> list[AttemptRescore]:
        return [a for a in self.learners if a.change < 0]

    @property
    def told(self) -> list[AttemptRescore]:
        """Per learner, one submitted attempt whose score or maximum moved: the LMS hears once."""
        found: dict[int, AttemptRescore] = {}
        for entry in self.learners:
            if entry.status == Attempt.Status.SUBMITTED and entry.moved:
                found.setdefault(entry.user_id, entry)
        return list(found.values())

    @property
    def digest(self) -> str:
        """A fingerprint of the plan: applying with it refuses a change that no longer matches."""
        body = [
            [[c.item_id, c.old, c.new] for c in self.changes],
            [[a.attempt_id, a.status, a.old_score, a.new_score, a.old_max] for a in self.attempts],
        ]
        encoded = json.dumps(body, separators=(",", ":"))
        return hashlib.sha256(encoded.encode()).hexdigest()

    def notice(self) -> str:
        """How many attempts the quiz has and what a points change does to them."""
        learners, previews = self.counted, self.previews
        if not learners + previews:
            return _("This quiz has no attempts yet: its points can change freely.")
        said = ngettext(
            "This quiz has %(count)d attempt",
            "This quiz has %(count)d attempts",
            learners,
        ) % {"count": learners}
        if previews:
            said += ngettext(
                " (and %(count)d instructor's preview)",
                " (and %(count)d instructors' previews)",
                previews,
            ) % {"count": previews}
        return said + _(
            "; changing points regrades them: every total and maximum is recomputed, who gains "
            "and who loses is recorded, and the LMS is sent each changed score once."
        )

    def outcome(self) -> str:
        """What the change does (or did): each item's points, who gains and who loses, the new
        maximum, the overrides capped and the learners whose LMS gradebook hears of it."""
        if not self.changes:
            return ""
        parts = [
            _("Item %(number)d: %(old)d → %(new)d points.")
            % {"number": c.number, "old": c.old, "new": c.new}
            for c in self.changes
        ]
        if not self.attempts:
            return " ".join(parts)
        gainers, losers = self.gainers, self.losers
        parts.append(
            ngettext(
                "%(count)d learner's attempt gains",
                "%(count)d learners' attempts gain",
                len(gainers),
            )
            % {"count": len(gainers)}
            + _names(gainers)
            + ngettext("; %(count)d loses", "; %(count)d lose", len(losers))
            % {"count": len(losers)}
            + _names(losers)
            + ngettext(
                "; %(count)d keeps its score.",
                "; %(count)d keep their score.",
                len(self.learners) - len(gainers) - len(losers),
            )
            % {"count": len(self.learners) - len(gainers) - len(losers)}
        )
        old_max, new_max = self.attempts[0].old_max, self.attempts[0].new_max
        parts.append(
            _("Every attempt is now out of %(new)s (was %(old)s).")
            % {"new": _number(new_max), "old": _number(old_max)}
        )
        parts += [
            _(
                "%(learner)s's override of %(override)s on item %(number)d is above its new "
                "%(points)d points: it counts for %(points)d."
            )
            % {
                "learner": capped.learner,
                "override": _number(capped.override),
                "number": capped.item_number,
                "points": capped.points,
            }
            for capped in self.capped
        ]
        told = len(self.told)
        parts.append(
            ngettext(
                "%(count)d learner's score is sent to the LMS.",
                "%(count)d learners' scores are sent to the LMS.",
                told,
            )
            % {"count": told}
        )
        return " ".join(parts)


def _number(value: float) -> str:
    """Points as the pages show them: 2, 1.50."""
    return floatformat(value, -2)


def _names(entries: list[AttemptRescore], shown: int = 5) -> str:
    """(ann +2, ben +2, …) for the first `shown` of them."""
    if not entries:
        return ""
    named = [f"{e.learner} {'+' if e.change > 0 else '−'}{_number(abs(e.change))}" for e in entries]
    more = ", …" if len(named) > shown else ""
    return f" ({', '.join(named[:shown])}{more})"
