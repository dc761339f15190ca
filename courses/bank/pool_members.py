"""The import's last check: no pool it touched holds a question or problem of another course,
and no quiz draws from a pool of another course.

A bank's own pools name only the bank's questions and problems, but an import can still leave a
pool holding another course's: a lesson moved to another course (its `course`) takes its
questions and problems away from the pools of its old course's other lessons, and its own pools
away from their members there; likewise its quizzes from the pools they draw from there, and
its pools from the quizzes that draw from them. (A bank's own quiz items name only its own
pools.) So the check runs on what is stored, inside the import's
transaction, after everything is written and before it commits: any finding is a BankError, and
the transaction writes nothing. The rules themselves are courses.pool_members's.
"""

from __future__ import annotations

from django.db.models import Q
from django.utils.translation import gettext as _

from ..models import Pool, Question
from ..pool_members import (
    Member,
    draw_label,
    member_label,
    pools_touching,
    stored_foreign_draws,
    stored_foreign_members,
)
from .issues import BankError, BankIssue


def foreign_members_refuse(*, sources: list[str], banks: list[dict]) -> None:
    """Raise BankError naming every member of another course in a pool of, or holding rows of,
    the lessons of the written `banks` (read from the files named `sources`), and every item
    drawing from a pool of another course where the quiz or the pool is of one of them, each
    located in the bank that put it there."""
    written = list(zip(sources, banks, strict=True))
    lessons = [bank["lesson"]["slug"] for _, bank in written]
    found = stored_foreign_members(pools=pools_touching(Q(slug__in=lessons)))
    issues = []
    for pool, member, refusal in found:
        where = _where(written, pool, member)
        # None: a membership this import did not make (neither side in a written lesson); the
        # admin's to mend, not this bank's to be refused for.
        if where is not None:
            message = _("%(member)s cannot be in pool %(pool)s: %(refusal)s") % {
                "member": member_label(member),
                "pool": repr(pool.slug),
                "refusal": refusal,
            }
            issues.append(BankIssue(where, message))
    for item, number, refusal in stored_foreign_draws(lessons=Q(slug__in=lessons)):
        # One of the two is of a written lesson, whose course is now the one its bank names.
        where = _moved_where(written, (item.quiz.lesson.slug, item.pool.lesson.slug))
        issues.append(BankIssue(where, f"{draw_label(item, number)}: {refusal}"))
    if issues:
        raise BankError(issues)


def _where(written: list[tuple[str, dict]], pool: Pool, member: Member) -> str | None:
    """The member as its bank lists it; else the course of the bank whose lesson (the pool's or
    the member's) moved; None when neither lesson was written."""
    section = "questions" if isinstance(member, Question) else "problems"
    for source, bank in written:
        if bank["lesson"]["slug"] != member.lesson.slug:
            continue
        for index, item in enumerate(bank[section], start=1):
            if item["slug"] == member.slug:
                return f"{source} › {section}[{index}] ({member.slug})"
    if {member.lesson.slug, pool.lesson.slug} & {bank["lesson"]["slug"] for _, bank in written}:
        return _moved_where(written, (member.lesson.slug, pool.lesson.slug))
    return None


def _moved_where(written: list[tuple[str, dict]], lessons: tuple[str, str]) -> str:
    """The course of the first written bank whose lesson is one of `lessons`."""
    source = next(source for source, bank in written if bank["lesson"]["slug"] in lessons)
    return f"{source} › course"
