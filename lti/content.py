"""How LTI names softgrade content: the custom parameters a link carries to say what it opens, and
the gradebook column (line item) a quiz or practice set gets, whether deep linking proposes it or
the first passback makes it."""

from __future__ import annotations

from dataclasses import dataclass

from courses.models import Lesson, Quiz
from courses.plain_math import plain_math

# Custom parameters a link carries (set by deep linking, or typed by an LMS administrator).
CUSTOM_QUIZ = "softgrade_quiz"
CUSTOM_PRACTICE = "softgrade_practice"
CUSTOM_MASTERY_PASSBACK = "softgrade_mastery_passback"


@dataclass(frozen=True)
class ContentLineItem:
    """The gradebook column for one quiz or practice set, as softgrade describes it to an LMS."""

    label: str
    resource_id: str
    score_maximum: float


def content_line_item(content: Quiz | Lesson) -> ContentLineItem:
    """A quiz is scored out of its items' points; a lesson's practice set out of its problems
    (one point per problem mastered). The label is plain text, so a title's $math$ is written
    out in Unicode ("√dₖ"): an LMS shows it as it is."""
    if isinstance(content, Quiz):
        return ContentLineItem(
            label=plain_math(content.title),
            resource_id=f"quiz:{content.slug}",
            score_maximum=float(sum(item.points for item in content.items.all())),
        )
    return ContentLineItem(
        label=f"Practice: {plain_math(content.title)}",
        resource_id=f"practice:{content.slug}",
        score_maximum=float(content.problems.for_practice().count()),
    )
