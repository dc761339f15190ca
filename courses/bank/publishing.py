"""What a bank publishes: `published` for the whole file, and per question, problem and quiz.

An entity's own `published` wins over the file's; with neither, a new row starts unpublished and
a stored one keeps its state (re-importing a bank that says nothing never hides what an instructor
published in the admin). The normalised bank says true or false for each, so the importer writes
what is checked here: a published quiz holds only published content, its pools' members
included (courses.publishing keeps the same rule everywhere else).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

from django.utils.translation import gettext as _

from .schema import POOL, PROBLEM, QUESTION, QUIZ, Entity


class Located(Protocol):
    """What this module reads of a located entity (bank.validate.Located): its kind, its
    normalised values (published is filled in here) and where it is in the file."""

    entity: Entity
    values: dict
    where: str


PUBLISHABLE = (QUESTION, PROBLEM, QUIZ)


def resolve_published(found: Iterable[Located], *, file_published: bool | None) -> None:
    """Give every question, problem and quiz of the bank its published state, in place."""
    found = list(found)
    for entity in PUBLISHABLE:
        silent = [f for f in found if f.entity is entity and f.values.get("published") is None]
        if file_published is not None or not silent:
            for located in silent:
                located.values["published"] = bool(file_published)
            continue
        slugs = [located.values["slug"] for located in silent]
        stored = set(
            entity.model.objects.filter(slug__in=slugs, published=True).values_list(
                "slug", flat=True
            )
        )
        for located in silent:
            located.values["published"] = located.values["slug"] in stored


def published_quiz_issues(found: Iterable[Located]) -> Iterator[tuple[str, str]]:
    """(where, message) for each item of a published quiz whose content is not published."""
    found = list(found)
    published = {
        (f.entity.noun, f.values["slug"]): f.values["published"]
        for f in found
        if f.entity in (QUESTION, PROBLEM)
    }
    pools = {f.values["slug"]: f.values for f in found if f.entity is POOL}
    for quiz in (f for f in found if f.entity is QUIZ and f.values["published"]):
        for number, item in enumerate(quiz.values["items"], start=1):
            # A reference of the wrong type (a mapping, say) is reported by validate.
            members = [(noun, item.get(noun)) for noun in ("question", "problem")]
            pool = pools.get(item["pool"]) if isinstance(item.get("pool"), str) else None
            if pool is not None:
                members += [("question", slug) for slug in pool["questions"]]
                members += [("problem", slug) for slug in pool["problems"]]
            for noun, slug in members:
                if isinstance(slug, str) and published.get((noun, slug)) is False:
                    named = {"noun": noun, "slug": repr(slug), "pool": repr(item.get("pool"))}
                    if pool is not None:
                        message = _(
                            "the quiz is published but %(noun)s %(slug)s (in pool %(pool)s) is "
                            "not: publish it too (published: true), or leave the quiz unpublished"
                        )
                    else:
                        message = _(
                            "the quiz is published but %(noun)s %(slug)s is not: publish it too "
                            "(published: true), or leave the quiz unpublished"
                        )
                    yield (f"{quiz.where} › item {number}", message % named)
