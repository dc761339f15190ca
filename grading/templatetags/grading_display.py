"""How learners see problems, answers and verdicts: prompts, syntax hints, feedback panels.

Correct answers are computed here only through `correct_answer`, which templates call only when
grading.policy shows them; a page test scans every page for leaks.

Every number the engine writes for the page (givens in a prompt, the tolerance, a worked
solution, the correct answer, the grid of a learner's entries) uses the decimal separator of the
page's language (grading.locale_numbers), as the answer box reads it.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from courses.markup import render_markup_or_plain
from grading import engine
from grading.engine.answers import format_number
from grading.engine.solutions import worked_solution
from grading.locale_numbers import decimal_separator
from grading.models import Response, Variant

register = template.Library()


@register.filter
def markup(text: str) -> SafeString:
    """Instructor text (Markdown with $math$) as sanitized HTML."""
    return render_markup_or_plain(text or "")


@register.filter
def markup_inline(text: str) -> SafeString:
    """Short instructor text (a choice) without its paragraph; titles use inline_math."""
    return render_markup_or_plain(text or "", inline=True)


@register.filter
def points_of(score: float | None, points: int) -> float:
    """An item's points earned from its score (0 to 1): fractional when a penalty for extra
    tries or an override makes it so, 0 when unanswered."""
    return (score or 0.0) * points


@register.filter
def choice_letter(number: int) -> str:
    """A, B, C… for the 1st, 2nd, 3rd choice: a name for a choice that is only a formula."""
    return chr(ord("A") + int(number) - 1) if 1 <= int(number) <= 26 else str(number)


@register.filter
def variant_prompt(variant: Variant) -> SafeString:
    """The problem statement with this variant's numbers, math as MathML."""
    family = engine.get_family(variant.family)
    return render_markup_or_plain(family.prompt(variant.givens, decimal_separator()))


def _shape(variant: Variant) -> tuple[int, ...]:
    return tuple(engine.get_family(variant.family).answer_shape(variant.givens))


@register.filter
def answer_rows(variant: Variant) -> int:
    """Lines for the answer box: one per matrix row, else 0 (a one-line box)."""
    shape = _shape(variant)
    return shape[0] if len(shape) == 2 else 0


@register.filter
def answer_hint(variant: Variant) -> str:
    """A short reminder of what the answer box accepts, for this variant's answer shape and the
    page's decimal separator: with a decimal comma, entries are separated by ; (the reader:
    grading.engine.answers.separators)."""
    shape = _shape(variant)
    comma = decimal_separator() == ","
    if not shape:
        if comma:
            return _(
                "One number or expression, e.g. 2,5; 3/4; sqrt(64) or √64; 2^10; e^-1; ln(2); "
                "pi. Decimal comma: 0,5 (no thousands separator)."
            )
        return _("One number or expression, e.g. 2.5, 3/4, sqrt(64) or √64, 2^10, e^-1, ln(2), pi.")
    if len(shape) == 1:
        if comma:
            return _(
                "%(count)s numbers separated by semicolons, e.g. [0,1; 0,2; 0,7]; each may be an "
                "expression such as 1/3. Decimal comma; separate entries with ;."
            ) % {"count": shape[0]}
        return _(
            "%(count)s numbers separated by commas, e.g. [0.1, 0.2, 0.7]; each may be an "
            "expression such as 1/3."
        ) % {"count": shape[0]}
    fields = {"rows": shape[0], "columns": shape[1]}
    if comma:
        return (
            _(
                "A %(rows)s×%(columns)s matrix, row by row: [[a; b]; [c; d]], or one row per line. "
                "Entries may be expressions. Decimal comma; separate entries with ;."
            )
            % fields
        )
    return (
        _(
            "A %(rows)s×%(columns)s matrix, row by row: [[a, b], [c, d]], or one row per line (or "
            "rows separated by ;). Entries may be expressions."
        )
        % fields
    )


@register.filter
def tolerance_text(variant: Variant) -> str:
    """Which answers count as correct, e.g. 'within 1% of the correct value'."""
    tolerance = engine.Tolerance(variant.atol, variant.rtol)
    return engine.describe_tolerance(tolerance, decimal_separator())


@register.filter
def correct_answer(variant: Variant) -> str:
    """The correct answer as a learner would type it on this page; templates call it only once
    released."""
    family = engine.get_family(variant.family)
    answer = family.solve(variant.givens, variant.grading_key).answer
    return engine.format_answer(answer, decimal=decimal_separator())


@register.filter
def solution_steps(variant: Variant) -> list[SafeString]:
    """A variant's worked solution, step by step, rendered; it holds the answer, so templates call
    it only once grading.policy shows solutions (Visibility.solutions, or a practice reveal)."""
    steps = worked_solution(
        variant.family, variant.givens, variant.grading_key, decimal_separator()
    )
    return [render_markup_or_plain(step) for step in steps]


def _entry_label(entry: Any) -> str:
    return f"({entry[0]}, {entry[1]})" if isinstance(entry, list) else str(entry)


@register.inclusion_tag("grading/_verdict.html")
def verdict(
    response: Response | None,
    misconceptions: dict | None = None,
) -> dict[str, Any]:
    """The feedback panel for one response: verdict, misconception, wrong entries, tolerance."""
    if response is None:
        return {"response": None}
    detail = response.detail or {}
    misconception = (misconceptions or {}).get(response.misconception)
    grid = []
    decimal = decimal_separator()
    parsed = detail.get("parsed")
    wrong = {tuple(e) if isinstance(e, list) else (e,) for e in detail.get("wrong_entries") or []}
    if isinstance(parsed, list) and response.status != Response.Status.INVALID:
        if parsed and isinstance(parsed[0], list):
            grid = [
                [
                    {"value": format_number(v, 4, decimal), "wrong": (i, j) in wrong}
                    for j, v in enumerate(row, start=1)
                ]
                for i, row in enumerate(parsed, start=1)
            ]
        else:
            grid = [
                [
                    {"value": format_number(v, 4, decimal), "wrong": (i,) in wrong}
                    for i, v in enumerate(parsed, start=1)
                ]
            ]
    feedback = response.feedback
    if response.status == Response.Status.INVALID:
        # The reader's messages are lower-case fragments, e.g. "that power is too large".
        feedback = f"{feedback[:1].upper()}{feedback[1:]}".rstrip(".") + "."
    else:
        # The panel's title already says it.
        # (The engine's "Not correct." in the language it was graded in, usually the page's.)
        for prefix in {"Not correct. ", _("Not correct.") + " "}:
            feedback = feedback.removeprefix(prefix)
    if response.question_id:
        # A question's feedback is its choices' authored feedback (Markdown with $math$); a
        # problem's is the engine's plain text, which may quote what the learner typed.
        feedback = render_markup_or_plain(feedback, inline=True)
    return {
        "response": response,
        "feedback": feedback,
        "misconception": misconception,
        "wrong_entries": [_entry_label(e) for e in detail.get("wrong_entries") or []],
        "grid": grid,
    }
