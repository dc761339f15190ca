"""Publishing: the one rule a published quiz keeps, and the services that publish and unpublish.

What learners see is decided in courses.visibility (`learner_visible`): published content only. A
published quiz holds only published content, its pools' members included, so a learner who
opens it never meets a question or problem its instructor has not released. The rule is kept
from every side: publishing a quiz that holds unpublished content is refused, and so is
unpublishing content a published quiz holds; the admin's forms and the bank import refuse the
same with the item named, and a learner's start refuses with the item's number
(grading.services.attempts), never by leaving the item out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext as _

from .content_versions import content_changed
from .models import Pool, Problem, Question, Quiz, QuizItem


class PublishRefused(Exception):
    """Nothing was changed; `problems` names each quiz and item in the way."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Unpublished:
    """An unpublished question or problem a quiz holds, at its 1-based item number."""

    number: int
    noun: str
    slug: str
    pool: str = ""

    def __str__(self) -> str:
        named = {"number": self.number, "slug": self.slug, "pool": self.pool}
        if self.noun == "question":
            if self.pool:
                text = _("item %(number)s: question %(slug)s in pool %(pool)s is not published")
                return text % named
            return _("item %(number)s: question %(slug)s is not published") % named
        if self.pool:
            return _("item %(number)s: problem %(slug)s in pool %(pool)s is not published") % named
        return _("item %(number)s: problem %(slug)s is not published") % named


ItemContent = tuple[int, Question | None, Problem | None, Pool | None]


def unpublished_in(items: Iterable[ItemContent]) -> list[Unpublished]:
    """The unpublished content of a quiz's items, given as (number, question, problem, pool):
    saved items or an admin form's, whichever is about to be the quiz's."""
    found = []
    for number, question, problem, pool in items:
        if question is not None and not question.published:
            found.append(Unpublished(number, "question", question.slug))
        if problem is not None and not problem.published:
            found.append(Unpublished(number, "problem", problem.slug))
        if pool is not None:
            members = [
                *(("question", slug) for slug in _unpublished_slugs(pool.questions)),
                *(("problem", slug) for slug in _unpublished_slugs(pool.problems)),
            ]
            found += [Unpublished(number, noun, slug, pool.slug) for noun, slug in members]
    return found


def _unpublished_slugs(members: QuerySet) -> list[str]:
    return list(members.filter(published=False).order_by("slug").values_list("slug", flat=True))


def quiz_unpublished(quiz: Quiz, items: Sequence[QuizItem] | None = None) -> list[Unpublished]:
    """The unpublished content the quiz's saved items hold, in item order; `items`, when the
    caller has read them (in item order, with their question, problem and pool), saves the
    query."""
    if items is None:
        items = quiz.items.select_related("question", "problem", "pool").order_by("order", "id")
    return unpublished_in(
        (number, item.question, item.problem, item.pool) for number, item in enumerate(items, 1)
    )


def quiz_publish_problems(quizzes: Iterable[Quiz]) -> list[str]:
    """Why each quiz may not be published: every unpublished item, named."""
    return [
        _("quiz %(quiz)s: %(problem)s") % {"quiz": quiz.slug, "problem": found}
        for quiz in quizzes
        for found in quiz_unpublished(quiz)
    ]


def unpublish_problems(
    *, questions: Iterable[Question] = (), problems: Iterable[Problem] = ()
) -> list[str]:
    """Why these questions and problems may not be unpublished: each published quiz that
    holds one of them, directly or through a pool, named with it."""
    found = []
    for noun, rows in (("question", questions), ("problem", problems)):
        for row in rows:
            holders = (
                Quiz.objects.filter(published=True)
                .filter(Q(**{f"items__{noun}": row}) | Q(**{f"items__pool__{noun}s": row}))
                .order_by("slug")
                .distinct()
                .values_list("slug", flat=True)
            )
            if noun == "question":
                text = _(
                    "question %(slug)s is in published quiz %(quiz)s: unpublish the quiz first, "
                    "or take it out of the quiz"
                )
            else:
                text = _(
                    "problem %(slug)s is in published quiz %(quiz)s: unpublish the quiz first, "
                    "or take it out of the quiz"
                )
            found += [text % {"slug": row.slug, "quiz": quiz} for quiz in holders]
    return found


@transaction.atomic
def content_publish(*, rows: QuerySet, published: bool) -> int:
    """Publish (or unpublish) the questions, problems or quizzes of `rows`, all of them or,
    when one would break a published quiz, none (PublishRefused). Returns how many changed."""
    model = rows.model
    # Locked by key: the admin's list may come annotated (a count), which cannot be locked.
    pks = list(rows.values_list("pk", flat=True))
    locked = list(model.objects.select_for_update().filter(pk__in=pks).order_by("pk"))
    if published and model is Quiz:
        problems = quiz_publish_problems(locked)
    elif not published and model is Question:
        problems = unpublish_problems(questions=locked)
    elif not published and model is Problem:
        problems = unpublish_problems(problems=locked)
    else:
        problems = []
    if problems:
        raise PublishRefused(problems)
    changed = [row.pk for row in locked if row.published != published]
    content_changed(
        quiz_ids=changed if model is Quiz else [],
        question_ids=changed if model is Question else [],
        problem_ids=changed if model is Problem else [],
    )
    return model.objects.filter(pk__in=changed).update(published=published)


def start_refusal(quiz: Quiz, items: Sequence[QuizItem] | None = None) -> str:
    """Why a learner may not start an attempt at the quiz now, in their words (empty: they
    may): it is not published, or it holds content that is not (named by item number only:
    its slug is the instructor's business). `items` as quiz_unpublished takes them."""
    if not quiz.published:
        return gettext("This quiz is not published.")
    numbers = sorted({found.number for found in quiz_unpublished(quiz, items)})
    if not numbers:
        return ""
    listed = ", ".join(str(number) for number in numbers)
    return ngettext(
        "This quiz cannot start: its instructor has not published item %(items)s yet. "
        "Nothing was recorded; try again once they have.",
        "This quiz cannot start: its instructor has not published items %(items)s yet. "
        "Nothing was recorded; try again once they have.",
        len(numbers),
    ) % {"items": listed}
