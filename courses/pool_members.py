"""Which questions and problems a pool may hold: those of lessons in the pool's own course.

Only the pool's course draws from it (courses.pool_draws), and a fix to a drawn question changes
it for every quiz that can draw it (grading.regrade_fixes): a member from another course would
let one course's quizzes draw the other's questions, and tie the two answer keys together. The
admin (courses.pool_admin), the lesson bank import (courses.bank.importer) and the Moodle XML
import (courses.moodle_xml.importer) all ask `member_refusal`, each saying where the member is.
"""

from __future__ import annotations

from collections.abc import Iterable

from .models import Lesson, Pool, Problem, Question

Member = Question | Problem


def member_refusal(*, pool_lesson: Lesson, member_lesson: Lesson) -> str | None:
    """Why a pool of `pool_lesson` may not hold a question or problem of `member_lesson`, or
    None when it may (both lessons in one course)."""
    if member_lesson.course_id == pool_lesson.course_id:
        return None
    return (
        f"its lesson “{member_lesson.title}” is in the course “{member_lesson.course.title}”, "
        f"and a pool of the course “{pool_lesson.course.title}” may hold only questions and "
        "problems of lessons in its own course"
    )


def member_label(member: Member) -> str:
    """How a refusal names the member: question 'slug' or problem 'slug'."""
    noun = "question" if isinstance(member, Question) else "problem"
    return f"{noun} {member.slug!r}"


def foreign_members(
    *, pool_lesson: Lesson, questions: Iterable[int], problems: Iterable[int]
) -> list[tuple[Member, str]]:
    """The questions and problems (by id) a pool of `pool_lesson` may not hold, each with its
    refusal, questions first, each kind by slug (so a message reads the same on any database)."""
    found: list[tuple[Member, str]] = []
    for model, ids in ((Question, questions), (Problem, problems)):
        rows = model.objects.filter(pk__in=list(ids)).select_related("lesson__course")
        for member in rows.order_by("slug"):
            refusal = member_refusal(pool_lesson=pool_lesson, member_lesson=member.lesson)
            if refusal:
                found.append((member, refusal))
    return found


def stored_foreign_members(*, pools: Iterable[Pool]) -> list[tuple[Pool, Member, str]]:
    """The members each stored pool holds against the rule, each with its refusal: what an
    import checks inside its transaction, after moving lessons or rows, before it commits."""
    found = []
    for pool in pools:
        questions = pool.questions.values_list("pk", flat=True)
        problems = pool.problems.values_list("pk", flat=True)
        for member, refusal in foreign_members(
            pool_lesson=pool.lesson, questions=questions, problems=problems
        ):
            found.append((pool, member, refusal))
    return found
