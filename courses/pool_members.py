"""Which questions and problems a pool may hold, and which pools a quiz may draw from: those of
lessons in its own course.

Only the pool's course draws from it, and a fix to a drawn question changes it for every quiz
that can draw it (grading.regrade_fixes): a member from another course would let one course's
quizzes draw the other's questions, and tie the two answer keys together. The admin
(courses.pool_admin: the pool's form, and the question's, problem's and lesson's forms when one
would move to another course), the lesson bank import (courses.bank.pool_members) and the
Moodle XML import (courses.moodle_xml.importer) all ask `member_refusal`, each saying where the
member is.

For the same reason a quiz draws only from pools of its own course: `draw_refusal`, asked by
the quiz's items in the admin (courses.admin, also when the quiz moves to another course's
lesson), by the draws added in one step (courses.pool_draws), and when a pool or a lesson would
move to another course (the admin, and the bank import of a lesson whose course changes).
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _

from .models import Course, Lesson, Pool, Problem, Question, QuizItem

Member = Question | Problem


def member_refusal(*, pool_lesson: Lesson, member_lesson: Lesson) -> str | None:
    """Why a pool of `pool_lesson` may not hold a question or problem of `member_lesson`, or
    None when it may (both lessons in one course)."""
    if member_lesson.course_id == pool_lesson.course_id:
        return None
    return _(
        "its lesson “%(lesson)s” is in the course “%(course)s”, and a pool of the course "
        "“%(pool_course)s” may hold only questions and problems of lessons in its own course"
    ) % {
        "lesson": member_lesson.title,
        "course": member_lesson.course.title,
        "pool_course": pool_lesson.course.title,
    }


def draw_refusal(*, pool_lesson: Lesson, quiz_lesson: Lesson) -> str | None:
    """Why a quiz of `quiz_lesson` may not draw from a pool of `pool_lesson`, or None when it
    may (both lessons in one course)."""
    if pool_lesson.course_id == quiz_lesson.course_id:
        return None
    return _(
        "its lesson “%(lesson)s” is in the course “%(course)s”, and a quiz of the course "
        "“%(quiz_course)s” may draw only from pools of lessons in its own course"
    ) % {
        "lesson": pool_lesson.title,
        "course": pool_lesson.course.title,
        "quiz_course": quiz_lesson.course.title,
    }


def member_label(member: Member) -> str:
    """How a refusal names the member: question 'slug' or problem 'slug'."""
    if isinstance(member, Question):
        return _("question '%(slug)s'") % {"slug": member.slug}
    return _("problem '%(slug)s'") % {"slug": member.slug}


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


def _as_moved(lesson: Lesson, moved: Lesson | None) -> Lesson:
    return moved if moved is not None and lesson.pk == moved.pk else lesson


def stored_foreign_members(
    *, pools: Iterable[Pool], moved: Lesson | None = None
) -> list[tuple[Pool, Member, str]]:
    """The members each stored pool holds against the rule, each with its refusal: what an
    import checks inside its transaction before it commits. `moved` is a lesson as it would be
    (moved to another course), standing in for the stored one: what the lesson admin checks."""

    found = []
    for pool in pools:
        members = [
            *pool.questions.select_related("lesson__course").order_by("slug"),
            *pool.problems.select_related("lesson__course").order_by("slug"),
        ]
        for member in members:
            refusal = member_refusal(
                pool_lesson=_as_moved(pool.lesson, moved),
                member_lesson=_as_moved(member.lesson, moved),
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


def draw_label(item: QuizItem, number: int) -> str:
    """How a refusal names a stored item drawing from a pool: item n of quiz 'slug'."""
    return _("item %(number)s of quiz '%(quiz)s' draws from pool '%(pool)s'") % {
        "number": number,
        "quiz": item.quiz.slug,
        "pool": item.pool.slug,
    }


def stored_foreign_draws(
    *, lessons: Q, moved: Lesson | None = None
) -> list[tuple[QuizItem, int, str]]:
    """The stored items that draw from a pool of another course than their quiz's, where the
    quiz or the pool is of a lesson `lessons` selects, each with its number in its quiz and its
    refusal, by quiz slug and number. `moved` stands in for its stored lesson, as in
    `stored_foreign_members`."""

    touched = Lesson.objects.filter(lessons)
    items = (
        QuizItem.objects.filter(pool__isnull=False)
        .filter(Q(quiz__lesson__in=touched) | Q(pool__lesson__in=touched))
        .select_related("quiz__lesson__course", "pool__lesson__course")
    )
    found = []
    for item in items:
        refusal = draw_refusal(
            pool_lesson=_as_moved(item.pool.lesson, moved),
            quiz_lesson=_as_moved(item.quiz.lesson, moved),
        )
        if refusal:
            numbers = list(item.quiz.items.order_by("order", "pk").values_list("pk", flat=True))
            found.append((item, numbers.index(item.pk) + 1, refusal))
    return sorted(found, key=lambda row: (row[0].quiz.slug, row[1]))


def moved_lesson_refusals(*, lesson: Lesson, course: Course) -> list[str]:
    """Why a stored lesson may not move to `course`: a pool of another lesson holding its
    questions or problems, a pool of its own holding another lesson's, or a quiz drawing from a
    pool of one and not the other."""
    moved = Lesson(pk=lesson.pk, title=lesson.title, course=course)
    found = stored_foreign_members(pools=pools_touching(Q(pk=lesson.pk)), moved=moved)
    members = [
        _("%(member)s in pool '%(pool)s': %(refusal)s")
        % {"member": member_label(member), "pool": pool.slug, "refusal": refusal}
        for pool, member, refusal in found
        # Only what the move breaks: a touched pool's other members are not this lesson's.
        if lesson.pk in (pool.lesson_id, member.lesson_id)
    ]
    draws = stored_foreign_draws(lessons=Q(pk=lesson.pk), moved=moved)
    return members + [f"{draw_label(item, number)}: {refusal}" for item, number, refusal in draws]


def moved_pool_refusals(*, pool: Pool, lesson: Lesson) -> list[str]:
    """Why a stored pool may not move to `lesson`: each quiz drawing from it that is not of
    the lesson's course."""
    quizzes = {item.quiz for item in pool.quiz_items.select_related("quiz__lesson__course")}
    found = []
    for quiz in sorted(quizzes, key=lambda quiz: quiz.slug):
        refusal = draw_refusal(pool_lesson=lesson, quiz_lesson=quiz.lesson)
        if refusal:
            found.append(
                _("quiz '%(quiz)s' draws from it: %(refusal)s")
                % {"quiz": quiz.slug, "refusal": refusal}
            )
    return found


def moved_member_refusals(*, member: Member, lesson: Lesson) -> list[str]:
    """Why a stored question or problem may not move to `lesson`: each pool holding it that is
    not of the lesson's course."""
    found = []
    for pool in member.pools.select_related("lesson__course").order_by("slug"):
        refusal = member_refusal(pool_lesson=pool.lesson, member_lesson=lesson)
        if refusal:
            found.append(
                _("it is in pool '%(pool)s': %(refusal)s") % {"pool": pool.slug, "refusal": refusal}
            )
    return found
