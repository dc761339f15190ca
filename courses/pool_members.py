"""Which questions and problems a pool may hold: those of lessons in the pool's own course.

Only the pool's course draws from it (courses.pool_draws), and a fix to a drawn question changes
it for every quiz that can draw it (grading.regrade_fixes): a member from another course would
let one course's quizzes draw the other's questions, and tie the two answer keys together. The
admin (courses.pool_admin: the pool's form, and the question's, problem's and lesson's forms
when one would move to another course), the lesson bank import (courses.bank.pool_members) and
the Moodle XML import (courses.moodle_xml.importer) all ask `member_refusal`, each saying where
the member is.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Q, QuerySet

from .models import Course, Lesson, Pool, Problem, Question

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


def stored_foreign_members(
    *, pools: Iterable[Pool], moved: Lesson | None = None
) -> list[tuple[Pool, Member, str]]:
    """The members each stored pool holds against the rule, each with its refusal: what an
    import checks inside its transaction before it commits. `moved` is a lesson as it would be
    (moved to another course), standing in for the stored one: what the lesson admin checks."""

    def as_moved(lesson: Lesson) -> Lesson:
        return moved if moved is not None and lesson.pk == moved.pk else lesson

    found = []
    for pool in pools:
        members = [
            *pool.questions.select_related("lesson__course").order_by("slug"),
            *pool.problems.select_related("lesson__course").order_by("slug"),
        ]
        for member in members:
            refusal = member_refusal(
                pool_lesson=as_moved(pool.lesson), member_lesson=as_moved(member.lesson)
            )
            if refusal:
                found.append((pool, member, refusal))
    return found


def pools_touching(lessons: Q) -> QuerySet[Pool]:
    """The pools of the lessons `lessons` selects (a condition on a lesson), or holding a
    question or problem of one, by slug."""
    touched = Pool.objects.filter(
        Q(lesson__in=Lesson.objects.filter(lessons))
        | Q(questions__lesson__in=Lesson.objects.filter(lessons))
        | Q(problems__lesson__in=Lesson.objects.filter(lessons))
    )
    pools = Pool.objects.filter(pk__in=touched.values("pk"))
    return pools.select_related("lesson__course").order_by("slug")


def moved_lesson_refusals(*, lesson: Lesson, course: Course) -> list[str]:
    """Why a stored lesson may not move to `course`: a pool of another lesson holding its
    questions or problems, or a pool of its own holding another lesson's."""
    moved = Lesson(pk=lesson.pk, title=lesson.title, course=course)
    found = stored_foreign_members(pools=pools_touching(Q(pk=lesson.pk)), moved=moved)
    return [
        f"{member_label(member)} in pool {pool.slug!r}: {refusal}"
        for pool, member, refusal in found
        # Only what the move breaks: a touched pool's other members are not this lesson's.
        if lesson.pk in (pool.lesson_id, member.lesson_id)
    ]


def moved_member_refusals(*, member: Member, lesson: Lesson) -> list[str]:
    """Why a stored question or problem may not move to `lesson`: each pool holding it that is
    not of the lesson's course."""
    found = []
    for pool in member.pools.select_related("lesson__course").order_by("slug"):
        refusal = member_refusal(pool_lesson=pool.lesson, member_lesson=lesson)
        if refusal:
            found.append(f"it is in pool {pool.slug!r}: {refusal}")
    return found
