"""Adding k draws from a pool to a quiz in one step.

A quiz draws k members of a pool by naming it in k items (courses.models.Pool); an instructor
says "draw 3 from this pool, 2 points each" once, and this adds the three items at the end of
the quiz, under the same rule the quiz's own form and the lesson bank apply (each item of an
attempt draws a different member, so no more items may name a pool than it has members).
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max
from django.utils.text import capfirst
from django.utils.translation import gettext as _

from courses.attempted_quizzes import attempted, items_kept, points_plan
from courses.bank.rules import pool_draw_problem
from courses.content_versions import content_changed
from courses.models import Pool, Quiz, QuizItem
from courses.pool_members import draw_refusal
from courses.publishing import unpublished_in

MOST_DRAWS = 50


class DrawsRefused(ValueError):
    """The draws cannot be added; nothing was written. The message says why."""


def quiz_draws_add(*, quiz: Quiz, pool: Pool, count: int, points: int) -> list[QuizItem]:
    """`count` new items of the quiz, each drawing from `pool` and worth `points`, after its
    last item. Refused (DrawsRefused, nothing written) for a pool of another course, a count
    or points out of range, more items naming the pool than it has members, unpublished
    members drawn by a published quiz, or a quiz with attempts (courses.attempted_quizzes: its
    items stay as they are)."""
    if not 1 <= count <= MOST_DRAWS:
        raise DrawsRefused(
            _("Draw between 1 and %(most)s members at a time.") % {"most": MOST_DRAWS}
        )
    if points < 1:
        raise DrawsRefused(_("Each draw is worth at least one point."))
    refusal = draw_refusal(pool_lesson=pool.lesson, quiz_lesson=quiz.lesson)
    if refusal:
        raise DrawsRefused(
            _("The pool “%(pool)s” belongs to another course: %(refusal)s.")
            % {"pool": pool.title, "refusal": refusal}
        )
    with transaction.atomic():
        # One writer at a time per quiz: two instructors adding draws together could otherwise
        # both pass the size check.
        published = (
            Quiz.objects.select_for_update().filter(pk=quiz.pk).values_list("published", flat=True)
        ).get()
        plan = points_plan(quiz=quiz)
        if attempted(plan):
            raise DrawsRefused(capfirst(items_kept(plan)))
        items = list(quiz.items.order_by("order", "pk").values_list("pool_id", flat=True))
        # A published quiz holds only published content (courses.publishing).
        unpublished = unpublished_in([(len(items) + 1, None, None, pool)]) if published else []
        if unpublished:
            listed = "; ".join(str(found) for found in unpublished)
            raise DrawsRefused(
                _("A published quiz holds only published content: %(item)s.") % {"item": listed}
            )
        numbers = [n for n, pool_id in enumerate(items, start=1) if pool_id == pool.pk]
        numbers += list(range(len(items) + 1, len(items) + count + 1))
        problem = pool_draw_problem(pool=f"“{pool.title}”", size=pool.size(), items=numbers)
        if problem:
            raise DrawsRefused(problem[0].upper() + problem[1:] + ".")
        last = quiz.items.aggregate(last=Max("order"))["last"]
        start = 0 if last is None else last + 1
        added = QuizItem.objects.bulk_create(
            QuizItem(quiz=quiz, pool=pool, points=points, order=start + n) for n in range(count)
        )
        content_changed(quiz_ids=[quiz.pk])
        return added
