"""What every authoring form shares: text that cannot render is refused on its own field, and a
read-only field shows it rendered as a learner will read it."""

from __future__ import annotations

from django import forms
from django.utils.html import format_html

from .markup import MarkupError, check_markup, render_markup


def markup_preview(text: str):
    """Rendered Markdown + math for a read-only admin field, or the reason it cannot render."""
    try:
        return format_html('<div class="sg-preview">{}</div>', render_markup(text))
    except MarkupError as exc:
        return format_html('<p class="errornote">Cannot render: {}</p>', exc)


class MarkupFieldsForm(forms.ModelForm):
    """Rejects text that cannot render (a bad formula, HTML or a link in a formula), naming the
    formula, on the field that holds it."""

    markup_fields: tuple[str, ...] = ()

    def clean(self):
        cleaned = super().clean()
        for name in self.markup_fields:
            for problem in check_markup(cleaned.get(name) or ""):
                self.add_error(name, problem)
        return cleaned
