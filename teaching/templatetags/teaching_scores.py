"""How the attempt page shows an item's score, its score changes and the override form."""

from __future__ import annotations

from django import template

from grading.models import ScoreChange
from grading.selectors import ItemRow
from teaching.scores.forms import OverrideForm

register = template.Library()


@register.filter
def row_points(row: ItemRow) -> float:
    """An item's score in an attempt in points (an override's 1.5 of 2 stays 1.5)."""
    return (row.score or 0.0) * row.item.points


@register.filter
def for_item(changes: dict[int, list[ScoreChange]], item_id: int) -> list[ScoreChange]:
    """The score changes of one item, from teaching.scores.changes.attempt_score_changes."""
    return changes.get(item_id, [])


@register.simple_tag
def override_form(row: ItemRow) -> OverrideForm:
    """The override form of one item of the attempt page, its ids unique to the item."""
    return OverrideForm(
        item=row.item,
        auto_id=f"override-{row.item.pk}-%s",
        initial={"score": round(row_points(row), 4)},
    )
