"""The exam sheet of an attempt: rendered once, stored, and filled in per request.

An exam's attempt page is mostly the same on every request: each item's number, points,
prompt (a variant's with its numbers), choices in the attempt's order, and answer hint. Only the
learner's own answers change (the text typed, the choices ticked, "saved" or "not answered
yet", the message for an answer that could not be read), with the page's tokens and the time
left, which the page's own template fills around the sheet.

So the items are rendered once per attempt, by the same templates as every other item
(grading/_sheet_items.html around _item_prompt.html and _item_inputs.html), with a slot,
`<!--slot:name-->`, wherever a request's value goes, and stored in the database (AttemptSheet:
a page must not depend on the cache surviving a restart) as its literal parts and slot names.
`sheet_page` reads them back and fills each slot from the learner's saved answers, escaping
every value. A slot cannot be forged by authored text: the renderer escapes `<` in prompts and
choices and its sanitizer strips comments (courses/markup.py), and every other value is
escaped by the template, so the only comments in the output are the template's own slots.

A stored sheet is keyed by what it was rendered from (`sheet_key`): the sheet's templates
(SHEET_FORMAT), the markup renderer (courses.markup.RENDERER_VERSION), the quiz's content
version (courses/content_versions.py), which every change to items, points, prompts and choices
raises, as do regrades that change a tolerance, and the language it was rendered in (its
headings and hints are translated), so a learner who switches language in the middle of an
exam gets the sheet in the new one. The attempt's own part (its variants, draws and
orders) is fixed when it starts. A sheet with another key, or none (an attempt started before
sheets were stored), is rendered and stored on the way.

Only the exam sheet is stored: a page with feedback at once carries per item its verdict, its
tries and its own form, which change with every answer, so it is rendered per request as before.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from django.conf import settings
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext_lazy

from courses.markup import RENDERER_VERSION
from courses.models import Quiz
from grading import selectors
from grading.models import Attempt, AttemptSheet, Response

# Part of every key: raise it with any change to the sheet's templates (grading/_sheet_items.html,
# _item_prompt.html, _item_inputs.html) or to the slots, so no attempt is served a sheet made the
# old way.
SHEET_FORMAT = 2

SLOT = re.compile(r"<!--slot:([a-z0-9-]+)-->")
# Lazy: each request fills them in its own language.
NOT_ANSWERED = gettext_lazy("not answered yet")
SAVED = gettext_lazy("saved")
_INVALID_ATTRIBUTE = mark_safe(' aria-invalid="true"')


def sheet_key(quiz: Quiz) -> str:
    """What a sheet of this quiz is rendered from in the active language, as a key:
    `sheet_key(quiz)` == "1.2.7.de"."""
    # No language active (a task outside a request) renders in the default one, as the key says.
    language = get_language() or settings.LANGUAGE_CODE
    return f"{SHEET_FORMAT}.{RENDERER_VERSION}.{quiz.content_version}.{language}"


def sheet_parts(rendered: str) -> list[str]:
    """Rendered HTML as literal parts and slot names, alternating, literal first and last:
    `sheet_parts("<p><!--slot:a--></p>")` == ["<p>", "a", "</p>"]."""
    return SLOT.split(rendered)


def sheet_fill(parts: Sequence[str], values: Mapping[str, str]) -> SafeString:
    """The parts joined with every slot's value escaped (a SafeString value as it is); a slot
    without a value is a KeyError, so no slot is ever left empty by mistake."""
    out = list(parts)
    for index in range(1, len(out), 2):
        out[index] = conditional_escape(values[out[index]])
    return mark_safe("".join(out))


def _render(attempt: Attempt) -> list[str]:
    rows = selectors.attempt_sheet(attempt=attempt)
    return sheet_parts(render_to_string("grading/_sheet_items.html", {"rows": rows}))


def _stored_parts(attempt: Attempt, key: str) -> list[str] | None:
    """The stored parts if they are current (one query, unless the attempt came with its sheet:
    grading.selectors.attempt_of_learner with_sheet)."""
    try:
        stored = attempt.sheet
    except AttemptSheet.DoesNotExist:
        return None
    return stored.parts if stored.key == key else None


def _store(attempt: Attempt, key: str) -> list[str]:
    parts = _render(attempt)
    try:
        with transaction.atomic():
            AttemptSheet.objects.create(attempt=attempt, key=key, parts=parts)
    except IntegrityError:
        # A stale sheet, or another request storing this attempt's sheet at the same moment
        # (it rendered the same parts from the same key): either way, the row is replaced.
        AttemptSheet.objects.filter(attempt=attempt).update(
            key=key, parts=parts, rendered_at=timezone.now()
        )
    return parts


def sheet_store(*, attempt: Attempt) -> None:
    """Render and store the attempt's sheet, unless the stored one is current (one query then).

    Call it once the attempt's variants and draws exist (a started or prepared attempt), so the
    first page is a read; calling it again is safe and cheap.
    """
    key = sheet_key(attempt.quiz)
    if not AttemptSheet.objects.filter(attempt=attempt, key=key).exists():
        _store(attempt, key)


# ---------------------------------------------------------------------------------------------
# The per-request part: the learner's saved answers
# ---------------------------------------------------------------------------------------------


class SavedAnswer(NamedTuple):
    """One response as the sheet shows it."""

    id: int
    text: str
    status: str
    feedback: str
    question_id: int | None


class ItemAnswers(NamedTuple):
    """Per item id: the latest response, the latest that counts (the saved answer), and the
    choices of the saved answer."""

    latest: dict[int, SavedAnswer]
    saved: dict[int, SavedAnswer]
    picked: dict[int, set[int]]


def item_answers(*, attempt: Attempt) -> ItemAnswers:
    """The attempt's latest and saved answer per item: one query, and one for the choices of the
    saved answers to questions when there are any (grading.selectors.ItemRow's rule)."""
    latest: dict[int, SavedAnswer] = {}
    saved: dict[int, SavedAnswer] = {}
    rows = (
        Response.objects.filter(attempt=attempt)
        .order_by("created_at", "id")
        .values_list(
            "quiz_item_id", "id", "text", "status", "feedback", "question_id", "counts_as_try"
        )
    )
    for item_id, *fields, counts in rows:
        answer = SavedAnswer(*fields)
        latest[item_id] = answer
        if counts:
            saved[item_id] = answer
    by_response = {answer.id: item_id for item_id, answer in saved.items() if answer.question_id}
    picked: dict[int, set[int]] = defaultdict(set)
    if by_response:
        through = Response.choices.through.objects.filter(response_id__in=by_response)
        for response_id, choice_id in through.values_list("response_id", "choice_id"):
            picked[by_response[response_id]].add(choice_id)
    return ItemAnswers(latest, saved, picked)


def _error(item_id: int, latest: SavedAnswer, saved: SavedAnswer | None) -> SafeString:
    context = {"item_id": item_id, "latest": latest, "saved": saved, "sheet": True}
    return mark_safe(render_to_string("grading/_item_error.html", context).strip())


def slot_values(slots: Sequence[str], answers: ItemAnswers) -> dict[str, str]:
    """The value of each named slot for these answers (grading/_sheet_items.html names them
    kind-item or kind-item-choice); an unknown kind is a ValueError."""
    values: dict[str, str] = {}
    for slot in slots:
        kind, _, rest = slot.partition("-")
        item_id = int(rest.split("-")[0])
        latest, saved = answers.latest.get(item_id), answers.saved.get(item_id)
        unreadable = latest is not None and latest.status == Response.Status.INVALID
        if kind == "state":
            values[slot] = SAVED if saved else NOT_ANSWERED
        elif kind == "checked":
            choice_id = int(rest.split("-")[1])
            values[slot] = " checked" if choice_id in answers.picked.get(item_id, ()) else ""
        elif kind == "value":
            values[slot] = latest.text if unreadable else (saved.text if saved else "")
        elif kind == "described":
            values[slot] = f" item-{item_id}-error" if unreadable else ""
        elif kind == "invalid":
            values[slot] = _INVALID_ATTRIBUTE if unreadable else ""
        elif kind == "error":
            values[slot] = _error(item_id, latest, saved) if unreadable else ""
        else:
            raise ValueError(f"unknown slot {slot!r} in a stored sheet")
    return values


def sheet_page(*, attempt: Attempt) -> SafeString:
    """The attempt's items as its page shows them now: the stored sheet (rendered and stored
    first when there is none or it is stale) with the learner's saved answers filled in. An
    attempt fetched with its sheet (select_related "sheet") saves a query."""
    key = sheet_key(attempt.quiz)
    parts = _stored_parts(attempt, key)
    if parts is None:
        parts = _store(attempt, key)
    return sheet_fill(parts, slot_values(parts[1::2], item_answers(attempt=attempt)))
