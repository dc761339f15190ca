"""Instructors' notes on a problem's answers: how a group of unexplained wrong answers to a problem
of a built-in family (whose named mistakes live in code) is recorded as a new misconception."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.utils.translation import gettext

from courses.models import Problem
from teaching.models import MisconceptionNote


def misconception_note_add(
    *, problem: Problem, relation: str, formula: str, text: str, author: AbstractBaseUser
) -> MisconceptionNote:
    """Keep an instructor's note on the group `relation` (`formula`) of the problem's answers;
    ValueError when the note says nothing or a field is too long."""
    text = text.strip()
    if not text:
        raise ValueError(gettext("Write what the note should say."))
    for name, value in (("relation", relation), ("formula", formula)):
        limit = MisconceptionNote._meta.get_field(name).max_length
        if not value or len(value) > limit:
            raise ValueError(
                gettext("The %(field)s must be 1 to %(limit)s characters.")
                % {"field": name, "limit": limit}
            )
    return MisconceptionNote.objects.create(
        problem=problem,
        relation=relation,
        formula=formula,
        text=text,
        author=author,
        author_name=author.get_username(),
    )
